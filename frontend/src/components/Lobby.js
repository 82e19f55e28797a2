import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { percent, sideBetName } from "../names.js";
import { plays, user } from "../session.js";

const REFRESH_MS = 10_000;

/** The tables: rulebook, limits, side bets, free boxes, players, and the exact RTP. */
export function Lobby() {
  const [tables, setTables] = useState(null);
  const [rtp, setRtp] = useState({});
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    const load = () => api("/api/tables").then((t) => live && setTables(t)).catch((e) => live && setError(e.message));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => { live = false; clearInterval(timer); };
  }, []);
  useEffect(() => {
    for (const table of tables ?? []) {
      if (table.id in rtp) continue;
      setRtp((known) => ({ ...known, [table.id]: null }));
      api(`/api/tables/${encodeURIComponent(table.id)}/rtp`)
        .then((r) => setRtp((known) => ({ ...known, [table.id]: r })))
        .catch(() => setRtp((known) => ({ ...known, [table.id]: false })));
    }
  }, [tables]);
  if (error) return html`<h1>Tables</h1><p class="error" role="alert">${error}</p>`;
  if (!tables) return html`<h1>Tables</h1><p role="status">Loading the tables…</p>`;
  return html`<section class="lobby-page">
    <h1>Tables</h1>
    <ul class="lobby">${tables.map((table) => {
      const free = table.boxes - Object.keys(table.seats).length;
      const r = rtp[table.id];
      return html`<li class="table-card" key=${table.id} data-table=${table.id}>
        <h2>${table.name}</h2>
        <p class="rulebook">${table.title} <small>(${table.rules} v${table.rules_version})</small></p>
        <dl>
          <dt>Bets</dt><dd>${table.minimum_bet} – ${table.maximum_bet}</dd>
          <dt>Side bets</dt><dd>${table.side_bets.length ? table.side_bets.map(sideBetName).join(", ") : "none"}</dd>
          <dt>Boxes</dt><dd>${free} of ${table.boxes} free</dd>
          <dt>Players</dt><dd>${table.players} at the table</dd>
          <dt>Dealt</dt><dd>${table.dealt === "rng" ? "from a shuffled shoe (RNG)" : "by a dealer from a physical shoe"}</dd>
          <dt>RTP</dt><dd class="rtp">${r ? html`RTP ${percent(r.main)}${Object.keys(r.side_bets).length ? html`<small> · ${Object.entries(r.side_bets).map(([k, v]) => `${sideBetName(k)} ${percent(v)}`).join(" · ")}</small>` : ""}` : r === false ? "–" : "computing…"}</dd>
        </dl>
        <a class="button primary" href=${`#/table/${table.id}`}>${plays.value ? "Play" : "Watch"}</a>
        ${user.value && (user.value.role === "dealer" || user.value.role === "admin") && html` <a class="button" href=${`#/dealer/${table.id}`}>Deal</a>`}
      </li>`;
    })}</ul>
  </section>`;
}
