import { html } from "htm/preact";
import { parseCard } from "../cards.js";

/**
 * A playing card; `text` null for one face down. Mounted once per card, so the deal
 * animation plays when the card arrives, not at every update of the table.
 */
export function Card({ text, delay = 0 }) {
  const card = parseCard(text);
  const style = `--delay:${delay}ms`;
  if (!card) return html`<span class="card back" style=${style} role="img" aria-label="face-down card"></span>`;
  return html`<span class=${`card${card.red ? " red" : ""}`} style=${style} role="img" aria-label=${card.label} data-card=${text}>
    <span class="index" aria-hidden="true">${card.rank}<br />${card.symbol}</span>
    <span class="pip" aria-hidden="true">${card.symbol}</span>
  </span>`;
}

export function Cards({ cards, hidden = 0, dealOrder = () => 0 }) {
  return html`<div class="cards">
    ${cards.map((text, index) => html`<${Card} key=${`c${index}`} text=${text} delay=${dealOrder(index)} />`)}
    ${Array.from({ length: hidden }, (_, k) => html`<${Card} key=${`h${k}`} text=${null} delay=${dealOrder(cards.length + k)} />`)}
  </div>`;
}
