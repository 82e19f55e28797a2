import { describe, expect, test } from "vitest";
import { DEAD_MS, PING_MS, heartbeat } from "../src/heartbeat.js";

const CONNECTING = 0, OPEN = 1, CLOSED = 3;

describe("a table socket's heartbeat", () => {
  test("an open socket is pinged after a quiet spell, once a spell", () => {
    expect(heartbeat(OPEN, 1000, 0, 0)).toBe(null);
    expect(heartbeat(OPEN, PING_MS + 1, 0, 0)).toBe("ping");
    expect(heartbeat(OPEN, PING_MS + 2, 0, PING_MS + 1)).toBe(null);
  });

  test("an open socket that hears nothing is taken for dead", () => {
    expect(heartbeat(OPEN, DEAD_MS + 1, 0, DEAD_MS)).toBe("dead");
  });

  test("a handshake never answered (a server process that hangs) is given up and tried again", () => {
    expect(heartbeat(CONNECTING, DEAD_MS, 0, 0)).toBe(null);
    expect(heartbeat(CONNECTING, DEAD_MS + 1, 0, 0)).toBe("dead");
  });

  test("a closed socket is left to its close handler", () => {
    expect(heartbeat(CLOSED, DEAD_MS * 5, 0, 0)).toBe(null);
  });
});
