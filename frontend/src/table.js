// One table's WebSocket (docs/protocol.md): the table as the server shows it to us,
// the events of its rounds, our actions and the server's answers.
import { signal } from "@preact/signals";
import { setBalance, user } from "./session.js";

// getRandomValues works on plain http too (randomUUID needs a secure context).
const randomKey = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");

const RECONNECT_MS = [500, 1000, 2000, 5000];

export class TableConnection {
  constructor(tableId) {
    this.tableId = tableId;
    /** The table as we may see it (the server's `state`), null until the first. */
    this.view = signal(null);
    /** Who the server knows us as at this table (null: watching). */
    this.you = signal(null);
    /** The latest events, newest first: {id, round, event}. */
    this.events = signal([]);
    /** A message for the player: {kind: "error"|"info", text, id}. */
    this.notice = signal(null);
    /** "connecting", "open", "reconnecting", "closed". */
    this.status = signal("connecting");
    /** Server clock minus ours, in milliseconds (the deadlines are the server's). */
    this.clockOffset = 0;
    this.attempt = 0;
    this.closed = false;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.status.value = "open";
      // Signed in by the session cookie the browser sent with the socket.
      if (user.value) socket.send(JSON.stringify({ type: "auth" }));
    };
    socket.onmessage = (message) => this.receive(JSON.parse(message.data));
    socket.onclose = (close) => {
      if (this.closed || this.socket !== socket) return;
      if (close.code === 4404) {
        this.status.value = "closed";
        return;
      }
      this.status.value = "reconnecting";
      const wait = RECONNECT_MS[Math.min(this.attempt, RECONNECT_MS.length - 1)];
      this.attempt += 1;
      setTimeout(() => !this.closed && this.open(), wait);
    };
  }

  receive(data) {
    switch (data.type) {
      case "welcome":
        this.you.value = data.you;
      // falls through: a welcome carries the table's state
      case "state":
        if (data.state.now) this.clockOffset = data.state.now * 1000 - Date.now();
        this.view.value = data.state;
        break;
      case "events": {
        const fresh = data.events.map((event, index) => ({ id: `${data.round}:${Date.now()}:${index}`, round: data.round, event }));
        this.events.value = [...fresh.reverse(), ...this.events.value].slice(0, 40);
        break;
      }
      case "balance":
        setBalance(data.balance);
        break;
      case "error":
        this.tell("error", data.message, data.code);
        break;
      default:
        break;
    }
  }

  /** Show the player a message (the latest replaces the one before). */
  tell(kind, text, code = null) {
    this.notice.value = { kind, text, code, id: `${Date.now()}-${Math.random()}` };
  }

  send(message) {
    if (this.socket?.readyState !== WebSocket.OPEN) {
      this.tell("error", "Not connected to the table: wait a moment and try again.");
      return false;
    }
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** An input to the round. Every action carries a key, so a retry never acts twice. */
  act(op, args = {}) {
    const key = `${op}-${randomKey()}`;
    return this.send({ type: "action", op, args, key });
  }

  /** The server's time now, in seconds since 1970. */
  now() {
    return (Date.now() + this.clockOffset) / 1000;
  }

  close() {
    this.closed = true;
    this.status.value = "closed";
    this.socket?.close();
  }
}
