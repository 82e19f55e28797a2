// Chips placed on the layout before they are sent: each spot's pending amount, checked
// against the table's limits and the balance before a chip lands.
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

/** Why the pending bets may not be placed (under the minimum), or null. */
export function refuseBets(pending, placed, rules) {
  for (const total of totals(pending)) {
    if (total.bet !== "main") continue;
    const already = sum(placed.filter((p) => p.box === total.box && p.bet === "main").map((p) => p.amount));
    if (already.eq(0) && amount(total.value).lt(rules.minimum_bet)) {
      return `Box ${total.box}: the minimum bet is ${format(rules.minimum_bet)}.`;
    }
  }
  return null;
}

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
