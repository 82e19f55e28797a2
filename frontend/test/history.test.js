import { describe, expect, test } from "vitest";
import { bustRateWords, dealerBead } from "../src/history.js";

const round = (number, dealer, status = "settled") => ({ round: `r${number}`, number, status, dealer });
const hand = (cards, total, { busted = false, blackjack = false, played_out = true } = {}) => ({ cards, total, busted, blackjack, played_out });

describe("the table's history", () => {
  test("each round's bead says how the dealer's hand ended", () => {
    expect(dealerBead(round(1, hand(["6D", "9C", "KD"], 25, { busted: true })))).toEqual({
      label: "B", kind: "bust", words: "Round 1: dealer 25 bust (6D 9C KD)",
    });
    expect(dealerBead(round(2, hand(["10D", "8C"], 18)))).toEqual({ label: "18", kind: "stood", words: "Round 2: dealer 18 (10D 8C)" });
    expect(dealerBead(round(3, hand(["AS", "KD"], 21, { blackjack: true }))).label).toBe("BJ");
    expect(dealerBead(round(4, hand(["5D"], 5, { played_out: false }))).kind).toBe("short");
    expect(dealerBead(round(5, null, "void"))).toEqual({ label: "V", kind: "void", words: "Round 5: void" });
  });

  test("the bust rate is the server's exact figure, in words", () => {
    expect(bustRateWords({ rounds: 2, busts: 1, percent: "50.0" })).toBe("Dealer busted 1 of his last 2 hands played out (50.0%).");
    expect(bustRateWords({ rounds: 1, busts: 0, percent: "0.0" })).toBe("Dealer busted 0 of his last 1 hand played out (0.0%).");
    expect(bustRateWords({ rounds: 0, busts: 0, percent: null })).toBe("No dealer hand played out yet.");
  });
});
