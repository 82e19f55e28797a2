// The player's session at the site: who he is, his balance, and his session of play.
// The login is the server's cookie, so every tab shares it; the session of play (its
// start, net result, amount wagered and reality-check clock) is the server's, so a
// reload, a new tab or a new login shows the same session.
import { signal, computed } from "@preact/signals";
import { api, setSignedIn } from "./api.js";

export const user = signal(null); // {name, role}
export const balance = signal(null); // text
/** The server's session of play: {started_at, now, net, wagered, reality_check}. */
export const play = signal(null);

export const startedAt = computed(() => (play.value ? Date.parse(play.value.started_at) : null)); // ms since 1970
export const net = computed(() => play.value?.net ?? null);
export const wagered = computed(() => play.value?.wagered ?? null);
/** When the next reality check is due (ms since 1970). */
export const realityCheckDue = computed(() => (play.value ? Date.parse(play.value.reality_check.due_at) : null));
/** When the session reaches the player's own time limit (ms since 1970), or null. */
export const timeLimitAt = computed(() => (play.value?.time_limit_at ? Date.parse(play.value.time_limit_at) : null));
/** Whether the account plays (a dealer's account deals and holds no chips). */
export const plays = computed(() => user.value !== null && user.value.role !== "dealer");

/** Ask the server for the session of play again (after money moved). */
export async function refreshPlay() {
  if (!plays.value) return;
  try {
    play.value = await api("/api/play-session");
  } catch {
    // Shown as it was; the next change asks again.
  }
}

/** Signed in: who we are and what we hold, then the session of play. */
export function begin(account) {
  setSignedIn(true);
  user.value = { name: account.name, role: account.role };
  balance.value = account.balance;
  return refreshPlay();
}

export function setBalance(text) {
  balance.value = text;
  refreshPlay();
}

/** The player has read the reality check: the server starts its clock again. */
export async function acknowledgeReminder() {
  play.value = await api("/api/play-session/reality-check", { method: "POST" });
}

export function end() {
  setSignedIn(false);
  user.value = null;
  balance.value = null;
  play.value = null;
}

// Every tab of the site hears of a logout, a break or a self-exclusion in another (the
// login is one cookie for them all).
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("croupier.session") : null;

/** Tell the other tabs: {type: "logout"} or {type: "stopped", text}. */
export function tellOtherTabs(message) {
  channel?.postMessage(message);
}

/** What to do when another tab tells. */
export function hearOtherTabs(callback) {
  if (channel) channel.onmessage = (event) => callback(event.data);
}

const FAREWELL = "croupier.farewell";

/** Why the player was logged out by his own choice (a break, a self-exclusion): kept in
 * the tab so that a reload still shows it. */
export const farewell = signal(globalThis.sessionStorage?.getItem(FAREWELL) ?? null);

export function sayFarewell(text) {
  sessionStorage.setItem(FAREWELL, text);
  farewell.value = text;
}
