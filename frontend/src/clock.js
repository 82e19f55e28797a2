// One clock for the page: every timer on screen reads it, and it ticks once a second.
import { signal } from "@preact/signals";

export const now = signal(Date.now());
setInterval(() => {
  now.value = Date.now();
}, 1000);

/** Elapsed time as h:mm:ss (or m:ss under an hour). */
export function elapsed(milliseconds) {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** How long a table dealt by hand has waited for its next card, as m:ss: since the
 * table last changed (the state's `now`, the server's), read against the server's time
 * `serverNow` (seconds); null when no card is due. */
export function cardWait(view, serverNow) {
  if (!view?.awaiting_card || typeof view.now !== "number") return null;
  return elapsed((serverNow - view.now) * 1000);
}
