// RWS v5 1.26: players bet behind a seated player's box. The table's public state shows
// the bets behind a box as one total; each player's own come in his state's `mine`.
import { describe, expect, test } from "vitest";
import { boxStaked, spotTotal, withMine } from "../src/mine.js";

const hand = (stakes, behind = null) => ({ hand: 1, cards: ["TS", "7H"], stakes, behind });
const betting = {
  phase: "betting",
  bets: [{ player: "ann", box: 1, bet: "main", amount: "25.00" }],
  behind: [{ box: 1, bet: "main", players: 2, amount: "30.00" }],
  boxes: [{ box: 1, seated: "ann", hands: [] }, { box: 2, seated: null, hands: [] }],
  confirmed: ["ann"],
  mine: { bets: [{ player: "bob", box: 1, bet: "main", amount: "10.00" }], stakes: [], confirmed: true },
};

describe("a player's own part behind a box", () => {
  test("his bets behind join the seated players' in view.bets, marked his own, and his confirmation", () => {
    const view = withMine(betting, "bob");
    expect(view.bets.map((b) => [b.player, b.amount, b.mine ?? false])).toEqual([["ann", "25.00", false], ["bob", "10.00", true]]);
    expect(view.confirmed).toEqual(["ann", "bob"]);
  });

  test("a watcher's state, and one with nothing of the player's, stay as they came", () => {
    expect(withMine(betting, null)).toBe(betting);
    expect(withMine({ ...betting, mine: null }, "cy")).toEqual({ ...betting, mine: null });
  });

  test("his stake behind a hand joins the hand's stakes under his name", () => {
    const playing = {
      ...betting,
      phase: "decisions",
      bets: [],
      behind: [],
      confirmed: [],
      boxes: [{ box: 1, seated: "ann", hands: [hand({ ann: "25.00" }, { players: 2, amount: "30.00" })] }],
      mine: { bets: [], stakes: [{ box: 1, hand: 1, amount: "10.00" }], confirmed: false },
    };
    const view = withMine(playing, "bob");
    expect(view.boxes[0].hands[0].stakes).toEqual({ ann: "25.00", bob: "10.00" });
    expect(view.boxes[0].hands[0].behind).toEqual({ players: 2, amount: "30.00" });
    expect(view.confirmed).toEqual([]);
  });

  test("his settled bets behind a box join the seated players' results", () => {
    const ann = { player: "ann", box: 1, hand: 1, bet: "main", stake: "25.00", outcome: "win", net: "25.00" };
    const bob = { ...ann, player: "bob", stake: "10.00", net: "10.00" };
    const settled = { ...betting, phase: "settled", bets: [], behind: [], results: [ann], mine: { bets: [], stakes: [], confirmed: false, results: [bob] } };
    expect(withMine(settled, "bob").results).toEqual([ann, bob]);
    expect(withMine({ ...settled, mine: null }, "bob").results).toEqual([ann]);
  });

  test("a spot holds the seated player's bet and the total behind him, his own counted once", () => {
    const view = withMine(betting, "bob");
    expect(spotTotal(view, 1, "main").toFixed(2)).toBe("55.00");
    expect(spotTotal(view, 2, "main").toFixed(2)).toBe("0.00");
    expect(boxStaked(view, 1)).toBe(true);
    expect(boxStaked(view, 2)).toBe(false);
    expect(boxStaked({ ...betting, bets: [] }, 1)).toBe(true);
  });
});
