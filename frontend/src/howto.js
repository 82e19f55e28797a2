// "How to play": the table's game in a few steps, written from its rules (the preset's
// values, as GET /api/tables/{id}/rules gives them).
import { ratioWords, sideBetName } from "./names.js";

const HOLE_CARD = {
  none: "The dealer takes one card face up; his second comes after every player has played.",
  peek: "The dealer takes a second card face down; with an Ace or a ten up he checks it for blackjack before anyone plays.",
  "no-peek": "The dealer takes a second card face down, turned over after every player has played.",
};
const DOUBLE_ON = { "any-two": "on any first two cards", "9-11": "on a first two cards totalling 9, 10 or 11", "10-11": "on a first two cards totalling 10 or 11" };
const SURRENDER = {
  rws: "Surrender (half your bet back) is offered before any third card, unless the dealer shows an Ace.",
  late: "Surrender (half your bet back) is offered on your first two cards, once the dealer has checked for blackjack.",
  "casino-to-go": "Surrender (half your bet back) is offered on your first two cards.",
};

/** The steps of a round at a table with `rules`, offering `sideBets` (their keys). */
export function howToPlay(rules, sideBets = []) {
  const steps = [
    {
      title: "Bet",
      text: `Pick a chip and tap a betting spot: a bet is ${rules.minimum_bet} to ${rules.maximum_bet} a box.`
        + (sideBets.length ? ` Side bets: ${sideBets.map(sideBetName).join(", ")}.` : "")
        + " Place bets (Enter) deals at once when every player has placed his; otherwise the cards come when the betting clock runs out.",
    },
    { title: "The deal", text: `Each box gets two cards face up. ${HOLE_CARD[rules.hole_card] ?? ""}`.trim() },
    {
      title: "Your move",
      text: [
        "Get as close to 21 as you can without going over: Hit takes a card, Stand keeps your total.",
        `Double doubles your bet for one more card, ${DOUBLE_ON[rules.double_on] ?? "as the rules allow"}.`,
        `Split makes two hands of a pair (up to ${rules.max_split_hands} hands${rules.double_after_split ? ", doubling allowed after" : ""}).`,
        SURRENDER[rules.surrender] ?? "",
        "When your clock runs out, the table plays your hand by its rule.",
      ].filter(Boolean).join(" "),
    },
    { title: "The dealer", text: `The dealer draws to 16 and ${rules.dealer_hits_soft_17 ? "hits a soft 17, standing on hard 17 and more" : "stands on every 17"}. Over 21 is a bust.` },
    {
      title: "Payouts",
      text: `A win pays ${ratioWords(rules.win_pays)}, a blackjack (an Ace and a ten in your first two cards) ${ratioWords(rules.blackjack_pays)}`
        + (rules.insurance ? `, insurance against a dealer's Ace ${ratioWords(rules.insurance_pays)}` : "")
        + ". A tie is a push: your bet comes back.",
    },
  ];
  return steps;
}
