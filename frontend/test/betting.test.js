import { describe, expect, test } from "vitest";
import { layoutTotal, refuseChip, refuseConfirm, totals } from "../src/betting.js";

const rules = { minimum_bet: "25.00", maximum_bet: "5000.00", side_bet_maximum: "500.00" };
const chip = (box, bet, value) => ({ box, bet, value });

describe("a chip is refused before it lands when the bet would break a limit", () => {
  test("over the maximum a box takes", () => {
    const pending = [chip(1, "main", "5000.00")];
    expect(refuseChip({ box: 1, bet: "main", value: "25.00", pending, placed: [], rules, balance: "9000.00" }))
      .toBe("Box 1: a bet of 5025.00 is over the table's maximum of 5000.00.");
  });
  test("bets already placed count towards the maximum", () => {
    const placed = [{ box: 1, bet: "perfect_pairs", amount: "500.00" }];
    expect(refuseChip({ box: 1, bet: "perfect_pairs", value: "5.00", pending: [], placed, rules, balance: "900.00" }))
      .toBe("Box 1: a Perfect Pairs bet of 505.00 is over the table's maximum of 500.00.");
  });
  test("more than the balance", () => {
    expect(refuseChip({ box: 2, bet: "main", value: "100.00", pending: [chip(1, "main", "950.00")], placed: [], rules, balance: "1000.00" }))
      .toBe("Your balance of 1000.00 does not cover 1050.00 in bets.");
  });
  test("within every limit", () => {
    expect(refuseChip({ box: 1, bet: "main", value: "25.00", pending: [], placed: [], rules, balance: "25.00" })).toBeNull();
  });
});

describe("placing the bets", () => {
  test("a box under the minimum cannot be confirmed (RWS v5 5.2), bets behind count", () => {
    const bet = (player, box, amount) => ({ player, box, bet: "main", amount });
    expect(refuseConfirm([bet("ann", 3, "10.00")], "ann", rules)).toBe("Box 3: the minimum bet is 25.00.");
    expect(refuseConfirm([bet("ann", 3, "10.00"), bet("bob", 3, "15.00")], "ann", rules)).toBeNull();
    expect(layoutTotal([bet("ann", 3, "10.00"), bet("ann", 1, "25.00"), bet("bob", 3, "15.00")], "ann")).toBe("35.00");
  });
  test("chips on one spot make one bet, in the order first placed", () => {
    const pending = [chip(1, "main", "25.00"), chip(1, "player_pair", "5.00"), chip(1, "main", "100.00")];
    expect(totals(pending)).toEqual([
      { box: 1, bet: "main", value: "125.00" },
      { box: 1, bet: "player_pair", value: "5.00" },
    ]);
  });
});
