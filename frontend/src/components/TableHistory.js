// The table's history, the same for everyone at it and kept on the server: the dealer's
// hand in each of the last rounds (a bead road) and his bust rate.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { bustRateWords, dealerBead } from "../history.js";

const SHOWN = 30;

/** Read again each time a round of the table ends (`ended`: that round's id). */
export function TableHistory({ id, ended }) {
  const [history, setHistory] = useState(null);
  useEffect(() => {
    if (ended === null && history) return undefined; // the next round opened: nothing new
    let live = true;
    // The round that just ended: the server answers the whole table with one read that holds it.
    const after = ended ? `?after=${encodeURIComponent(ended)}` : "";
    api(`/api/tables/${encodeURIComponent(id)}/history${after}`)
      .then((data) => live && setHistory(data))
      .catch(() => {});
    return () => { live = false; };
  }, [id, ended]);
  if (!history) return null;
  const rounds = history.rounds.slice(-SHOWN);
  return html`<section class="table-history" aria-labelledby="table-history-title">
    <h2 id="table-history-title">Table history</h2>
    ${rounds.length
      ? html`<ol class="road dealer-road" aria-label="the dealer's last hands, oldest first">${rounds.map((round) => {
        const bead = dealerBead(round);
        return html`<li key=${round.round} class=${`bead ${bead.kind}`} data-number=${round.number}
          title=${bead.words}><span aria-hidden="true">${bead.label}</span><span class="visually-hidden">${bead.words}</span></li>`;
      })}</ol>`
      : html`<p class="fine">No round finished at this table yet.</p>`}
    <p class="bust-rate" data-busts=${history.dealer.busts} data-rounds=${history.dealer.rounds}>${bustRateWords(history.dealer)}</p>
  </section>`;
}
