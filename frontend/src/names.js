// What the server's keys read as on the page.

export const sideBetName = (key) =>
  ({ player_pair: "Player Pair", under_13: "Under 13", over_13: "Over 13", perfect_pairs: "Perfect Pairs", "21+3": "21+3" })[key] ?? key;

/** A pay ratio as the server writes it ("3/2", "25") in words: "3 to 2", "25 to 1". */
export const ratioWords = (text) => (text.includes("/") ? text.replace("/", " to ") : `${text} to 1`);

/** An RTP (a share of one) as a percentage with two decimals. */
export const percent = (share) => `${(100 * Number(share)).toFixed(2)}%`;

const OUTCOME_WORDS = {
  win: "Win", lose: "Lose", "stand-off": "Push", blackjack: "Blackjack",
  surrender: "Surrendered", returned: "Returned", void: "Void", bust: "Bust", lost: "Lose",
  "dealer-blackjack": "Dealer blackjack", "even-money": "Even money", nothing: "No win",
};
export const outcomeWords = (outcome) => OUTCOME_WORDS[outcome] ?? outcome.replaceAll("-", " ");

/** A decision of the recall in words: "bet 25.00 on box 1", "insurance on box 1", "split". */
export function opWords(decision) {
  const { op, args } = decision;
  const box = args.box ? ` on box ${args.box}` : "";
  if (op === "bet") {
    const what = !args.bet || args.bet === "main" ? "bet" : `${sideBetName(args.bet)} bet`;
    return `${what} ${args.amount}${box}`;
  }
  const rest = Object.entries(args).filter(([key]) => key !== "box").map(([key, value]) => `${key} ${value}`);
  return `${op.replaceAll("_", " ")}${box}${rest.length ? ` (${rest.join(", ")})` : ""}`;
}
