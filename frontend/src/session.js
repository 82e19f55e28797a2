// The player's session at the site: who he is, his balance, and since when he plays.
// Kept in sessionStorage so that a reload in the middle of a round changes nothing.
import { signal, computed } from "@preact/signals";
import { amount } from "./money.js";

const saved = JSON.parse(sessionStorage.getItem("croupier.session") ?? "null");

export const user = signal(saved?.user ?? null); // {name, role}
export const balance = signal(saved?.balance ?? null); // text
export const startBalance = signal(saved?.startBalance ?? null);
export const startedAt = signal(saved?.startedAt ?? null); // ms since 1970
export const remindersShown = signal(saved?.remindersShown ?? 0);

export const net = computed(() =>
  balance.value === null || startBalance.value === null
    ? null
    : amount(balance.value).minus(startBalance.value).toFixed(2),
);

function save() {
  sessionStorage.setItem(
    "croupier.session",
    JSON.stringify({
      user: user.value,
      balance: balance.value,
      startBalance: startBalance.value,
      startedAt: startedAt.value,
      remindersShown: remindersShown.value,
    }),
  );
}

/** A new session: its start is now, its starting balance the one given. */
export function begin(account) {
  user.value = { name: account.name, role: account.role };
  balance.value = account.balance;
  startBalance.value = account.balance;
  startedAt.value = Date.now();
  remindersShown.value = 0;
  save();
}

export function setBalance(text) {
  balance.value = text;
  save();
}

export function acknowledgeReminder() {
  remindersShown.value += 1;
  save();
}

export function end() {
  user.value = null;
  balance.value = null;
  startBalance.value = null;
  startedAt.value = null;
  sessionStorage.removeItem("croupier.session");
}
