// The table's history, the same for everyone at it (GET /api/tables/{id}/history): a
// bead for each finished round with the dealer's final hand, and his bust rate.

/**
 * A round's bead: its label, its kind (a class) and its words for a screen reader.
 * The dealer's total, "B" when he busted, "BJ" for his blackjack, "V" for a void round.
 */
export function dealerBead(round) {
  const dealer = round.dealer;
  const number = `Round ${round.number}`;
  if (round.status === "void" || !dealer) return { label: "V", kind: "void", words: `${number}: void` };
  const cards = dealer.cards.join(" ");
  if (dealer.blackjack) return { label: "BJ", kind: "blackjack", words: `${number}: dealer blackjack (${cards})` };
  if (dealer.busted) return { label: "B", kind: "bust", words: `${number}: dealer ${dealer.total} bust (${cards})` };
  if (!dealer.played_out) return { label: String(dealer.total), kind: "short", words: `${number}: dealer ${dealer.total}, not played out (${cards})` };
  return { label: String(dealer.total), kind: "stood", words: `${number}: dealer ${dealer.total} (${cards})` };
}

/** The dealer's bust rate in words, from the history's {rounds, busts, percent}. */
export function bustRateWords(dealer) {
  if (!dealer || !dealer.rounds) return "No dealer hand played out yet.";
  const hands = dealer.rounds === 1 ? "hand" : "hands";
  return `Dealer busted ${dealer.busts} of his last ${dealer.rounds} ${hands} played out (${dealer.percent}%).`;
}

