// WCAG 2.2 2.1.1 / 2.4.3: the arrow keys within a group of controls (roving tabindex).
import { describe, expect, test } from "vitest";
import { controlOf, feltControls, homeSpot, nearestBox, sideSpotsShown, spotStep, stepIndex } from "../src/roving.js";

describe("a row of controls (the chips, the bet buttons)", () => {
  test("the arrows move one way or the other and wrap; Home and End go to the ends", () => {
    expect(stepIndex("ArrowRight", 0, 6)).toBe(1);
    expect(stepIndex("ArrowDown", 5, 6)).toBe(0);
    expect(stepIndex("ArrowLeft", 0, 6)).toBe(5);
    expect(stepIndex("ArrowUp", 3, 6)).toBe(2);
    expect(stepIndex("Home", 3, 6)).toBe(0);
    expect(stepIndex("End", 3, 6)).toBe(5);
  });

  test("other keys are not for moving", () => {
    expect(stepIndex("Enter", 0, 6)).toBe(null);
    expect(stepIndex(" ", 0, 6)).toBe(null);
    expect(stepIndex("Tab", 0, 6)).toBe(null);
  });
});

const rect = (x, y, width = 100, height = 200) => ({ x, y, width, height });
// A wide screen: the arc runs right to left from box 1 (first base, on the dealer's left).
const arc = [1, 2, 3].map((box) => ({ box, rect: rect(400 - (box - 1) * 150, box === 2 ? 60 : 0) }));
// A phone: four boxes a row, box 1 on the left.
const phone = [1, 2, 3, 4, 5, 6].map((box) => ({ box, rect: rect(((box - 1) % 4) * 100, box > 4 ? 300 : 0, 90) }));

describe("the boxes on the screen", () => {
  test("left and right follow the arc, whichever way its numbers run", () => {
    expect(nearestBox(arc, 1, "left")).toBe(2);
    expect(nearestBox(arc, 2, "right")).toBe(1);
    expect(nearestBox(arc, 1, "right")).toBe(null);
    expect(nearestBox(arc, 1, "down")).toBe(null);
  });

  test("a phone's rows: up and down go to the row above or below", () => {
    expect(nearestBox(phone, 1, "right")).toBe(2);
    expect(nearestBox(phone, 4, "right")).toBe(null);
    expect(nearestBox(phone, 2, "down")).toBe(6);
    expect(nearestBox(phone, 5, "up")).toBe(1);
  });
});

describe("the felt's controls", () => {
  // Box 1 free (Sit, then its spots), box 2 held: its spots only.
  const items = [
    { box: 1, kind: "sit" }, { box: 1, kind: "main" }, { box: 1, kind: "perfect_pairs" },
    { box: 2, kind: "main" }, { box: 2, kind: "perfect_pairs" },
  ];
  const boxes = arc.slice(0, 2);

  test("up and down within a box, left and right to the same spot of the next box", () => {
    expect(spotStep("ArrowDown", items, 1, boxes)).toBe(2);
    expect(spotStep("ArrowUp", items, 1, boxes)).toBe(0);
    expect(spotStep("ArrowLeft", items, 2, boxes)).toBe(4);
    expect(spotStep("ArrowRight", items, 4, boxes)).toBe(2);
    // box 2 has no Sit: its main spot
    expect(spotStep("ArrowLeft", items, 0, boxes)).toBe(3);
  });

  test("nowhere to go keeps the focus; Home and End; other keys are not for moving", () => {
    expect(spotStep("ArrowRight", items, 1, boxes)).toBe(1);
    expect(spotStep("ArrowUp", items, 0, boxes)).toBe(0);
    expect(spotStep("Home", items, 3, boxes)).toBe(0);
    expect(spotStep("End", items, 0, boxes)).toBe(4);
    expect(spotStep("Enter", items, 0, boxes)).toBe(null);
  });
});

describe("the felt's tab stop", () => {
  const view = (extra = {}) => ({ phase: "betting", boxes_count: 3, side_bets: ["perfect_pairs"], boxes: [], bets: [], seats: {}, ...extra });

  test("every free box's Sit and every spot, in the page's order, while bets are open", () => {
    const keys = feltControls(view({ seats: { 2: "bob" } }), "ann").map((c) => c.key);
    expect(keys).toEqual(["sit:1", "1:main", "1:perfect_pairs", "2:main", "2:perfect_pairs", "sit:3", "3:main", "3:perfect_pairs"]);
    expect(feltControls(view({ phase: "player-turns" }), "ann")).toEqual([]);
    expect(feltControls(view(), null)).toEqual([]);
    expect(controlOf("3:perfect_pairs")).toEqual({ box: 3, kind: "perfect_pairs" });
    expect(controlOf("sit:2")).toEqual({ box: 2, kind: "sit" });
  });

  test("the player's own box, else the box he bet on, else the first free box", () => {
    expect(homeSpot(view({ seats: { 1: "bob", 3: "ann" } }), "ann")).toBe("3:main");
    expect(homeSpot(view({ seats: { 1: "bob" }, bets: [{ player: "ann", box: 1, bet: "main", amount: "5.00" }] }), "ann")).toBe("1:main");
    expect(homeSpot(view({ seats: { 1: "bob" } }), "ann")).toBe("2:main");
    expect(homeSpot(view(), "ann")).toBe("1:main");
  });
});

describe("a phone's felt: side-bet spots on boxes with a bet", () => {
  const layout = (bets) => ({
    phase: "betting", boxes_count: 3, side_bets: ["player_pair"], bets, boxes: [], seats: {},
  });
  test("on a narrow screen a box without a bet offers its initial bet alone", () => {
    const keys = feltControls(layout([{ box: 2, bet: "main", player: "bob", amount: "25" }]), "ann", true)
      .map((c) => c.key);
    expect(keys).toEqual(["sit:1", "1:main", "2:main", "2:player_pair", "sit:3", "3:main"]);
  });
  test("a wide screen shows every spot", () => {
    expect(feltControls(layout([]), "ann", false).map((c) => c.key)).toContain("3:player_pair");
    expect(sideSpotsShown(layout([]), 1, false)).toBe(true);
    expect(sideSpotsShown(layout([]), 1, true)).toBe(false);
  });
});
