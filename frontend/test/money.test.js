import { describe, expect, test } from "vitest";
import { chipValues, format, signed, sum } from "../src/money.js";

describe("money is exact decimal text", () => {
  test("sums never drift as binary floating point does", () => {
    expect(format(sum(["0.10", "0.20"]))).toBe("0.30");
    expect(format(sum(Array.from({ length: 1000 }, () => "0.01")))).toBe("10.00");
  });
  test("results carry their sign", () => {
    expect(signed("37.5")).toBe("+37.50");
    expect(signed("-25")).toBe("-25.00");
    expect(signed("0")).toBe("0.00");
  });
});

describe("a table's chips run from its minimum bet to its maximum", () => {
  test("rws-v5, bets 25.00 to 5000.00", () => {
    expect(chipValues("25.00", "5000.00")).toEqual(["25.00", "100.00", "500.00", "1000.00", "5000.00"]);
  });
  test("live, bets 5.00 to 2500.00: at most six chips", () => {
    expect(chipValues("5.00", "2500.00")).toEqual(["5.00", "10.00", "25.00", "100.00", "500.00", "1000.00"]);
  });
  test("a minimum that is no usual chip value gets a chip of its own", () => {
    expect(chipValues("2.50", "50.00")).toEqual(["2.50", "5.00", "10.00", "25.00"]);
  });
});
