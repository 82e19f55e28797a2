// The screen's width class, as a signal: a phone's narrow layout differs in what it shows.
import { signal } from "@preact/signals";

/** The width at and under which the table takes its phone layout (as styles.css). */
export const NARROW = "(max-width: 700px)";

const query = typeof matchMedia === "function" ? matchMedia(NARROW) : null;
/** Whether the screen is narrow (a phone in portrait). */
export const narrow = signal(query?.matches ?? false);
query?.addEventListener("change", (event) => {
  narrow.value = event.matches;
});
