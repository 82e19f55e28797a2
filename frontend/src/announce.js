// What a screen reader is told of the player's own game (WCAG 2.2 4.1.3 status
// messages): his turns, the offers made to him, his bets on the layout and his results.
// Never another player's cards, nor each card as it is dealt: the table's log has those.
import { amount, format, sum } from "./money.js";
import { signedWords } from "./outcome.js";

const RANK_NAMES = { A: "Ace", J: "Jack", Q: "Queen", K: "King" };

/** A card's rank as the server writes it ("10S", "KD", "AH"): "10", "K", "A". */
const rankOf = (card) => {
  const rank = card.slice(0, -1);
  return rank === "T" ? "10" : rank;
};

/** The dealer's up card as a player says it: "an Ace", "a 10" (tens and faces), "an 8". */
export function upCardWords(card) {
  if (!card) return null;
  const rank = rankOf(card);
  if (rank === "A") return "an Ace";
  const value = ["J", "Q", "K"].includes(rank) ? "10" : rank;
  return `${value === "8" ? "an" : "a"} ${value}`;
}

/** A hand in words: "hard 15", "soft 18", "blackjack", "hard 16, a pair of 8s", "bust with 24". */
export function handWords(hand) {
  if (hand.blackjack) return "blackjack";
  if (hand.total > 21) return `bust with ${hand.total}`;
  const total = `${hand.soft && hand.total < 21 ? "soft" : "hard"} ${hand.total}`;
  const [first, second] = hand.cards ?? [];
  if (hand.cards?.length === 2 && rankOf(first) === rankOf(second)) {
    const rank = rankOf(first);
    return `${total}, a pair of ${RANK_NAMES[rank] ?? rank}s`;
  }
  return total;
}

/** "box 3", or "box 3 hand 2" once the box holds split hands. */
const where = (box, hand) => `box ${box.box}${box.hands.length > 1 ? ` hand ${hand.hand}` : ""}`;

/** A hand of the table's state with the dealer's up card: "hard 15 against a 10". */
function handAgainst(state, boxNumber, handNumber) {
  const box = state.boxes.find((b) => b.box === boxNumber);
  const hand = box?.hands.find((h) => h.hand === handNumber);
  if (!box || !hand) return null;
  const up = upCardWords(state.dealer.cards[0]);
  return { box, hand, words: `${handWords(hand)}${up ? ` against ${up}` : ""}` };
}

/** "Your turn, box 3: hard 15 against a 10", or null when it is not the player's turn. */
export function turnWords(state) {
  if (!state.turn?.yours) return null;
  const found = handAgainst(state, state.turn.box, state.turn.hand);
  if (!found) return `Your turn, box ${state.turn.box}`;
  return `Your turn, ${where(found.box, found.hand)}: ${found.words}`;
}

const OFFER_WORDS = {
  insurance: (offer) => (offer.blackjack ? "even money offered (insurance of your blackjack)" : `insurance offered${offer.amount ? ` for ${offer.amount}` : ""}`),
  "even-money": () => "even money offered",
  surrender: () => "surrender offered",
  "follow-split": (offer) => `the box's player split: follow with a matching bet${offer.amount ? ` of ${offer.amount}` : ""}?`,
  "follow-double": (offer) => `the box's player doubled: follow with a matching bet${offer.amount ? ` of ${offer.amount}` : ""}?`,
};

/** An offer made to the player: "Box 1: hard 16 against a 10, surrender offered". */
export function offerWords(offer, state) {
  const what = (OFFER_WORDS[offer.kind] ?? (() => `${offer.kind.replaceAll("-", " ")} offered`))(offer);
  if (offer.kind.startsWith("follow-")) return `Box ${offer.box}: ${what}`;
  const found = handAgainst(state, offer.box, offer.hand ?? 1);
  const label = found ? where(found.box, found.hand) : `box ${offer.box}`;
  return `${label[0].toUpperCase()}${label.slice(1)}: ${found ? `${found.words}, ` : ""}${what}`;
}

const offerKey = (o) => `${o.kind}:${o.box}:${o.hand ?? 1}`;
const mineTotal = (state, you) => format(sum(state.bets.filter((b) => b.player === you).map((b) => b.amount)));

/**
 * What changed for `you` between two states of the table, in words (oldest first): his
 * bets on the layout while they are open, the offers made to him, his turn, and his hand
 * again after each card he draws. Nothing of other players' hands.
 */
export function stateAnnouncements(before, state, you) {
  if (!you || !state) return [];
  const said = [];
  const sameRound = before?.round === state.round;
  if (state.phase === "betting" && sameRound && before.phase === "betting") {
    const was = mineTotal(before, you);
    const now = mineTotal(state, you);
    if (was !== now) said.push(`Your bets on the layout: ${now}`);
  }
  const known = new Set(sameRound ? before.offers.filter((o) => o.player === you).map(offerKey) : []);
  for (const offer of state.offers.filter((o) => o.player === you)) {
    if (!known.has(offerKey(offer))) said.push(offerWords(offer, state));
  }
  if (state.turn?.yours) {
    const { box, hand } = state.turn;
    const cards = (s) => s?.boxes.find((b) => b.box === box)?.hands.find((h) => h.hand === hand)?.cards.length ?? 0;
    const same = sameRound && before.turn?.yours && before.turn.box === box && before.turn.hand === hand;
    if (!same || cards(before) !== cards(state)) said.push(turnWords(state));
  }
  return said;
}

/** The dealer's final hand from a round's events: "Dealer has 18", "Dealer busts with 25". */
function dealerWords(events) {
  const done = events.find((e) => e.type === "dealer_finished");
  if (!done) return null;
  return `Dealer ${done.blackjack ? "has blackjack" : done.busted ? `busts with ${done.total}` : `has ${done.total}`}`;
}

/**
 * The player's result of a round, box by box: "Dealer has 18. Box 3: you won +25.00."
 * `summary` is roundSummary's (its sentence is kept for a void round and a time-out);
 * null when he had no bet in the round.
 */
export function resultWords({ summary, results = [], events = [], you }) {
  if (!summary) return null;
  if (summary.kind === "void" || summary.timedOut) return summary.text;
  const mine = results.filter((r) => r.player === you);
  const boxes = [...new Set(mine.map((r) => r.box))].sort((a, b) => a - b);
  const parts = boxes.map((box) => {
    const own = mine.filter((r) => r.box === box);
    const net = sum(own.map((r) => r.net));
    const main = own.filter((r) => r.bet === "main");
    const blackjack = main.some((r) => r.outcome === "blackjack" && amount(r.net).gt(0));
    const bust = main.length > 0 && main.every((r) => r.outcome === "bust");
    const surrendered = main.length > 0 && main.every((r) => r.outcome === "surrender");
    const words = net.gt(0)
      ? `${blackjack ? "blackjack, " : ""}you won ${signedWords(net)}`
      : net.lt(0)
        ? `${bust ? "bust, " : surrendered ? "surrendered, " : ""}you lost ${signedWords(net)}`
        : "push, your bet stands off";
    return `Box ${box}: ${words}.`;
  });
  if (boxes.length > 1) parts.push(`In all ${signedWords(summary.net)}.`);
  const dealer = dealerWords(events);
  return [dealer && `${dealer}.`, ...parts].filter(Boolean).join(" ");
}
