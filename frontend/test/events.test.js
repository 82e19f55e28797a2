import { describe, expect, it } from "vitest";
import { joinEvents } from "../src/events.js";

describe("joinEvents", () => {
  it("adds events that follow on from those the page has", () => {
    expect(joinEvents(2, 2, ["c", "d"])).toEqual({ fresh: ["c", "d"], ask: null });
  });
  it("skips the events the page has already (a new owner announcing them again)", () => {
    expect(joinEvents(3, 1, ["b", "c", "d"])).toEqual({ fresh: ["d"], ask: null });
    expect(joinEvents(3, 0, ["a", "b"])).toEqual({ fresh: [], ask: null });
  });
  it("asks from where it left off when events were missed", () => {
    expect(joinEvents(2, 5, ["f"])).toEqual({ fresh: [], ask: 2 });
  });
  it("takes a message without a place as it comes", () => {
    expect(joinEvents(4, undefined, ["x"])).toEqual({ fresh: ["x"], ask: null });
  });
});

describe("the table's log", () => {
  it("writes a refusal with the rule it cites", async () => {
    const { describe: words } = await import("../src/components/EventLog.js");
    expect(words({ type: "refused", message: "Betting is closed.", clause: "RWS v5 5.1" }))
      .toBe("Refused: Betting is closed. (RWS v5 5.1)");
  });
});
