import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { elapsed, now } from "../clock.js";
import { amount, format, signed, sum } from "../money.js";
import { acknowledgeReminder, balance, net, remindersShown, startedAt, user } from "../session.js";

const HOUR_MS = 3600_000;

/** Balance, the session's net result and its time, always in view. */
export function SessionBar({ onLogout }) {
  const who = user.value;
  return html`<header class="bar">
    <a href="#/" class="brand">croupier</a>
    <nav aria-label="pages">
      <a href="#/">Lobby</a>
      ${who && html`<a href="#/history">History</a>`}
    </nav>
    <div class="session" aria-label="your session">
      ${who ? html`
        <span>${who.name}</span>
        <span>Balance <strong id="balance">${balance.value ?? "–"}</strong></span>
        <span>Session <strong id="net" class=${net.value && amount(net.value).lt(0) ? "down" : net.value && amount(net.value).gt(0) ? "up" : ""}>${signed(net.value ?? "0.00")}</strong></span>
        <span>Time <strong id="clock" role="timer">${elapsed(now.value - (startedAt.value ?? now.value))}</strong></span>
        <button type="button" id="logout" onClick=${onLogout}>Log out</button>` : html`<a class="button" href="#/login">Log in</a>`}
    </div>
  </header>`;
}

/** The money a player staked since ``since`` (stakes less refunds), from the wallet. */
async function wageredSince(since) {
  const moves = await api("/api/wallet/history?limit=500");
  const recent = moves.filter((m) => Date.parse(m.at) >= since);
  return sum(recent.filter((m) => m.kind === "stake" || m.kind === "refund").map((m) => m.amount)).neg();
}

/**
 * The reality check: each full hour of the session, the time played and the amount
 * wagered, which the player acknowledges before he plays on.
 */
export function Reminder() {
  const ref = useRef(null);
  const [text, setText] = useState(null);
  const due = user.value && startedAt.value !== null && now.value - startedAt.value >= (remindersShown.value + 1) * HOUR_MS;
  useEffect(() => {
    if (!due || text) return;
    const hours = remindersShown.value + 1;
    wageredSince(startedAt.value)
      .catch(() => null)
      .then((wagered) => {
        setText(`You have played for ${hours} hour${hours > 1 ? "s" : ""} and wagered ${wagered === null ? "(unavailable)" : format(wagered)}. ` +
          `Your net result this session is ${signed(net.value ?? "0.00")}.`);
        ref.current?.showModal();
      });
  }, [due, text]);
  function acknowledge() {
    acknowledgeReminder();
    setText(null);
  }
  return html`<dialog ref=${ref} id="reminder" aria-labelledby="reminder-title" onClose=${acknowledge} onCancel=${(e) => e.preventDefault()}>
    <h2 id="reminder-title">Reality check</h2>
    <p id="reminder-text">${text}</p>
    <form method="dialog"><button class="primary" autofocus>I understand</button></form>
  </dialog>`;
}
