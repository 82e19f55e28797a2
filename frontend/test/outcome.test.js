import { describe, expect, test } from "vitest";
import { bead, roundSummary, sessionStats, signedWords } from "../src/outcome.js";
import { chipStack } from "../src/money.js";

const placed = (player, box, amount, seated = true) => ({ type: "bet_placed", player, box, bet: "main", amount, seated });
const result = (player, box, net, outcome, stake = "25.00", hand = 1) => ({ player, box, hand, bet: "main", stake, net, outcome });

describe("what became of the player's round", () => {
  test("a void round after a technical interruption returns his stake", () => {
    const events = [
      placed("ann", 1, "5.00"),
      { type: "technical_interruption", outcome_established: false },
      { type: "round_voided", reason: "technical interruption before any outcome was established (RWS v5 5.4.2)" },
    ];
    const summary = roundSummary({ events, results: [result("ann", 1, "0.00", "void", "5.00")], you: "ann", number: 8 });
    expect(summary.kind).toBe("void");
    expect(summary.text).toBe(
      "Round 8 was void: technical interruption before any outcome was established (RWS v5 5.4.2); your 5.00 was returned.",
    );
  });
  test("a hand played by the time-out rule says what it stood on and the net", () => {
    const events = [
      placed("ann", 1, "5.00"),
      { type: "player_timed_out", box: 1, hand: 1 },
      { type: "player_hit", box: 1, hand: 1 },
      { type: "player_stood", box: 1, hand: 1, total: 15, automatic: true },
    ];
    const summary = roundSummary({ events, results: [result("ann", 1, "-5.00", "lose", "5.00")], you: "ann" });
    expect(summary).toEqual({ kind: "lose", net: "-5.00", text: "Time ran out: your hand stood on 15, −5.00.", timedOut: true, bets: 1 });
  });
  test("another player's time-out is not his", () => {
    const events = [placed("bob", 2, "5.00"), placed("ann", 1, "25.00"), { type: "player_timed_out", box: 2, hand: 1 }];
    expect(roundSummary({ events, results: [result("ann", 1, "25.00", "win")], you: "ann" }).text).toBe("You win +25.00");
  });
  test("the net is across all his bets: a blackjack, a lost side bet, a push", () => {
    const results = [result("ann", 1, "37.50", "blackjack"), { ...result("ann", 1, "-5.00", "lose"), bet: "perfect_pairs", hand: null }];
    expect(roundSummary({ results, you: "ann" })).toMatchObject({ kind: "blackjack", net: "32.50", text: "Blackjack! +32.50" });
    expect(roundSummary({ results: [result("ann", 1, "0.00", "stand-off")], you: "ann" }).kind).toBe("push");
    expect(roundSummary({ results: [result("bob", 1, "0.00", "stand-off")], you: "ann" })).toBeNull();
  });
});

test("session statistics and beads", () => {
  const entries = [{ kind: "win", net: "25.00" }, { kind: "blackjack", net: "37.50" }, { kind: "lose", net: "-25.00" }, { kind: "push", net: "0.00" }, { kind: "void", net: "0.00" }];
  expect(sessionStats(entries)).toEqual({ rounds: 4, won: 2, lost: 1, pushed: 1, blackjacks: 1, net: "+37.50", biggestWin: "37.50" });
  expect(entries.map((e) => bead(e.kind))).toEqual(["W", "BJ", "L", "P", "V"]);
  expect(signedWords("-5")).toBe("−5.00");
});

test("a bet drawn as a stack of chips, largest first", () => {
  expect(chipStack("135.00")).toEqual(["100.00", "25.00", "10.00"]);
  expect(chipStack("7.50")).toEqual(["5.00", "1.00", "1.00", "0.50"]);
  expect(chipStack("20000.00", 3)).toEqual(["10000.00", "10000.00"]);
});
