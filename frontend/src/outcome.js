// What became of a player's round, in his words: the banner at its end, the message
// when he comes back after a failure or a time-out, and a bead of the recent results.
import { amount, format, signed, sum } from "./money.js";

/**
 * The summary of a finished round for `you`, from its events and results (the server's
 * JSON), or null when he had no bet in it.
 *
 * kind: "blackjack" | "win" | "lose" | "push" | "void"; net: exact text ("-5.00"); text:
 * one sentence; timedOut: his hand was played by the table's time-out rule.
 */
export function roundSummary({ events = [], results = [], you, number = null }) {
  if (!you) return null;
  const mine = results.filter((r) => r.player === you);
  const returned = events.filter((e) => e.type === "bet_returned" && e.player === you);
  const voided = events.find((e) => e.type === "round_voided");
  if (!mine.length && !(voided && returned.length)) return null;
  const net = sum(mine.map((r) => r.net));
  const round = number === null ? "The round" : `Round ${number}`;
  if (voided) {
    const back = sum((mine.length ? mine.filter((r) => r.outcome === "void") : returned).map((r) => r.stake ?? r.amount));
    const money = back.gt(0) ? `; your ${format(back)} was returned` : "";
    return { kind: "void", net: format(net), text: `${round} was void: ${voided.reason}${money}.`, timedOut: false, bets: mine.length };
  }
  // Hands of boxes he decides, played by the time-out rule: the total each stood on.
  const seated = new Set(events.filter((e) => e.type === "bet_placed" && e.seated && e.player === you).map((e) => e.box));
  const stoodOn = [];
  events.forEach((e, index) => {
    if (e.type !== "player_timed_out") return;
    const his = seated.size ? seated.has(e.box) : mine.some((r) => r.box === e.box);
    if (!his) return;
    const stood = events.slice(index + 1).find((s) => s.type === "player_stood" && s.box === e.box && s.hand === e.hand);
    const busted = events.slice(index + 1).find((s) => s.type === "bet_settled" && s.box === e.box && s.hand === e.hand && s.outcome === "bust");
    stoodOn.push(stood ? `stood on ${stood.total}` : busted ? "went bust" : "was played for you");
  });
  const kind = mine.some((r) => r.outcome === "blackjack" && amount(r.net).gt(0))
    ? "blackjack"
    : net.gt(0) ? "win" : net.lt(0) ? "lose" : "push";
  if (stoodOn.length) {
    const hands = stoodOn.length === 1 ? `your hand ${stoodOn[0]}` : `your hands: ${stoodOn.join(", ")}`;
    return { kind, net: format(net), text: `Time ran out: ${hands}, ${signedWords(net)}.`, timedOut: true, bets: mine.length };
  }
  const words = { blackjack: "Blackjack!", win: "You win", lose: "You lose", push: "Push: your bet stands off" }[kind];
  return { kind, net: format(net), text: `${words} ${signedWords(net)}`.trim(), timedOut: false, bets: mine.length };
}

/** A net with its sign, as a person reads it: "+25.00", "−5.00" (a minus sign), "0.00". */
export function signedWords(value) {
  const big = amount(value);
  return big.lt(0) ? `−${big.abs().toFixed(2)}` : signed(big);
}

/** The bead of the recent-results road: a letter and a class. */
export function bead(kind) {
  return { blackjack: "BJ", win: "W", lose: "L", push: "P", void: "V" }[kind] ?? "?";
}

/** Session statistics from the road's entries ({kind, net}). */
export function sessionStats(entries) {
  const count = (kind) => entries.filter((e) => e.kind === kind).length;
  const nets = entries.map((e) => amount(e.net));
  const best = nets.reduce((top, n) => (n.gt(top) ? n : top), amount(0));
  return {
    rounds: entries.filter((e) => e.kind !== "void").length,
    won: count("win") + count("blackjack"),
    lost: count("lose"),
    pushed: count("push"),
    blackjacks: count("blackjack"),
    net: signed(sum(nets)),
    biggestWin: format(best),
  };
}
