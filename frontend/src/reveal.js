// Keeping the moment of a round on one screen (a phone's above all).

/**
 * Scroll the page as little as it takes to show ``top`` and ``bottom`` (and what lies
 * between) below the session bar where it stays at the top; when both cannot fit,
 * ``top`` wins.
 */
export function reveal(top, bottom, covered = stickyBottom(), view = window) {
  if (!top || !bottom) return;
  const above = top.getBoundingClientRect().top - covered;
  const below = bottom.getBoundingClientRect().bottom - view.innerHeight;
  const by = below > 0 ? Math.min(below, above) : Math.min(above, 0);
  if (Math.abs(by) >= 1) view.scrollBy({ top: by, behavior: "instant" });
}

/** Where the session bar ends when it stays at the top of the screen (0 when it scrolls). */
function stickyBottom() {
  const bar = document.querySelector("header.bar");
  return bar && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
}
