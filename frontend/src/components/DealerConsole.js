import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { cardWait, now } from "../clock.js";

const CONFIRM = {
  interrupt: {
    title: "Record a technical interruption?",
    text: "The round is void and every stake returned, unless an outcome is established (the table's rulebook: RWS v5 5.4 or its own).",
    button: "Record the interruption",
  },
  cut_card: {
    title: "The cut card is out?",
    text: "The shoe is shuffled after this round.",
    button: "Cut card is out",
  },
};

/** A physical shoe's table: the dealer enters each card, voids a round, or records an
 * interruption or the cut card (each asked to be confirmed first). */
export function DealerConsole({ table, view }) {
  const [card, setCard] = useState("");
  const [reason, setReason] = useState("");
  const [asking, setAsking] = useState(null);
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
  const whose = view.next_card_for;
  void now.value; // the wait, each second
  const waited = cardWait(view, table.now());
  return html`<div class="dealer-console">
    <h2>Dealer console</h2>
    <form class="row" onSubmit=${enter}>
      <label for="card">${view.awaiting_card ? `Next card${whose ? `, for ${whose}` : ""}` : "Card"}</label>
      <input id="card" value=${card} onInput=${(e) => setCard(e.currentTarget.value)} placeholder="e.g. QH" autocomplete="off" size="6" />
      <button type="submit" disabled=${!view.awaiting_card}>Enter card</button>
      <span class="next-card" role="status">${view.awaiting_card ? `The table waits for the next card${whose ? `: ${whose}` : ""}.` : "No card is due."}</span>
      ${waited && html`<span class="waited" role="timer" aria-live="off">Waiting ${waited}</span>`}
    </form>
    <form class="row" onSubmit=${voidRound}>
      <label for="reason">Void reason</label>
      <input id="reason" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} placeholder="e.g. dealing error" size="24" />
      <button type="submit">Void round</button>
    </form>
    <div class="row">
      <button type="button" onClick=${() => setAsking("interrupt")}>Technical interruption</button>
      <button type="button" onClick=${() => setAsking("cut_card")}>Cut card out</button>
    </div>
    ${asking && html`<${Confirm} ask=${CONFIRM[asking]} onAnswer=${(yes) => {
      if (yes) table.act(asking);
      setAsking(null);
    }} />`}
  </div>`;
}

/** A question the dealer answers before a step that cannot be taken back. */
function Confirm({ ask, onAnswer }) {
  const ref = useRef(null);
  useEffect(() => {
    ref.current.showModal();
  }, []);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby="confirm-title" onCancel=${(e) => { e.preventDefault(); onAnswer(false); }}>
    <h2 id="confirm-title">${ask.title}</h2>
    <p>${ask.text}</p>
    <div class="row">
      <button type="button" class="primary" onClick=${() => onAnswer(true)}>${ask.button}</button>
      <button type="button" onClick=${() => onAnswer(false)} autofocus>Cancel</button>
    </div>
  </dialog>`;
}
