import { html } from "htm/preact";
import { useState } from "preact/hooks";

/** A physical shoe's table: the dealer enters each card, voids a round, or records an interruption. */
export function DealerConsole({ table, view }) {
  const [card, setCard] = useState("");
  const [reason, setReason] = useState("");
  function enter(event) {
    event.preventDefault();
    if (!card.trim()) return table.tell("error", "Type the card first, e.g. QH or 10S.");
    table.act("card", { card: card.trim() });
    setCard("");
  }
  function voidRound(event) {
    event.preventDefault();
    if (!reason.trim()) return table.tell("error", "Give the reason the round is void (RWS v5 5.17).");
    table.act("void", { reason: reason.trim() });
    setReason("");
  }
  return html`<div class="dealer-console">
    <h2>Dealer console</h2>
    <form class="row" onSubmit=${enter}>
      <label for="card">${view.awaiting_card ? "Next card" : "Card"}</label>
      <input id="card" value=${card} onInput=${(e) => setCard(e.currentTarget.value)} placeholder="e.g. QH" autocomplete="off" size="6" />
      <button type="submit" disabled=${!view.awaiting_card}>Enter card</button>
      <span>${view.awaiting_card ? "The table waits for the next card." : "No card is due."}</span>
    </form>
    <form class="row" onSubmit=${voidRound}>
      <label for="reason">Void reason</label>
      <input id="reason" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} placeholder="e.g. dealing error" size="24" />
      <button type="submit">Void round</button>
    </form>
    <div class="row">
      <button type="button" onClick=${() => table.act("interrupt")}>Technical interruption</button>
      <button type="button" onClick=${() => table.act("cut_card")}>Cut card out</button>
    </div>
  </div>`;
}
