// Cards as the server writes them: rank then suit, "QH", "10S".

const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const RANKS = { A: "Ace", J: "Jack", Q: "Queen", K: "King" };

/** A card's parts: {rank, suit, symbol, red, label}; null for a face-down card. */
export function parseCard(text) {
  if (!text) return null;
  const rank = text.slice(0, -1) === "T" ? "10" : text.slice(0, -1);
  const [symbol, name] = SUITS[text.slice(-1)] ?? ["?", "unknown suit"];
  return {
    rank,
    suit: text.slice(-1),
    symbol,
    red: text.endsWith("H") || text.endsWith("D"),
    label: `${RANKS[rank] ?? rank} of ${name}`,
  };
}

/** The label of a rank on the strategy chart: 2-9, 10 for tens and faces, A. */
export function chartRank(text) {
  const rank = text.slice(0, -1);
  if (["10", "T", "J", "Q", "K"].includes(rank)) return "10";
  return rank;
}
