// What a table's socket's heartbeat does, once a second (docs/protocol.md: the server
// answers a ping at once).

/** Quiet this long, the page pings the server (which answers at once). */
export const PING_MS = 4000;
/** Nothing heard this long (a ping unanswered: a network gone silently), or no answer to
 * the opening handshake this long (a server process that hangs), the socket is taken
 * for dead, well before a decision's clock runs out: "Reconnecting…". */
export const DEAD_MS = 10000;

// WebSocket.readyState's values (the global is not there outside a browser).
const CONNECTING = 0;
const OPEN = 1;

/**
 * What to do with a socket in `state` (its readyState), now: "dead" (close it and open
 * another), "ping", or null. `heard` is when it last heard from the server (or, while
 * it connects, when it was opened); `pinged` when it last sent a ping.
 */
export function heartbeat(state, now, heard, pinged) {
  if (state === CONNECTING) return now - heard > DEAD_MS ? "dead" : null;
  if (state !== OPEN) return null;
  if (now - heard > DEAD_MS) return "dead";
  if (now - heard > PING_MS && now - pinged > PING_MS) return "ping";
  return null;
}
