import { html } from "htm/preact";
import { cardWait, now } from "../clock.js";

const WORDS = {
  betting: (s) => `No more bets in ${s}s`,
  offer: (s) => `Answer in ${s}s`,
  decision: (s, rule) => `Decide in ${s}s, or the hand is played for you: ${rule}`,
  next_round: () => "Next round…",
};

const firstSeen = new Map();

/** The betting countdown, the offer timer or the decision timer, from the server's deadline. */
export function Timer({ table, view }) {
  void now.value; // re-render every second
  const deadline = view.deadline;
  if (!deadline) {
    const waited = cardWait(view, table.now());
    const idle = view.phase === "betting" ? "Place your bets" : waited ? `Waiting for the dealer's card: waited ${waited}` : "";
    return html`<div class="timer" role="timer" aria-live="off">${idle}</div>`;
  }
  const left = Math.max(0, Math.ceil(deadline.at - table.now()));
  // The bar's length: the time left when this deadline was first seen.
  const id = `${deadline.kind}@${deadline.at}`;
  if (firstSeen.size > 50) firstSeen.clear();
  if (!firstSeen.has(id)) firstSeen.set(id, Math.max(left, 1));
  const share = Math.min(1, left / firstSeen.get(id));
  const whose = deadline.kind === "decision" && view.turn ? ` (box ${view.turn.box}${view.turn.yours ? ", yours" : ""})` : "";
  return html`<div class=${`timer timer-${deadline.kind}${left <= 5 ? " urgent" : ""}`} role="timer" aria-live="off" data-kind=${deadline.kind}>
    <span>${(WORDS[deadline.kind] ?? (() => ""))(left, view.timeout_rule)}${whose}</span>
    <span class="bar" style=${`--share:${share}`} aria-hidden="true"></span>
  </div>`;
}
