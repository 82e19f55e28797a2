import { describe, expect, test } from "vitest";
import { awayWords } from "../src/away.js";

const table = (overrides) => ({
  phase: "player-turns",
  boxes: [{ box: 1, seated: "ann", hands: [] }, { box: 2, seated: "bob", hands: [] }],
  turn: { box: 1, hand: 1, yours: false },
  deadline: { kind: "decision", at: 120, for: "1.1" },
  timeout_rule: "draw to 12 or more, then stand (RWS v5 5.3)",
  away: [{ player: "ann", since: 100, seat_until: null }],
  ...overrides,
});

describe("a player who left mid-round", () => {
  test("at his turn the others are told how long the table waits and what it then does", () => {
    expect(awayWords(table({}), 101.2, "bob")).toEqual([{
      player: "ann",
      text: "ann disconnected. The table waits 19s for his hand, then plays it for him: draw to 12 or more, then stand (RWS v5 5.3).",
    }]);
  });

  test("an offer to him waits for its clock", () => {
    const view = table({ deadline: { kind: "offer", at: 130, for: "ann" }, turn: null });
    expect(awayWords(view, 100, "bob")[0].text).toBe("ann disconnected. The table waits 30s for his answer, then declines the offer for him.");
  });

  test("a reserved box is kept for the grace period; otherwise the table does not wait", () => {
    const seated = table({ phase: "betting", turn: null, deadline: null, away: [{ player: "ann", since: 100, seat_until: 160 }] });
    expect(awayWords(seated, 115, "bob")[0].text).toBe("ann disconnected. His box is kept for him for 45s; the table does not wait for him.");
    const other = table({ turn: { box: 2, hand: 1, yours: true } });
    expect(awayWords(other, 101, "bob")[0].text).toMatch(/^ann disconnected\. The table does not wait for him/);
  });

  test("nobody is told of himself, and a table with nobody away says nothing", () => {
    expect(awayWords(table({}), 101, "ann")).toEqual([]);
    expect(awayWords(table({ away: [] }), 101, "bob")).toEqual([]);
    expect(awayWords(table({ away: undefined }), 101, null)).toEqual([]);
  });
});
