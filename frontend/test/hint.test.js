import { describe, expect, test } from "vitest";
import { codeWords, strategyCode } from "../src/hint.js";
import { opWords } from "../src/names.js";

// Two rows of each section of a chart as the server sends it (/api/tables/{id}/strategy).
const upCards = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "A"];
const chart = {
  up_cards: upCards,
  rows: [
    { section: "hard", label: "5", codes: upCards.map(() => "H") },
    { section: "hard", label: "11", codes: upCards.map((u) => (u === "A" ? "H" : "Dh")) },
    { section: "hard", label: "16", codes: upCards.map((u) => (["2", "3", "4", "5", "6"].includes(u) ? "S" : "Rh")) },
    { section: "hard", label: "20", codes: upCards.map(() => "S") },
    { section: "soft", label: "A,7", codes: upCards.map((u) => (["9", "10"].includes(u) ? "H" : "S")) },
    { section: "pair", label: "8,8", codes: upCards.map(() => "P") },
  ],
};

describe("the hint reads the basic strategy chart", () => {
  test("a pair reads the pair rows", () => {
    expect(strategyCode(chart, ["8S", "8H"], 16, false, "AH")).toBe("P");
  });
  test("a hand of three cards reads its hard total; tens and faces are one column", () => {
    expect(strategyCode(chart, ["8S", "3H", "5D"], 16, false, "KS")).toBe("Rh");
  });
  test("a soft total reads the soft rows", () => {
    expect(strategyCode(chart, ["AS", "7H"], 18, true, "9C")).toBe("H");
  });
  test("hard totals under the chart's first row read its first row", () => {
    expect(strategyCode(chart, ["2S", "2H"], 4, false, "5C")).toBe("H");
  });
  test("no hint without the chart or the up card", () => {
    expect(strategyCode(null, ["8S", "3H"], 11, false, "5C")).toBeNull();
    expect(strategyCode(chart, ["8S", "3H"], 11, false, undefined)).toBeNull();
  });
  test("codes read as the chart's legend", () => {
    expect(codeWords("Dh")).toBe("double, otherwise hit");
    expect(codeWords("S")).toBe("stand");
  });
});

describe("the recall's decisions read as words", () => {
  test("bets name the spot", () => {
    expect(opWords({ op: "bet", args: { box: 1, amount: "25.00", bet: "main" } })).toBe("bet 25.00 on box 1");
    expect(opWords({ op: "bet", args: { box: 1, amount: "5.00", bet: "perfect_pairs" } })).toBe("Perfect Pairs bet 5.00 on box 1");
  });
  test("other decisions", () => {
    expect(opWords({ op: "insurance", args: { box: 2 } })).toBe("insurance on box 2");
    expect(opWords({ op: "double", args: { amount: "10.00" } })).toBe("double (amount 10.00)");
    expect(opWords({ op: "split", args: {} })).toBe("split");
  });
});
