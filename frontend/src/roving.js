// Keyboard within a group of controls (WAI-ARIA's roving tabindex): one tab stop per
// group, arrow keys move within it, Tab moves on to the next group.
import { holderOf } from "./betting.js";
import { boxStaked } from "./mine.js";

/** The index an arrow key moves to in a row of `count` controls (wrapping), or null. */
export function stepIndex(key, index, count) {
  if (!count) return null;
  switch (key) {
    case "ArrowRight":
    case "ArrowDown":
      return (index + 1) % count;
    case "ArrowLeft":
    case "ArrowUp":
      return (index - 1 + count) % count;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return null;
  }
}

const centre = (r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const overlapsVertically = (a, b) => a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * The box next to `from` on the screen in a direction ("left", "right", "up", "down"),
 * from the boxes' rectangles ({box, rect}), or null. Left and right stay in the row
 * (the arc on a wide screen runs right to left from box 1; a phone wraps boxes in rows).
 */
export function nearestBox(boxes, from, direction) {
  const here = boxes.find((b) => b.box === from);
  if (!here) return null;
  const c = centre(here.rect);
  let best = null;
  let bestScore = Infinity;
  for (const other of boxes) {
    if (other.box === from) continue;
    const o = centre(other.rect);
    const dx = o.x - c.x;
    const dy = o.y - c.y;
    let score = null;
    if (direction === "left" && dx < -1 && overlapsVertically(here.rect, other.rect)) score = -dx;
    else if (direction === "right" && dx > 1 && overlapsVertically(here.rect, other.rect)) score = dx;
    else if (direction === "up" && other.rect.y + other.rect.height <= here.rect.y + 1) score = Math.abs(dx) * 4 - dy;
    else if (direction === "down" && other.rect.y >= here.rect.y + here.rect.height - 1) score = Math.abs(dx) * 4 + dy;
    if (score !== null && score < bestScore) {
      best = other.box;
      bestScore = score;
    }
  }
  return best;
}

const DIRECTIONS = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };

/**
 * Where an arrow key moves among the felt's controls: `items` in the page's order
 * ({box, kind}: "sit", "main" or a side bet), box by box, each top to bottom; `boxes`
 * their boxes' rectangles. Up and down move within a box (then to the box above or
 * below, on a phone); left and right to the next box on the screen, to the same kind of
 * spot where it has one. Returns the new index, `index` where there is nowhere to go, or
 * null for a key that is not for moving.
 */
export function spotStep(key, items, index, boxes) {
  if (key === "Home") return 0;
  if (key === "End") return items.length - 1;
  const direction = DIRECTIONS[key];
  const here = items[index];
  if (!direction || !here) return null;
  const inBox = items.map((item, at) => ({ ...item, at })).filter((item) => item.box === here.box);
  const position = inBox.findIndex((item) => item.at === index);
  if (direction === "up" && position > 0) return inBox[position - 1].at;
  if (direction === "down" && position < inBox.length - 1) return inBox[position + 1].at;
  const target = nearestBox(boxes, here.box, direction);
  if (target === null) return index;
  const there = items.map((item, at) => ({ ...item, at })).filter((item) => item.box === target);
  if (!there.length) return index;
  if (direction === "up") return there[there.length - 1].at;
  if (direction === "down") return there[0].at;
  return (there.find((item) => item.kind === here.kind) ?? there.find((item) => item.kind === "main") ?? there[0]).at;
}

/**
 * The felt's controls while bets are open, in the page's order: each box's Sit (a free
 * box), then its spots. `key` names one ("sit:3", "3:main", "3:perfect_pairs").
 */
export function feltControls(view, you, narrow = false) {
  if (view.phase !== "betting" || !you) return [];
  const controls = [];
  for (let box = 1; box <= view.boxes_count; box += 1) {
    if (!holderOf(view, box)) controls.push({ key: `sit:${box}`, box, kind: "sit" });
    const bets = sideSpotsShown(view, box, narrow) ? ["main", ...view.side_bets] : ["main"];
    for (const bet of bets) controls.push({ key: `${box}:${bet}`, box, kind: bet });
  }
  return controls;
}

/**
 * Whether a box shows its side-bet spots: always on a wide screen; on a narrow one
 * (a phone) once the box has a bet on it, so that seven boxes of four spots each fit
 * one screen. A side bet plays only with an initial bet on its box (RWS v5 5.15).
 */
export function sideSpotsShown(view, box, narrow) {
  return !narrow || boxStaked(view, box);
}

/** A felt control's key read back: {box, kind}. */
export function controlOf(key) {
  const [first, second] = key.split(/:(.*)/s);
  return first === "sit" ? { box: Number(second), kind: "sit" } : { box: Number(first), kind: second };
}

/**
 * The felt's tab stop when the player has not moved it: the main spot of his own box (one
 * he holds, else one he has a bet on), else of the first free box, else of box 1.
 */
export function homeSpot(view, you) {
  const boxes = Array.from({ length: view.boxes_count }, (_, k) => k + 1);
  const own = boxes.find((box) => holderOf(view, box) === you)
    ?? view.bets.find((b) => b.player === you)?.box
    ?? boxes.find((box) => !holderOf(view, box))
    ?? 1;
  return `${own}:main`;
}
