import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";

// The back office for admin accounts: the report of /api/admin/ for a period (the last
// 24 hours unless changed), each table's hold over time with its expected band, the
// irregularities linking to each round's recall.

const HOURS = [["24", "Last 24 hours"], ["168", "Last 7 days"], ["720", "Last 30 days"]];

function percent(value) {
  return value == null ? "–" : `${(Number(value) * 100).toFixed(2)}%`;
}

function Section({ title, rows, columns, empty }) {
  return html`<section class="admin-section">
    <h2>${title}</h2>
    ${rows.length
      ? html`<div class="admin-scroll"><table class="history">
          <thead><tr>${columns.map(([label]) => html`<th scope="col">${label}</th>`)}</tr></thead>
          <tbody>${rows.map((row, index) => html`<tr key=${index}>${columns.map(([, cell]) => html`<td>${cell(row)}</td>`)}</tr>`)}</tbody>
        </table></div>`
      : html`<p>${empty}</p>`}
  </section>`;
}

/** A table's hold in each stretch of the period against its expected band (two
 * standard deviations around the theoretical win), as a small plot with a text twin. */
function HoldPlot({ table, hours }) {
  const [points, setPoints] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const since = new Date(Date.now() - Number(hours) * 3600 * 1000).toISOString();
    api(`/api/admin/hold?table=${encodeURIComponent(table)}&steps=12&since=${encodeURIComponent(since)}`)
      .then(setPoints)
      .catch((e) => setError(e.message));
  }, [table, hours]);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!points) return html`<p role="status">Loading the hold of ${table}…</p>`;
  const played = points.filter((p) => p.rounds && Number(p.handle) > 0);
  if (!played.length) return html`<p>No rounds at ${table} in the period.</p>`;
  const ratio = (p, key) => Number(p[key]) / Number(p.handle);
  const values = played.flatMap((p) => [ratio(p, "house_win"), ratio(p, "band_low"), ratio(p, "band_high")]);
  const top = Math.max(...values, 0.01);
  const bottom = Math.min(...values, -0.01);
  const width = 360;
  const height = 120;
  const x = (index) => 10 + (index * (width - 20)) / Math.max(points.length - 1, 1);
  const y = (value) => 10 + ((top - value) * (height - 20)) / (top - bottom);
  const at = (p) => points.indexOf(p);
  const band = [
    ...played.map((p) => `${x(at(p))},${y(ratio(p, "band_high"))}`),
    ...[...played].reverse().map((p) => `${x(at(p))},${y(ratio(p, "band_low"))}`),
  ].join(" ");
  const line = played.map((p) => `${x(at(p))},${y(ratio(p, "house_win"))}`).join(" ");
  const summary = `Hold of ${table} in ${played.length} of ${points.length} stretches: ` +
    played.map((p) => `${percent(ratio(p, "house_win"))} (expected ${percent(ratio(p, "band_low"))} to ${percent(ratio(p, "band_high"))})`).join("; ");
  return html`<figure class="admin-hold">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${summary}>
      <polygon points=${band} fill="currentColor" opacity="0.15" />
      <line x1="10" x2=${width - 10} y1=${y(0)} y2=${y(0)} stroke="currentColor" opacity="0.4" />
      <polyline points=${line} fill="none" stroke="currentColor" stroke-width="2" />
    </svg>
    <figcaption>${table}: hold by stretch (line) within its expected band (shaded)</figcaption>
  </figure>`;
}

/** The admin pages: tables, players, irregularities, advantage play and shuffle health. */
export function AdminPage() {
  const [hours, setHours] = useState("24");
  const [report, setReport] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setReport(null);
    setError(null);
    const since = new Date(Date.now() - Number(hours) * 3600 * 1000).toISOString();
    api(`/api/admin/report?since=${encodeURIComponent(since)}`).then(setReport).catch((e) => setError(e.message));
  }, [hours]);
  const choose = html`<label>Period <select value=${hours} onChange=${(e) => setHours(e.currentTarget.value)}>
    ${HOURS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
  </select></label>`;
  if (error) return html`<h1>Back office</h1>${choose}<p class="error" role="alert">${error}</p>`;
  if (!report) return html`<h1>Back office</h1>${choose}<p role="status">Making the report…</p>`;
  const advantage = report.advantage_play;
  return html`<article class="admin">
    <h1>Back office</h1>
    ${choose}
    <${Section} title="Tables" rows=${report.tables} empty="No table played in the period." columns=${[
      ["Table", (t) => t.table], ["Rules", (t) => t.rules], ["Rounds", (t) => t.rounds],
      ["Handle", (t) => Object.entries(t.handle).map(([bet, value]) => `${bet} ${value}`).join(", ")],
      ["House win", (t) => t.house_win], ["Hold", (t) => percent(t.hold)],
      ["Theoretical win", (t) => t.theoretical_win], ["Verdict", (t) => t.verdict],
    ]} />
    ${report.tables.map((t) => html`<${HoldPlot} key=${t.table} table=${t.table} hours=${hours} />`)}
    <${Section} title="Players" rows=${report.players} empty="No player in the period." columns=${[
      ["Player", (p) => p.player], ["Rounds", (p) => p.rounds], ["Hours", (p) => p.hours],
      ["Average bet", (p) => p.average_bet ?? "–"], ["Handle", (p) => p.handle], ["Net", (p) => p.net],
      ["Theoretical loss", (p) => p.theoretical_loss], ["Verdict", (p) => p.verdict],
    ]} />
    <${Section} title="Irregularities" rows=${report.irregularities} empty="No irregularity in the period." columns=${[
      ["Round", (i) => html`<a href=${`#/round/${i.round}`}>#${i.number}</a>`], ["Table", (i) => i.table],
      ["Kind", (i) => i.kind], ["Clause", (i) => i.clause], ["Who", (i) => i.who ?? "–"],
      ["Returned", (i) => i.returned], ["Detail", (i) => i.detail],
    ]} />
    <${Section} title="Advantage play" rows=${advantage.players} empty=${`No player with ${advantage.fewest_rounds} rounds or more.`} columns=${[
      ["Player", (a) => a.player], ["Rounds", (a) => a.rounds],
      ["Correlation", (a) => (a.correlation == null ? "–" : a.correlation.toFixed(3))],
      ["z", (a) => (a.z == null ? "–" : a.z.toFixed(1))], ["Spread", (a) => (a.spread ? `1-${a.spread}` : "–")],
      ["Insured at +3", (a) => `${a.insured_at_index} of ${a.insured}`], ["Verdict", (a) => a.verdict],
    ]} />
    <p>A player whose bets ignore the count is flagged with a chance of ${advantage.flat_bettor_flagged.toExponential(1)}.</p>
    <${Section} title="Shuffle health" rows=${report.shuffle_health} empty="No shoe shuffled by the server in the period." columns=${[
      ["Table", (s) => s.table], ["Shoes", (s) => s.shoes],
      ["First cards p", (s) => s.first_card_p_value.toPrecision(3)],
      ["Card by position p", (s) => s.position_p_value.toPrecision(3)], ["Verdict", (s) => s.verdict],
    ]} />
  </article>`;
}
