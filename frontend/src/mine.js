// A player's own part of the round behind another player's box comes apart from the
// table's public state, in its `mine` (the server sends every viewer the bets behind a
// box as one total, `behind`, so that a state's size does not grow with the crowd).
// Folded back in here, the page reads the player's bets and stakes where it reads the
// seated players': view.bets, hand.stakes, view.confirmed, view.results.
import { amount, sum } from "./money.js";

/** The state as its player reads it: his own bets (marked `mine`), stakes and results behind a box put in. */
export function withMine(state, you) {
  const mine = state.mine;
  if (!mine || !you) return state;
  const stakes = new Map(mine.stakes.map((s) => [`${s.box}:${s.hand}`, s.amount]));
  const boxes = !stakes.size ? state.boxes : state.boxes.map((box) => ({
    ...box,
    hands: box.hands.map((hand) => {
      const own = stakes.get(`${box.box}:${hand.hand}`);
      return own === undefined ? hand : { ...hand, stakes: { ...hand.stakes, [you]: own } };
    }),
  }));
  const confirmed = mine.confirmed && !state.confirmed.includes(you) ? [...state.confirmed, you] : state.confirmed;
  const results = mine.results?.length ? [...state.results, ...mine.results] : state.results;
  return { ...state, bets: [...state.bets, ...mine.bets.map((b) => ({ ...b, mine: true }))], boxes, confirmed, results };
}

/** Everything on a spot while bets are open: the seated player's bet and the total behind him. */
export function spotTotal(view, box, bet) {
  const shown = sum(view.bets.filter((b) => b.box === box && b.bet === bet && !b.mine).map((b) => b.amount));
  const behind = (view.behind ?? []).filter((t) => t.box === box && t.bet === bet).map((t) => t.amount);
  return shown.plus(sum(behind));
}

/** Whether anything stands on a box: a bet of its seated player's, or bets behind him. */
export function boxStaked(view, box) {
  return view.bets.some((b) => b.box === box) || (view.behind ?? []).some((t) => t.box === box && amount(t.amount).gt(0));
}
