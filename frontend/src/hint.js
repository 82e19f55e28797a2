// The basic strategy's choice for a hand, read off the table's chart.
import { chartRank } from "./cards.js";

/** The chart's code (H, S, Dh, P, Rh...) for a hand's cards against an up card, or null. */
export function strategyCode(chart, cards, total, soft, upCard) {
  if (!chart || !upCard || !cards.length) return null;
  const column = chart.up_cards.indexOf(chartRank(upCard));
  if (column < 0) return null;
  const ranks = cards.map(chartRank);
  let row = null;
  if (cards.length === 2 && ranks[0] === ranks[1]) {
    row = chart.rows.find((r) => r.section === "pair" && r.label.split(",")[0] === ranks[0]);
  }
  if (!row && soft) row = chart.rows.find((r) => r.section === "soft" && 11 + Number(r.label.split(",")[1]) === total);
  if (!row) {
    const hard = chart.rows.filter((r) => r.section === "hard").map((r) => ({ r, n: Number(r.label) }));
    const clamped = Math.min(Math.max(total, hard[0].n), hard[hard.length - 1].n);
    row = total >= 21 ? null : hard.find(({ n }) => n === clamped)?.r;
  }
  return row ? row.codes[column] : null;
}

const WORDS = {
  H: "hit", S: "stand", Dh: "double, otherwise hit", Ds: "double, otherwise stand",
  P: "split", Rh: "surrender, otherwise hit", Rs: "surrender, otherwise stand",
  Rp: "surrender, otherwise split",
};

/** The code in words, as the chart's legend writes it. */
export function codeWords(code) {
  return WORDS[code] ?? code;
}
