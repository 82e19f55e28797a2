// WCAG 2.2 4.1.3 status messages: what the table's live region says to the player.
import { describe, expect, test } from "vitest";
import { handWords, offerWords, resultWords, stateAnnouncements, turnWords, upCardWords } from "../src/announce.js";
import { roundSummary } from "../src/outcome.js";

const hand = (cards, total, extra = {}) => ({ hand: 1, cards, total, soft: false, blackjack: false, stakes: {}, ...extra });
/** A state of a table with ann on box 3 and bob on box 5, the dealer showing `up`. */
const state = (extra = {}) => ({
  round: "r1",
  number: 12,
  phase: "player-turns",
  dealer: { cards: ["KD"], total: 10, hidden_cards: 1 },
  boxes: [
    { box: 3, seated: "ann", hands: [hand(["10S", "5C"], 15)] },
    { box: 5, seated: "bob", hands: [hand(["9H", "8S"], 17)] },
  ],
  bets: [],
  offers: [],
  turn: null,
  legal_actions: [],
  ...extra,
});

describe("the words of a hand and of the dealer's up card", () => {
  test("hard and soft totals, a pair, a blackjack and a bust", () => {
    expect(handWords(hand(["10S", "5C"], 15))).toBe("hard 15");
    expect(handWords(hand(["AS", "7C"], 18, { soft: true }))).toBe("soft 18");
    expect(handWords(hand(["8S", "8D"], 16))).toBe("hard 16, a pair of 8s");
    expect(handWords(hand(["AS", "AD"], 12, { soft: true }))).toBe("soft 12, a pair of Aces");
    expect(handWords(hand(["AS", "KD"], 21, { soft: true, blackjack: true }))).toBe("blackjack");
    expect(handWords(hand(["10S", "5C", "KH"], 25))).toBe("bust with 25");
  });

  test("the up card with its article: tens and faces are a 10", () => {
    expect(upCardWords("KD")).toBe("a 10");
    expect(upCardWords("10H")).toBe("a 10");
    expect(upCardWords("AH")).toBe("an Ace");
    expect(upCardWords("8C")).toBe("an 8");
    expect(upCardWords("6D")).toBe("a 6");
    expect(upCardWords(undefined)).toBe(null);
  });
});

describe("the player's turn", () => {
  test("says his box, his hand and the dealer's up card", () => {
    expect(turnWords(state({ turn: { box: 3, hand: 1, yours: true } }))).toBe("Your turn, box 3: hard 15 against a 10");
  });

  test("names the hand once the box is split", () => {
    const split = state({
      turn: { box: 3, hand: 2, yours: true },
      boxes: [{ box: 3, seated: "ann", hands: [hand(["8S", "KH"], 18), { ...hand(["8D", "9C"], 17), hand: 2 }] }],
    });
    expect(turnWords(split)).toBe("Your turn, box 3 hand 2: hard 17 against a 10");
  });

  test("says nothing of another player's turn", () => {
    expect(turnWords(state({ turn: { box: 5, hand: 1, yours: false } }))).toBe(null);
  });
});

describe("what changed for the player between two states", () => {
  const before = state();

  test("his turn once, then his hand again after each card he draws", () => {
    const mine = state({ turn: { box: 3, hand: 1, yours: true } });
    expect(stateAnnouncements(before, mine, "ann")).toEqual(["Your turn, box 3: hard 15 against a 10"]);
    expect(stateAnnouncements(mine, { ...mine }, "ann")).toEqual([]);
    const hit = state({ turn: { box: 3, hand: 1, yours: true }, boxes: [{ box: 3, seated: "ann", hands: [hand(["10S", "5C", "4H"], 19)] }] });
    expect(stateAnnouncements(mine, hit, "ann")).toEqual(["Your turn, box 3: hard 19 against a 10"]);
  });

  test("nothing of another player's turn, cards or bust", () => {
    const bobs = state({ turn: { box: 5, hand: 1, yours: false } });
    const bobHit = state({
      turn: { box: 5, hand: 1, yours: false },
      boxes: [before.boxes[0], { box: 5, seated: "bob", hands: [hand(["9H", "8S", "KC"], 27)] }],
    });
    expect(stateAnnouncements(before, bobs, "ann")).toEqual([]);
    expect(stateAnnouncements(bobs, bobHit, "ann")).toEqual([]);
    // bob is told of his own turn, and nothing of ann's box
    expect(stateAnnouncements(before, bobs, "bob")).toEqual([]);
    expect(stateAnnouncements(before, state({ turn: { box: 5, hand: 1, yours: true } }), "bob")).toEqual([
      "Your turn, box 5: hard 17 against a 10",
    ]);
  });

  test("an offer made to him, once; none made to another player", () => {
    const up = { dealer: { cards: ["AH"], total: 11, hidden_cards: 1 } };
    const offers = state({
      ...up,
      phase: "offers",
      offers: [
        { kind: "insurance", player: "ann", box: 3, hand: 1, amount: "12.50", blackjack: false },
        { kind: "insurance", player: "bob", box: 5, hand: 1, amount: "5.00", blackjack: false },
      ],
    });
    expect(stateAnnouncements(state(up), offers, "ann")).toEqual(["Box 3: hard 15 against an Ace, insurance offered for 12.50"]);
    expect(stateAnnouncements(offers, { ...offers }, "ann")).toEqual([]);
  });

  test("his bets on the layout while they are open; not another player's", () => {
    const open = state({ phase: "betting", boxes: [], turn: null });
    const chip = { ...open, bets: [{ player: "ann", box: 3, bet: "main", amount: "25.00" }] };
    const bobs = { ...chip, bets: [...chip.bets, { player: "bob", box: 5, bet: "main", amount: "100.00" }] };
    expect(stateAnnouncements(open, chip, "ann")).toEqual(["Your bets on the layout: 25.00"]);
    expect(stateAnnouncements(chip, bobs, "ann")).toEqual([]);
  });

  test("a watcher is told nothing", () => {
    expect(stateAnnouncements(before, state({ turn: { box: 3, hand: 1, yours: false } }), null)).toEqual([]);
  });
});

describe("offers in words", () => {
  const s = state({ dealer: { cards: ["AH"], total: 11, hidden_cards: 1 } });

  test("even money on a blackjack, surrender, following a split", () => {
    const bj = state({
      dealer: { cards: ["AH"], total: 11, hidden_cards: 1 },
      boxes: [{ box: 3, seated: "ann", hands: [hand(["AS", "KD"], 21, { soft: true, blackjack: true })] }],
    });
    expect(offerWords({ kind: "even-money", player: "ann", box: 3, hand: 1 }, bj)).toBe("Box 3: blackjack against an Ace, even money offered");
    expect(offerWords({ kind: "surrender", player: "ann", box: 3, hand: 1 }, s)).toBe("Box 3: hard 15 against an Ace, surrender offered");
    expect(offerWords({ kind: "follow-split", player: "ann", box: 5, hand: 1, amount: "25.00" }, s)).toBe(
      "Box 5: the box's player split: follow with a matching bet of 25.00?",
    );
  });
});

describe("the player's result", () => {
  const result = (player, box, net, outcome, bet = "main") => ({ player, box, hand: 1, bet, stake: "25.00", net, outcome });
  const dealer = { type: "dealer_finished", total: 17, busted: false, blackjack: false };

  test("his own boxes only, with the dealer's total", () => {
    const results = [result("ann", 3, "25.00", "win"), result("bob", 5, "-25.00", "lose")];
    const summary = roundSummary({ events: [dealer], results, you: "ann", number: 12 });
    expect(resultWords({ summary, results, events: [dealer], you: "ann" })).toBe("Dealer has 17. Box 3: you won +25.00.");
  });

  test("a blackjack, a bust, a push, two boxes with the net of both", () => {
    const results = [
      result("ann", 1, "37.50", "blackjack"),
      result("ann", 2, "-25.00", "bust"),
      result("ann", 4, "0.00", "stand-off"),
    ];
    const summary = roundSummary({ events: [], results, you: "ann" });
    expect(resultWords({ summary, results, events: [], you: "ann" })).toBe(
      "Box 1: blackjack, you won +37.50. Box 2: bust, you lost −25.00. Box 4: push, your bet stands off. In all +12.50.",
    );
  });

  test("a void round and a time-out keep the summary's sentence", () => {
    const events = [
      { type: "bet_placed", player: "ann", box: 1, bet: "main", amount: "5.00", seated: true },
      { type: "round_voided", reason: "technical interruption before any outcome was established (RWS v5 5.4.2)" },
    ];
    const results = [result("ann", 1, "0.00", "void")];
    const summary = roundSummary({ events, results, you: "ann", number: 12 });
    expect(resultWords({ summary, results, events, you: "ann" })).toBe(
      "Round 12 was void: technical interruption before any outcome was established (RWS v5 5.4.2); your 25.00 was returned.",
    );
  });

  test("nothing when he had no bet", () => {
    const results = [result("bob", 5, "25.00", "win")];
    expect(resultWords({ summary: roundSummary({ results, you: "ann" }), results, you: "ann" })).toBe(null);
  });
});
