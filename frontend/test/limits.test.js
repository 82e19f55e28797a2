import { describe, expect, test } from "vitest";
import { describeLimits } from "../src/components/Limits.js";

const base = {
  loss_limit: "100.00",
  session_minutes: null,
  reality_check_minutes: 60,
  pending_loss_limit: null,
  pending_session_minutes: null,
  break_until: null,
  excluded_until: null,
  cooling_off_hours: 24,
};

describe("the limits page says what the server decided", () => {
  test("the limits that hold now", () => {
    expect(describeLimits(base)).toBe(
      "Now: a loss limit of 100.00 and no time limit per session, a reality check every 60 minutes.",
    );
  });
  test("a raise cooling off, and one the player may confirm", () => {
    const waiting = { ...base, pending_loss_limit: { value: "200.00", confirmable_from: "2026-01-02T12:00:00+00:00", confirmable: false } };
    expect(describeLimits(waiting)).toMatch(/A loss limit of 200\.00 waits for the 24-hour cooling-off: confirm it from /);
    const due = { ...base, pending_session_minutes: { value: null, confirmable_from: "2026-01-02T12:00:00+00:00", confirmable: true } };
    expect(describeLimits(due)).toMatch(/You may now confirm no time limit\.$/);
  });
});
