// The player's own limits: a loss limit and a time limit per session, the reality
// check's interval, a break and self-exclusion. The server keeps and enforces them;
// this page only asks for them and says what the server decided.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { end, refreshPlay, sayFarewell, tellOtherTabs } from "../session.js";
import "./Limits.css";

const BREAK_DAYS = [1, 7, 30, 42];
const EXCLUSION_MONTHS = [6, 12, 24, 60];

const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const lossWords = (value) => (value === null ? "no loss limit" : `a loss limit of ${value}`);
const timeWords = (value) => (value === null ? "no time limit" : `a time limit of ${value} minutes`);

/** What the server decided, in a sentence: what holds now and what waits. */
export function describeLimits(limits) {
  const now = `Now: ${lossWords(limits.loss_limit)} and ${timeWords(limits.session_minutes)} per session, a reality check every ${limits.reality_check_minutes} minutes.`;
  const waiting = [
    limits.pending_loss_limit && [lossWords(limits.pending_loss_limit.value), limits.pending_loss_limit],
    limits.pending_session_minutes && [timeWords(limits.pending_session_minutes.value), limits.pending_session_minutes],
  ].filter(Boolean).map(([words, pending]) => pending.confirmable
    ? ` You may now confirm ${words}.`
    : ` ${words[0].toUpperCase()}${words.slice(1)} waits for the ${limits.cooling_off_hours}-hour cooling-off: confirm it from ${when(pending.confirmable_from)}.`);
  return now + waiting.join("");
}

function formOf(limits) {
  return { loss: limits.loss_limit ?? "", minutes: limits.session_minutes ?? "", reality: String(limits.reality_check_minutes) };
}

export function LimitsPage() {
  const [limits, setLimits] = useState(null);
  const [form, setForm] = useState({ loss: "", minutes: "", reality: "60" });
  const [message, setMessage] = useState(null); // {kind: "error"|"info", text}
  const [asking, setAsking] = useState(null); // "break" | "exclusion": the second step
  const [days, setDays] = useState("1");
  const [months, setMonths] = useState("6");

  function shown(found) {
    setLimits(found);
    setForm(formOf(found));
    return found;
  }
  useEffect(() => {
    api("/api/limits").then(shown).catch((error) => setMessage({ kind: "error", text: error.message }));
  }, []);
  const field = (name) => (event) => setForm({ ...form, [name]: event.currentTarget.value });

  async function save(event) {
    event.preventDefault();
    const body = {
      loss_limit: String(form.loss).trim() || null,
      session_minutes: String(form.minutes).trim() ? Number(form.minutes) : null,
      reality_check_minutes: Number(form.reality),
    };
    try {
      const found = shown(await api("/api/limits", { method: "PUT", body }));
      refreshPlay();
      setMessage({ kind: "info", text: found.pending_loss_limit || found.pending_session_minutes ? "Saved: the lower limits hold now, the higher ones after the cooling-off." : "Saved: your limits hold now." });
    } catch (error) {
      setMessage({ kind: "error", text: error.message });
    }
  }
  async function confirmRaise() {
    try {
      shown(await api("/api/limits/confirm", { method: "POST" }));
      refreshPlay();
      setMessage({ kind: "info", text: "Confirmed: the higher limits hold now." });
    } catch (error) {
      setMessage({ kind: "error", text: error.message });
    }
  }
  async function stopPlaying(path, body, words) {
    try {
      const found = await api(path, { method: "POST", body });
      // The confirmation, with its end date, is the page he lands on, in every tab.
      const text = `${words(found)} You have been logged out.`;
      sayFarewell(text);
      tellOtherTabs({ type: "stopped", text });
      end();
      location.hash = "#/stopped";
    } catch (error) {
      setMessage({ kind: "error", text: error.message });
    }
  }
  const confirmable = limits && [limits.pending_loss_limit, limits.pending_session_minutes].some((p) => p?.confirmable);

  return html`<section class="limits" aria-labelledby="limits-title">
    <h1 id="limits-title">Your limits</h1>
    <p class="fine">A lower limit holds at once. A higher one (or none) holds only after a
      24-hour cooling-off, and once you confirm it. The table refuses any bet your limits forbid.</p>
    ${limits && html`<p id="limits-now">${describeLimits(limits)}</p>`}
    ${limits && html`<form class="limits-form" onSubmit=${save}>
      <label for="loss-limit">Loss limit per session (empty: none)</label>
      <input id="loss-limit" inputmode="decimal" pattern="\\d{1,7}(\\.\\d{1,2})?" placeholder="none" value=${form.loss} onInput=${field("loss")} />
      <label for="session-minutes">Time limit per session, in minutes (empty: none)</label>
      <input id="session-minutes" type="number" min="5" max="1440" placeholder="none" value=${form.minutes} onInput=${field("minutes")} />
      <label for="reality-minutes">Reality check every (minutes)</label>
      <input id="reality-minutes" type="number" min="5" max="240" required value=${form.reality} onInput=${field("reality")} />
      <div class="row">
        <button type="submit" class="primary" id="save-limits">Save limits</button>
        ${confirmable && html`<button type="button" id="confirm-limits" onClick=${confirmRaise}>Confirm the higher limit</button>`}
      </div>
    </form>`}
    <p class=${message?.kind === "error" ? "error" : "info"} id="limits-message" role=${message?.kind === "error" ? "alert" : "status"}>${message?.text ?? ""}</p>
    ${limits && html`<div class="limits-stop">
      <h2>Take a break</h2>
      <div class="row">
        <label for="break-days">No play for</label>
        <select id="break-days" value=${days} onChange=${(e) => setDays(e.currentTarget.value)}>
          ${BREAK_DAYS.map((d) => html`<option value=${d}>${d} day${d > 1 ? "s" : ""}</option>`)}
        </select>
        <button type="button" onClick=${() => setAsking("break")}>Take a break…</button>
      </div>
      ${asking === "break" && html`<p class="row" role="group" aria-label="confirm the break">
        You will be logged out and cannot play for ${days} day${days === "1" ? "" : "s"}; it cannot be shortened.
        <button type="button" class="primary" id="start-break" onClick=${() => stopPlaying("/api/limits/break", { days: Number(days) }, (f) => `Your break lasts until ${when(f.break_until)}.`)}>Start my break</button>
        <button type="button" onClick=${() => setAsking(null)}>Cancel</button></p>`}
      <h2>Exclude yourself</h2>
      <div class="row">
        <label for="exclusion-months">Exclude me for</label>
        <select id="exclusion-months" value=${months} onChange=${(e) => setMonths(e.currentTarget.value)}>
          ${EXCLUSION_MONTHS.map((m) => html`<option value=${m}>${m} months</option>`)}
        </select>
        <button type="button" onClick=${() => setAsking("exclusion")}>Exclude me…</button>
      </div>
      ${asking === "exclusion" && html`<p class="row" role="group" aria-label="confirm the self-exclusion">
        You will be logged out and cannot log in or play for ${months} months. Nobody can undo it, you included.
        <button type="button" class="primary" id="start-exclusion" onClick=${() => stopPlaying("/api/limits/self-exclusion", { months: Number(months) }, (f) => `You are excluded until ${when(f.excluded_until)}.`)}>Exclude me</button>
        <button type="button" onClick=${() => setAsking(null)}>Cancel</button></p>`}
    </div>`}
  </section>`;
}
