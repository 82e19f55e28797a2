// One table's WebSocket (docs/protocol.md): the table as the server shows it to us,
// the events of its rounds, our actions and the server's answers, and what became of
// each round the player had money in (told even when he was away when it ended).
import { signal } from "@preact/signals";
import { api } from "./api.js";
import { format } from "./money.js";
import { roundSummary } from "./outcome.js";
import { resultWords, stateAnnouncements } from "./announce.js";
import { openRound, remember, road, setOpenRound } from "./road.js";
import { setBalance, user } from "./session.js";
import { play } from "./sound.js";
import { joinEvents } from "./events.js";
import { withMine } from "./mine.js";
import { sideBetName } from "./names.js";
import { heartbeat } from "./heartbeat.js";

// getRandomValues works on plain http too (randomUUID needs a secure context).
const randomKey = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");

const RECONNECT_MS = [500, 1000, 2000, 5000];
/** Events kept for the table's log. */
const LOG_LENGTH = 120;
/** Finished rounds whose events the log shows after a reload. */
const LOG_ROUNDS = 3;
const OVER = new Set(["settled", "void"]);
/** Messages the announcer keeps (the newest last). */
const ANNOUNCED = 3;
let announced = 0;
let noted = 0;

export class TableConnection {
  constructor(tableId) {
    this.tableId = tableId;
    /** The table as we may see it (the server's `state`), null until the first. */
    this.view = signal(null);
    /** Who the server knows us as at this table (null: watching). */
    this.you = signal(null);
    /** The latest events, newest first: {id, round, number, event}. */
    this.events = signal([]);
    /** A message for the player: {kind: "error"|"info", text, id}. */
    this.notice = signal(null);
    /** "connecting", "open", "reconnecting", "closed". */
    this.status = signal("connecting");
    /** What became of the player's last round: roundSummary's, with round and number. */
    this.summary = signal(null);
    /** The player's recent results at this table, oldest first. */
    this.road = signal(road(tableId));
    /** What the screen reader is told of the player's own game: [{id, text}], newest last. */
    this.announcements = signal([]);
    /** Server clock minus ours, in milliseconds (the deadlines are the server's). */
    this.clockOffset = 0;
    this.attempt = 0;
    this.closed = false;
    // The round at the table and its events (for the summary at its end).
    this.current = { round: null, number: null, events: [] };
    /** When the socket last heard from the server, and when we last pinged it. */
    this.heard = Date.now();
    this.pinged = 0;
    this.heartbeat = setInterval(() => this.listen(), 1000);
    this.open();
  }

  /** The heartbeat: a ping after a quiet spell, and a socket that hears nothing (or
   * whose handshake is never answered) taken for dead: a network gone silently, or a
   * server process that hangs, never closes it by itself. */
  listen() {
    const socket = this.socket;
    if (this.closed || !socket) return;
    const now = Date.now();
    const verdict = heartbeat(socket.readyState, now, this.heard, this.pinged);
    if (verdict === "dead") {
      socket.onopen = null;
      socket.onclose = null;
      socket.onmessage = null;
      socket.close();
      this.reconnect(socket, 1006);
    } else if (verdict === "ping") {
      this.pinged = now;
      socket.send(JSON.stringify({ type: "ping" }));
    }
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.socket = socket;
    this.heard = Date.now(); // its handshake's clock
    socket.onopen = () => {
      this.attempt = 0;
      this.heard = Date.now();
      if (this.status.value === "reconnecting") this.announce("Connected to the table again.");
      this.status.value = "open";
      // Signed in by the session cookie the browser sent with the socket.
      if (user.value) socket.send(JSON.stringify({ type: "auth" }));
    };
    socket.onmessage = (message) => {
      this.heard = Date.now();
      this.receive(JSON.parse(message.data));
    };
    socket.onclose = (close) => this.reconnect(socket, close.code);
  }

  /** The socket closed (or was taken for dead): open another, a little later each time. */
  reconnect(socket, code) {
    if (this.closed || this.socket !== socket) return;
    if (code === 4404) {
      this.status.value = "closed";
      this.announce("This table is closed.");
      return;
    }
    if (this.status.value !== "reconnecting") this.announce("Connection lost: reconnecting to the table…");
    this.status.value = "reconnecting";
    const wait = RECONNECT_MS[Math.min(this.attempt, RECONNECT_MS.length - 1)];
    this.attempt += 1;
    setTimeout(() => !this.closed && this.socket === socket && this.open(), wait);
  }

  receive(data) {
    switch (data.type) {
      case "welcome":
        this.you.value = data.you;
        this.show(data.state);
        if (data.you) this.catchUp(data.state);
        else this.loadLog();
        break;
      case "state":
        this.show(data.state);
        break;
      case "events":
        this.add(data.round, data.events, data.first);
        break;
      case "balance":
        setBalance(data.balance);
        break;
      case "bets_confirmed":
        this.tell(
          "info",
          `Bets accepted: ${format(data.total)}. The cards come when every player at the table has placed his bets, or when the clock runs out.`,
          "bets_confirmed",
        );
        this.announce(`Bets accepted: ${format(data.total)}`);
        break;
      case "error":
        this.tell("error", data.message, data.code);
        // The rule a refusal cites goes in the table's log, not in the player's words.
        if (data.clause) this.note({ type: "refused", message: data.message, clause: data.clause });
        break;
      default:
        break;
    }
  }

  /** A new state of the table: kept, and the player's round followed to its end. */
  show(received) {
    const state = withMine(received, this.you.value);
    if (state.now) this.clockOffset = state.now * 1000 - Date.now();
    const before = this.view.value;
    this.view.value = state;
    // "Bets accepted" belongs to its round: it goes when the round ends.
    if (["settled", "void"].includes(state.phase) && this.notice.value?.code === "bets_confirmed") this.notice.value = null;
    if (this.current.round !== state.round) this.current = { round: state.round, number: state.number, events: [] };
    const you = this.you.value;
    if (!you) return;
    if (state.turn?.yours && !(before?.turn?.yours && before.turn.box === state.turn.box && before.turn.hand === state.turn.hand)) play("turn");
    for (const text of stateAnnouncements(before, state, you)) this.announce(text);
    const stakes = state.bets.some((b) => b.player === you)
      || state.boxes.some((box) => box.hands.some((hand) => you in (hand.stakes ?? {})));
    const stored = openRound(this.tableId);
    if (OVER.has(state.phase)) {
      if (stored?.round === state.round || stakes) {
        // Back after a failure, the round's last events may not have come by the socket.
        const events = [...this.current.events];
        if (state.phase === "void" && !events.some((e) => e.type === "round_voided")) events.push({ type: "round_voided", reason: state.void_reason });
        this.finish(state.round, state.number, events, state.results);
      }
    } else if (stakes && stored?.round !== state.round) {
      setOpenRound(this.tableId, { round: state.round, number: state.number });
    }
  }

  /** The player's round ended: its summary, his recent results, a sound. */
  finish(round, number, events, results) {
    setOpenRound(this.tableId, null);
    if (this.summary.value?.round === round) return;
    const summary = roundSummary({ events, results, you: this.you.value, number });
    if (!summary) return;
    this.summary.value = { ...summary, round, number, id: `${round}-${Date.now()}` };
    this.announce(resultWords({ summary, results, events, you: this.you.value }));
    this.road.value = remember(this.tableId, { round, number, kind: summary.kind, net: summary.net });
    play(summary.kind === "blackjack" ? "blackjack" : summary.kind === "win" ? "win" : summary.kind === "lose" ? "lose" : "push");
  }

  /**
   * Signed in (again): the table's log, and what became of a round he had money in
   * that ended while he was away (a restart of the server, a time-out, a closed tab).
   */
  async catchUp(state) {
    await this.loadLog();
    const stored = openRound(this.tableId);
    if (!stored) return this.recallLast(withMine(state, this.you.value));
    if (stored.round === state.round && !OVER.has(state.phase)) return;
    if (stored.round === state.round) return; // the state shows its end: see show()
    try {
      const record = await api(`/api/rounds/${encodeURIComponent(stored.round)}`);
      const recall = record.recall;
      if (recall.status === "open") return;
      this.finish(stored.round, recall.number, recall.events, recall.bets);
      if (this.summary.value?.round === stored.round) this.tell("info", this.summary.value.text, "round_summary");
    } catch {
      setOpenRound(this.tableId, null);
    }
  }

  /**
   * A tab that never followed a round here (a new tab, another device): the player's
   * last round at this table, from the server, told once in words ("Your last round
   * here, round 12: You win +25.00") and added to his recent results.
   */
  async recallLast(state) {
    try {
      const rounds = await api("/api/rounds?limit=20");
      const last = rounds.find((r) => r.table === this.tableId);
      if (!last || last.status === "open" || last.round === state.round) return;
      if (road(this.tableId).some((entry) => entry.round === last.round)) return; // seen here
      const recall = (await api(`/api/rounds/${encodeURIComponent(last.round)}`)).recall;
      const summary = roundSummary({ events: recall.events, results: recall.bets, you: this.you.value, number: recall.number });
      if (!summary || this.closed) return;
      this.road.value = remember(this.tableId, { round: last.round, number: recall.number, kind: summary.kind, net: summary.net });
      if (this.notice.value) return; // something newer is being said
      this.tell("info", `Your last round here, round ${recall.number}: ${summary.text}`, "last_round");
    } catch {
      // Nothing to tell: the table itself is shown as it is.
    }
  }

  /** The table's recent events from the server (a reload keeps the log). */
  async loadLog() {
    let rounds;
    try {
      rounds = await api(`/api/tables/${encodeURIComponent(this.tableId)}/log?rounds=${LOG_ROUNDS}`);
    } catch {
      return;
    }
    const entries = [];
    for (const entry of rounds) {
      entry.events.forEach((event, index) => entries.push({ id: `${entry.round}:${index}`, round: entry.round, number: entry.number, event }));
      if (entry.round === this.current.round && entry.events.length > this.current.events.length) this.current.events = [...entry.events];
    }
    // Events that came over the socket meanwhile are in the log, or newer than it.
    const known = new Set(entries.map((e) => e.id));
    const newer = this.events.value.filter((e) => !known.has(e.id) && e.round === this.current.round && Number(e.id.split(":")[1]) >= this.current.events.length);
    this.events.value = [...newer, ...entries.reverse()].slice(0, LOG_LENGTH);
  }

  /** A line of the table's log that is not one of the round's events (a refusal). */
  note(event) {
    noted += 1;
    const entry = { id: `note:${noted}`, round: null, number: this.view.value?.number ?? null, event };
    this.events.value = [entry, ...this.events.value].slice(0, LOG_LENGTH);
  }

  add(round, arrived, first) {
    if (this.current.round !== round) this.current = { round, number: null, events: [] };
    const { fresh: events, ask } = joinEvents(this.current.events.length, first, arrived);
    if (ask !== null) {
      // Some were missed (a failover): the round's events from where the page left off.
      if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: "events_since", round, first: ask }));
      return;
    }
    if (!events.length) return;
    const start = this.current.events.length;
    this.current.events = [...this.current.events, ...events];
    const number = this.view.value?.round === round ? this.view.value.number : this.current.number;
    const fresh = events.map((event, index) => ({ id: `${round}:${start + index}`, round, number, event }));
    this.events.value = [...fresh.reverse(), ...this.events.value].slice(0, LOG_LENGTH);
    if (events.some((e) => e.type === "card_dealt")) play("card");
    // A bet of ours given back while the round goes on (a side bet with no bet on its
    // box, an excess over the box's maximum) is said in words; its money is back in
    // the balance the server sends with it.
    const you = this.you.value;
    const ended = events.some((e) => e.type === "round_settled" || e.type === "round_voided");
    const returned = ended ? [] : events.filter((e) => e.type === "bet_returned" && e.player === you);
    if (returned.length) {
      const words = returned.map((e) => `your ${e.bet === "main" ? "bet" : sideBetName(e.bet)} on box ${e.box} (${format(e.amount)}) came back: ${e.reason}`);
      const text = `${words.join("; ")}.`.replace(/^y/, "Y");
      this.tell("info", text, "bet_returned");
      this.announce(text);
    }
  }

  /** Say something to a screen reader: the announcer's new line. */
  announce(text) {
    if (!text) return;
    announced += 1;
    this.announcements.value = [...this.announcements.value.slice(1 - ANNOUNCED), { id: announced, text }];
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
    clearInterval(this.heartbeat);
    this.status.value = "closed";
    this.socket?.close();
  }
}
