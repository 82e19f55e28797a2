import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { elapsed, now } from "../clock.js";
import { amount, signed } from "../money.js";
import { acknowledgeReminder, balance, net, play, plays, realityCheckDue, refreshPlay, startedAt, timeLimitAt, user, wagered } from "../session.js";

const HOUR_MS = 3600_000;
const MINUTE_MS = 60_000;

/** Balance, the session's net result and its time, always in view. */
export function SessionBar({ onLogout }) {
  const who = user.value;
  return html`<header class="bar">
    <a href="#/" class="brand">croupier</a>
    <nav aria-label="pages">
      <a href="#/">Lobby</a>
      ${who && html`<a href="#/history">History</a>`}
      ${plays.value && html`<a href="#/limits">Limits</a>`}
      ${who?.role === "admin" && html`<a href="#/admin">Back office</a>`}
    </nav>
    <div class="session" aria-label="your session">
      ${who && !plays.value ? html`
        <span>${who.name} <small>(${who.role})</small></span>
        <button type="button" id="logout" onClick=${onLogout}>Log out</button>` : who ? html`
        <span>${who.name}</span>
        <span>Balance <strong id="balance">${balance.value ?? "–"}</strong></span>
        <span>Session <strong id="net" class=${net.value && amount(net.value).lt(0) ? "down" : net.value && amount(net.value).gt(0) ? "up" : ""}>${signed(net.value ?? "0.00")}</strong></span>
        <span>Time <strong id="clock" role="timer">${elapsed(now.value - (startedAt.value ?? now.value))}</strong></span>
        <button type="button" id="logout" onClick=${onLogout}>Log out</button>` : html`<a class="button" href="#/login">Log in</a>`}
    </div>
  </header>`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Time played in words: "1 hour", "20 minutes", "2 hours 5 minutes". */
export function playedWords(milliseconds) {
  const hours = Math.floor(milliseconds / HOUR_MS);
  const minutes = Math.floor((milliseconds % HOUR_MS) / MINUTE_MS);
  if (!hours) return plural(minutes, "minute");
  return minutes ? `${plural(hours, "hour")} ${plural(minutes, "minute")}` : plural(hours, "hour");
}

/**
 * The reality check: at the interval the player chose (each hour unless he chose
 * another), the time played and the amount wagered, which he acknowledges before he
 * plays on. Its clock is the server's, so no reload or new tab starts it again.
 */
export function Reminder({ onLogout }) {
  const ref = useRef(null);
  const [text, setText] = useState(null);
  const due = plays.value && realityCheckDue.value !== null && now.value >= realityCheckDue.value;
  useEffect(() => {
    if (!due || text) return;
    refreshPlay().then(() => {
      setText(`You have played for ${playedWords(now.value - startedAt.value)} and wagered ${wagered.value ?? "(unavailable)"}. ` +
        `Your net result this session is ${signed(net.value ?? "0.00")}.`);
      ref.current?.showModal();
    });
  }, [due, text]);
  function acknowledge() {
    acknowledgeReminder()
      .catch(() => {})
      .finally(() => setText(null));
  }
  // Each way out of the check acknowledges it (the dialog's close).
  const close = () => ref.current?.close();
  return html`<dialog ref=${ref} id="reminder" aria-labelledby="reminder-title" onClose=${acknowledge} onCancel=${(e) => e.preventDefault()}>
    <h2 id="reminder-title">Reality check</h2>
    <p id="reminder-text">${text}</p>
    <nav class="row" aria-label="after the reality check">
      <a class="button" href="#/history" onClick=${close}>Your history</a>
      <a class="button" href="#/limits" onClick=${close}>Your limits</a>
      <button type="button" onClick=${() => { close(); onLogout?.(); }}>Log out</button>
    </nav>
    <form method="dialog"><button class="primary" autofocus>I understand</button></form>
  </dialog>`;
}

const TIME_LIMIT_SEEN = "croupier.time-limit-seen";

/**
 * The player's own session-time limit, said the moment it is reached (not at the next
 * bet the table refuses): no new bet this session; the hands in play may be finished.
 * Once a session, in each tab.
 */
export function TimeLimitReached() {
  const ref = useRef(null);
  const session = play.value?.started_at ?? null;
  const [seen, setSeen] = useState(() => sessionStorage.getItem(TIME_LIMIT_SEEN));
  const at = timeLimitAt.value;
  const due = plays.value && at !== null && session !== null && now.value >= at && seen !== session;
  useEffect(() => {
    if (due && !ref.current?.open) ref.current?.showModal();
  }, [due]);
  function acknowledge() {
    if (!session) return;
    sessionStorage.setItem(TIME_LIMIT_SEEN, session);
    setSeen(session);
  }
  const limit = at !== null && startedAt.value !== null ? playedWords(at - startedAt.value) : "";
  return html`<dialog ref=${ref} id="time-limit" aria-labelledby="time-limit-title" onClose=${acknowledge}>
    <h2 id="time-limit-title">Time limit reached</h2>
    <p id="time-limit-text">You have played for ${limit}, your own session-time limit. The table takes no new bet from
      you this session; you may finish the hands in play.</p>
    <nav class="row" aria-label="after the time limit">
      <a class="button" href="#/limits" onClick=${() => ref.current?.close()}>Your limits</a>
    </nav>
    <form method="dialog"><button class="primary" autofocus>I understand</button></form>
  </dialog>`;
}
