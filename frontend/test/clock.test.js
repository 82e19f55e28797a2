import { describe, expect, test } from "vitest";
import { cardWait, elapsed } from "../src/clock.js";

describe("the page's clock", () => {
  test("time as m:ss, or h:mm:ss from an hour", () => {
    expect(elapsed(12_400)).toBe("0:12");
    expect(elapsed(3_725_000)).toBe("1:02:05");
    expect(elapsed(-5)).toBe("0:00");
  });

  test("a table dealt by hand has waited for its card since it last changed", () => {
    expect(cardWait({ awaiting_card: true, now: 100 }, 172.5)).toBe("1:12");
    expect(cardWait({ awaiting_card: false, now: 100 }, 172.5)).toBeNull();
    expect(cardWait({ awaiting_card: true }, 172.5)).toBeNull();
    expect(cardWait(null, 1)).toBeNull();
  });
});
