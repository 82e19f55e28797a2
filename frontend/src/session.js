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
