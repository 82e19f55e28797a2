import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { amount, signed } from "../money.js";
import { opWords, sideBetName, outcomeWords } from "../names.js";
import { Cards } from "./Card.js";
import { describe } from "./EventLog.js";

/** The player's recent rounds, each opening to its recall. */
export function History() {
  const [rounds, setRounds] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api("/api/rounds?limit=50").then(setRounds).catch((e) => setError(e.message));
  }, []);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!rounds) return html`<h1>Your rounds</h1><p role="status">Loading your rounds…</p>`;
  if (!rounds.length) return html`<h1>Your rounds</h1><p>No rounds yet: <a href="#/">pick a table</a>.</p>`;
  return html`<h1>Your rounds</h1>
    <table class="history">
      <thead><tr>${["Round", "Table", "Status", "Balance before", "after", "Net", "Recall"].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
      <tbody>${rounds.map((r) => html`<tr key=${r.round}>
        <td>#${r.number}</td><td>${r.table}</td><td>${r.status}</td>
        <td>${r.balance_before}</td><td>${r.balance_after ?? "–"}</td>
        <td>${r.balance_after == null ? "–" : signed(amount(r.balance_after).minus(r.balance_before))}</td>
        <td><a href=${`#/round/${r.round}`}>Recall</a></td></tr>`)}</tbody>
    </table>`;
}

/** Game recall: the round's cards in order, the player's decisions and results, his balance. */
export function Recall({ id }) {
  const [record, setRecord] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(`/api/rounds/${encodeURIComponent(id)}`).then(setRecord).catch((e) => setError(e.message));
  }, [id]);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!record) return html`<p role="status">Loading the round…</p>`;
  const recall = record.recall;
  const when = (at) => (at ? new Date(at).toLocaleString() : "–");
  return html`<article class="recall">
    <p><a href="#/history">← Your rounds</a></p>
    <h1>Round #${recall.number} at ${recall.table}</h1>
    <p>${record.rules} version ${record.rules_version} · ${recall.status}${recall.void_reason ? `: ${recall.void_reason}` : ""} · opened ${when(recall.opened_at)}, closed ${when(recall.closed_at)}</p>
    <p class="balances">Balance before ${recall.balance_before ?? "–"}, after ${recall.balance_after ?? "–"}</p>
    <h2>Cards in the order dealt</h2>
    <${Cards} cards=${recall.cards_dealt} />
    <h2>Your decisions</h2>
    <ol class="decisions">${recall.decisions.map((d) => html`<li>${when(d.at)}: ${opWords(d)}</li>`)}</ol>
    <h2>Your bets</h2>
    <table class="history">
      <thead><tr><th scope="col">Bet</th><th scope="col">Box</th><th scope="col">Hand</th><th scope="col">Stake</th><th scope="col">Result</th><th scope="col">Net</th></tr></thead>
      <tbody>${recall.bets.map((b) => html`<tr><td>${b.bet === "main" ? "bet" : sideBetName(b.bet)}</td><td>${b.box}</td><td>${b.hand ?? "–"}</td><td>${b.stake}</td><td>${outcomeWords(b.outcome)}</td><td>${signed(b.net)}</td></tr>`)}</tbody>
    </table>
    <h2>Everything that happened</h2>
    <ol class="events">${recall.events.map((e) => html`<li>${describe(e)}</li>`)}</ol>
    <details><summary>Replay file (croupier round)</summary><pre>${JSON.stringify(record, null, 2)}</pre></details>
  </article>`;
}
