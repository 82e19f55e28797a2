// Chips on the layout: each is sent as it lands (the bets on the layout at "No more bets"
// are the bet), checked first against the table's limits and the balance.
import { amount, format, sum } from "./money.js";
import { sideBetName } from "./names.js";

/** Why a chip may not go on a spot (a message for the player), or null when it may. */
export function refuseChip({ box, bet, value, pending, placed, rules, balance }) {
  const onSpot = sum([
    ...pending.filter((p) => p.box === box && p.bet === bet).map((p) => p.value),
    ...placed.filter((p) => p.box === box && p.bet === bet).map((p) => p.amount),
  ]).plus(value);
  const main = bet === "main";
  const maximum = main ? rules.maximum_bet : rules.side_bet_maximum ?? rules.maximum_bet;
  if (onSpot.gt(maximum)) {
    const what = main ? "bet" : `${sideBetName(bet)} bet`;
    return `Box ${box}: a ${what} of ${format(onSpot)} is over the table's maximum of ${format(maximum)}.`;
  }
  const owed = sum(pending.map((p) => p.value)).plus(value);
  if (balance !== null && owed.gt(balance)) {
    return `Your balance of ${format(balance)} does not cover ${format(owed)} in bets.`;
  }
  return null;
}

/**
 * Why the player's bets on the layout may not be confirmed yet (a box of his under the
 * table minimum, RWS v5 5.2), or null. `bets` are the table's open bets.
 */
export function refuseConfirm(bets, you, rules) {
  const boxes = [...new Set(bets.filter((b) => b.player === you && b.bet === "main").map((b) => b.box))];
  for (const box of boxes) {
    const total = sum(bets.filter((b) => b.box === box && b.bet === "main").map((b) => b.amount));
    if (total.lt(rules.minimum_bet)) return `Box ${box}: the minimum bet is ${format(rules.minimum_bet)}.`;
  }
  return null;
}

/** The player's total on the layout. */
export const layoutTotal = (bets, you) => format(sum(bets.filter((b) => b.player === you).map((b) => b.amount)));

/** The pending chips as one amount per spot, in the order first placed. */
export function totals(pending) {
  const bySpot = new Map();
  for (const chip of pending) {
    const key = `${chip.box}:${chip.bet}`;
    const entry = bySpot.get(key) ?? { box: chip.box, bet: chip.bet, value: amount(0) };
    entry.value = entry.value.plus(chip.value);
    bySpot.set(key, entry);
  }
  return [...bySpot.values()].map((entry) => ({ ...entry, value: format(entry.value) }));
}

/** Who holds a box: its seated player, else the first initial bet on it seats him. */
export function holderOf(view, number) {
  const placed = view.boxes.find((b) => b.box === number);
  const main = view.bets.find((b) => b.box === number && b.bet === "main");
  return placed?.seated ?? view.seats[String(number)] ?? main?.player ?? null;
}
