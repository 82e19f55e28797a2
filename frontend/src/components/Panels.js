// The rules of the table (written from its preset, with every side bet's pay table and
// the exact RTP) and the basic strategy chart for its rules.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { percent, ratioWords, sideBetName } from "../names.js";
import { Dialog } from "./Dialog.js";
import { howToPlay } from "../howto.js";


export function RulesPanel({ id, onClose }) {
  const [preset, setPreset] = useState(null);
  const [rtp, setRtp] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(`/api/tables/${encodeURIComponent(id)}/rules`).then(setPreset).catch((e) => setError(e.message));
    api(`/api/tables/${encodeURIComponent(id)}/rtp`).then(setRtp).catch(() => {});
  }, [id]);
  return html`<${Dialog} title=${preset ? preset.title : "Rules"} onClose=${onClose} className="rules-panel">
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${!preset && !error && html`<p role="status">Loading the rules…</p>`}
    ${preset && html`
      <p class="source">Rulebook ${preset.rulebook}, preset ${preset.name} version ${preset.version}.</p>
      ${rtp && html`<p class="rtp">Return to player with basic strategy: <strong>${percent(rtp.main)}</strong> (exact, computed from these rules).</p>`}
      <ul class="summary">${(preset.summary ?? []).map((line) => html`<li>${line}</li>`)}</ul>
      ${Object.entries(preset.pay_tables ?? {}).map(([bet, lines]) => html`<section class="paytable" data-side-bet=${bet}>
        <h3>${sideBetName(bet)}${rtp?.side_bets?.[bet] != null ? html` <small>RTP ${percent(rtp.side_bets[bet])}</small>` : ""}</h3>
        <table><thead><tr><th scope="col">Hand</th><th scope="col">Pays</th></tr></thead>
          <tbody>${lines.map((line) => html`<tr><td>${line.description}</td><td>${ratioWords(line.pays)}</td></tr>`)}</tbody></table>
      </section>`)}
      <details>
        <summary>Every rule with its clause</summary>
        <table class="clauses"><thead><tr><th scope="col">Rule</th><th scope="col">Value</th><th scope="col">Clause</th><th scope="col">Why</th></tr></thead>
          <tbody>${Object.entries(preset.citations).map(([field, c]) => html`<tr>
            <th scope="row">${field.replaceAll("_", " ")}</th><td>${Array.isArray(c.value) ? c.value.join(", ") : String(c.value ?? "none")}</td><td>${c.clause}</td><td>${c.note}</td></tr>`)}</tbody></table>
      </details>`}
  <//>`;
}

/** How to play, in a few steps written from the table's rules. */
export function HowToPlayPanel({ rules, sideBets, onClose }) {
  return html`<${Dialog} title="How to play" onClose=${onClose} className="how-to-play">
    ${rules
      ? html`<ol class="steps">${howToPlay(rules, sideBets).map((step) => html`<li key=${step.title}><strong>${step.title}.</strong> ${step.text}</li>`)}</ol>`
      : html`<p role="status">Loading the rules…</p>`}
    <p class="fine">Every rule with its clause is under Rules.</p>
  <//>`;
}

/** The basic strategy chart, fetched when first opened (it is the page's largest read). */
export function StrategyPanel({ strategy, onClose }) {
  return html`<${Dialog} title=${strategy ? strategy.title : "Basic strategy"} onClose=${onClose} className="strategy-panel">
    ${strategy
      ? html`<div class="chart" dangerouslySetInnerHTML=${{ __html: strategy.svg /* our own server's SVG */ }}></div>`
      : html`<p role="status">Loading the chart…</p>`}
  <//>`;
}
