import { describe, expect, test } from "vitest";
import { howToPlay } from "../src/howto.js";

const RWS = {
  minimum_bet: "25.00", maximum_bet: "5000.00", hole_card: "none", double_on: "any-two", max_split_hands: 4,
  double_after_split: true, surrender: "rws", dealer_hits_soft_17: false, win_pays: "1", blackjack_pays: "3/2",
  insurance: true, insurance_pays: "2",
};

describe("how to play, from the table's rules", () => {
  test("the steps of a round at an RWS table", () => {
    const steps = howToPlay(RWS, ["player_pair"]);
    expect(steps.map((s) => s.title)).toEqual(["Bet", "The deal", "Your move", "The dealer", "Payouts"]);
    expect(steps[0].text).toContain("a bet is 25.00 to 5000.00 a box");
    expect(steps[1].text).toContain("his second comes after every player has played");
    expect(steps[2].text).toContain("on any first two cards");
    expect(steps[2].text).toContain("unless the dealer shows an Ace");
    expect(steps[3].text).toBe("The dealer draws to 16 and stands on every 17. Over 21 is a bust.");
    expect(steps[4].text).toBe("A win pays 1 to 1, a blackjack (an Ace and a ten in your first two cards) 3 to 2, insurance against a dealer's Ace 2 to 1. A tie is a push: your bet comes back.");
  });

  test("another rule set says its own rules", () => {
    const steps = howToPlay({ ...RWS, hole_card: "peek", double_on: "9-11", surrender: "none", dealer_hits_soft_17: true, insurance: false }, []);
    expect(steps[0].text).not.toContain("Side bets");
    expect(steps[1].text).toContain("checks it for blackjack");
    expect(steps[2].text).toContain("totalling 9, 10 or 11");
    expect(steps[2].text).not.toContain("Surrender");
    expect(steps[3].text).toContain("hits a soft 17");
    expect(steps[4].text).not.toContain("insurance");
  });
});
