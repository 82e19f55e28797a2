// croupier in the browser: lobby, table, history, dealer console.
// Plain ES module; talks to the server's HTTP API and the table WebSocket
// (docs/protocol.md). Money stays text end to end: amounts are added in cents
// as integers, never as floating point.

const app = document.getElementById("app");
const state = {
  token: sessionStorage.getItem("token"),
  name: sessionStorage.getItem("name"),
  startBalance: null,
  balance: null,
  startedAt: Number(sessionStorage.getItem("startedAt") || Date.now()),
  wagered: 0, // cents
  socket: null,
  table: null,
  view: null,
  pending: [], // chips placed locally: {spot: "1:main", cents}
  lastBets: [],
  chip: null,
  clockOffset: 0,
  hint: false,
  strategy: null,
};
sessionStorage.setItem("startedAt", String(state.startedAt));

// -- money as integer cents ----------------------------------------------------------------
const toCents = (text) => {
  const [whole, fraction = ""] = String(text).split(".");
  const sign = whole.startsWith("-") ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 100 + Number((fraction + "00").slice(0, 2)));
};
const money = (cents) => {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
};

// -- HTTP ----------------------------------------------------------------------------------
async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401 && state.token) {
    logout();
    throw new Error("Your session has ended: log in again.");
  }
  const body = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new Error(body?.message || body?.detail?.[0]?.msg || response.statusText);
  return body;
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else if (value !== false && value != null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child != null) node.append(child instanceof Node ? child : document.createTextNode(child));
  }
  return node;
}

function show(...nodes) {
  app.replaceChildren(...nodes);
}

// -- session bar: balance, net, time; the hourly reminder ----------------------------------
async function refreshBalance() {
  if (!state.token) return;
  const me = await api("/api/me");
  setBalance(me.balance);
}

function setBalance(text) {
  const cents = toCents(text);
  if (state.startBalance === null) state.startBalance = cents;
  state.balance = cents;
  document.getElementById("balance").textContent = money(cents);
  document.getElementById("net").textContent = money(cents - state.startBalance);
}

let nextReminder = state.startedAt + 3600_000;
setInterval(() => {
  const seconds = Math.floor((Date.now() - state.startedAt) / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  document.getElementById("clock").textContent = h
    ? `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`
    : `${m}:${String(s).padStart(2, "0")}`;
  if (Date.now() >= nextReminder && state.token) {
    nextReminder += 3600_000;
    document.getElementById("reminder-text").textContent =
      `You have played for ${h} hour(s) ${m} minute(s) and wagered ${money(state.wagered)}. ` +
      `Your net result this session is ${document.getElementById("net").textContent}.`;
    document.getElementById("reminder").showModal();
  }
  tickCountdown();
}, 1000);

document.getElementById("logout").addEventListener("click", logout);

function logout() {
  state.token = null;
  state.name = null;
  sessionStorage.removeItem("token");
  sessionStorage.removeItem("name");
  document.getElementById("logout").hidden = true;
  location.hash = "#/";
  route();
}

// -- log in / sign up ----------------------------------------------------------------------
function loginView(message = "") {
  const name = el("input", { id: "name", autocomplete: "username", required: true, minlength: 3 });
  const password = el("input", {
    id: "password", type: "password", autocomplete: "current-password", required: true,
  });
  const error = el("p", { class: "error", role: "alert" }, message);
  async function submit(event, register) {
    event.preventDefault();
    try {
      const credentials = JSON.stringify({ name: name.value, password: password.value });
      if (register) await api("/api/accounts", { method: "POST", body: credentials });
      const session = await api("/api/sessions", { method: "POST", body: credentials });
      state.token = session.token;
      state.name = name.value;
      sessionStorage.setItem("token", state.token);
      sessionStorage.setItem("name", state.name);
      document.getElementById("logout").hidden = false;
      await refreshBalance();
      route();
    } catch (problem) {
      error.textContent = problem.message;
    }
  }
  show(
    el("form", { class: "login", onsubmit: (e) => submit(e, false) },
      el("h1", {}, "Take a seat"),
      el("label", { for: "name" }, "Name"), name,
      el("label", { for: "password" }, "Password"), password,
      el("div", { class: "row" },
        el("button", { type: "submit" }, "Log in"),
        el("button", { type: "button", onclick: (e) => submit(e, true) }, "Sign up")),
      error),
  );
  name.focus();
}

// -- the lobby -----------------------------------------------------------------------------
async function lobbyView() {
  const tables = await api("/api/tables");
  const cards = tables.map((table) => {
    const free = table.boxes - Object.keys(table.seats).length;
    const rtp = el("span", { class: "rtp" }, "RTP …");
    api(`/api/tables/${table.id}/rtp`)
      .then((r) => { rtp.textContent = `RTP ${(100 * r.main).toFixed(2)}%`; })
      .catch(() => { rtp.textContent = ""; });
    return el("li", { class: "table-card" },
      el("h2", {}, table.title),
      el("p", {}, `${table.rules} v${table.rules_version} · ${table.dealt === "rng" ? "RNG shoe" : "dealer's shoe"}`),
      el("p", {}, `Bets ${table.minimum_bet} – ${table.maximum_bet}`),
      el("p", {}, table.side_bets.length ? `Side bets: ${table.side_bets.join(", ")}` : "No side bets"),
      el("p", {}, `${free} of ${table.boxes} boxes free · ${table.players} at the table · `, rtp),
      el("a", { class: "button", href: `#/table/${table.id}` }, "Play"));
  });
  show(el("h1", {}, "Tables"), el("ul", { class: "lobby" }, cards));
}

// -- the table -----------------------------------------------------------------------------
const ACTION_KEYS = { hit: "h", stand: "s", double: "d", split: "p", surrender: "r" };
const OFFER_KEYS = { insurance: "i", "even-money": "e", "follow-split": "f", "follow-double": "f", surrender: "r" };

function tableView(id, dealer = false) {
  closeSocket();
  state.table = id;
  state.view = null;
  state.pending = [];
  const felt = el("section", { class: "felt", "aria-label": "table" });
  const controls = el("section", { class: "controls" });
  const log = el("ol", { class: "log", "aria-live": "polite" });
  show(el("div", { class: "table-page" }, felt, controls, log));
  api(`/api/tables/${id}/strategy`).then((chart) => { state.strategy = chart; render(); }).catch(() => {});
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/tables/${id}`;
  const socket = new WebSocket(url);
  state.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify({ type: "auth", token: state.token }));
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "welcome" || data.type === "state") {
      state.view = data.state;
      state.clockOffset = data.state.now ? data.state.now * 1000 - Date.now() : 0;
      render();
    } else if (data.type === "balance") {
      setBalance(data.balance);
    } else if (data.type === "events") {
      for (const event of data.events) {
        if (event.type === "bet_placed" && event.player === state.name) state.wagered += toCents(event.amount);
        log.prepend(el("li", {}, describe(event)));
      }
      while (log.children.length > 30) log.lastChild.remove();
    } else if (data.type === "error") {
      log.prepend(el("li", { class: "error" }, data.message));
    }
  };
  socket.onclose = () => { if (state.socket === socket) log.prepend(el("li", { class: "error" }, "Disconnected.")); };

  function render() {
    const view = state.view;
    if (!view) return;
    felt.replaceChildren(dealerArea(view), boxesArea(view));
    controls.replaceChildren(...(dealer ? dealerControls(view) : playerControls(view)));
  }
  state.render = render;
}

function closeSocket() {
  if (state.socket) {
    const socket = state.socket;
    state.socket = null;
    socket.close();
  }
}

function send(op, args = {}) {
  const key = `${op}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  state.socket?.send(JSON.stringify({ type: "action", op, args, key }));
}

function card(text, index = 0) {
  if (!text) return el("span", { class: "card back", style: `--i:${index}`, "aria-label": "face-down card" });
  const suit = text.slice(-1);
  const rank = text.slice(0, -1);
  const symbol = { S: "♠", H: "♥", D: "♦", C: "♣" }[suit] || "?";
  const red = suit === "H" || suit === "D";
  return el("span", { class: `card${red ? " red" : ""}`, style: `--i:${index}`, "aria-label": `${rank} of ${suit}` },
    rank, el("small", {}, symbol));
}

function dealerArea(view) {
  const cards = view.dealer.cards.map((c, i) => card(c, i));
  for (let k = 0; k < view.dealer.hidden_cards; k += 1) cards.push(card(null, cards.length));
  return el("div", { class: "dealer" },
    el("div", { class: "cards" }, cards),
    el("div", { class: "total" }, view.dealer.cards.length ? `Dealer ${view.dealer.total}` : "Dealer"),
    countdown(view));
}

let countdownNode = null;
function countdown(view) {
  countdownNode = el("div", { class: "countdown", role: "timer" });
  tickCountdown();
  return countdownNode;
}

function tickCountdown() {
  const view = state.view;
  if (!countdownNode || !view) return;
  if (!view.deadline) { countdownNode.textContent = view.phase === "betting" ? "Place your bets" : ""; return; }
  const left = Math.max(0, Math.ceil((view.deadline.at * 1000 - (Date.now() + state.clockOffset)) / 1000));
  const words = {
    betting: `No more bets in ${left}s`,
    decision: `Decide in ${left}s, or the hand draws to 12 and stands`,
    offer: `Answer in ${left}s`,
    next_round: "Next round…",
  };
  countdownNode.textContent = words[view.deadline.kind] || "";
}

function boxesArea(view) {
  const boxes = [];
  const count = view.boxes_count || 7;
  const inPlay = Object.fromEntries(view.boxes.map((b) => [b.box, b]));
  const sides = view.side_bets || [];
  for (let number = 1; number <= count; number += 1) {
    const placed = inPlay[number];
    const seat = view.seats[String(number)];
    const angle = count > 1 ? -50 + (100 * (number - 1)) / (count - 1) : 0;
    const hands = (placed?.hands || []).map((hand) => el("div", {
      class: `hand${view.turn && view.turn.box === number && view.turn.hand === hand.hand ? " active" : ""}`,
    },
      el("div", { class: "cards" }, hand.cards.map((c, i) => card(c, i))),
      el("div", { class: "total" }, `${hand.blackjack ? "Blackjack" : hand.total}${hand.soft && !hand.blackjack ? " soft" : ""}`),
      el("div", { class: "stakes" }, Object.entries(hand.stakes).map(([p, a]) => `${p} ${a}`).join(" · "))));
    const bets = view.bets.filter((b) => b.box === number);
    const pending = state.pending.filter((p) => p.spot.startsWith(`${number}:`));
    const spot = (bet, label) => {
      const mine = bets.filter((b) => b.bet === bet).reduce((sum, b) => sum + toCents(b.amount), 0);
      const local = pending.filter((p) => p.spot === `${number}:${bet}`).reduce((s, p) => s + p.cents, 0);
      return el("button", {
        class: `spot ${bet === "main" ? "main" : "side"}${local ? " pending" : ""}`,
        "data-spot": `${number}:${bet}`,
        disabled: view.phase !== "betting",
        "aria-label": `${label} on box ${number}`,
        onclick: () => placeChip(`${number}:${bet}`),
      }, label, mine ? el("strong", {}, money(mine)) : null, local ? el("em", {}, `+${money(local)}`) : null);
    };
    boxes.push(el("div", { class: "box", style: `--angle:${angle}deg` },
      el("div", { class: "seat" }, placed?.seated || seat || `Box ${number}`,
        !seat && !placed && view.phase === "betting"
          ? el("button", { class: "small", onclick: () => state.socket.send(JSON.stringify({ type: "take_box", box: number })) }, "Sit")
          : null),
      hands,
      view.phase === "betting" ? el("div", { class: "spots" }, spot("main", "Bet"), sides.map((s) => spot(s, s.replaceAll("_", " ")))) : null));
  }
  return el("div", { class: "boxes" }, boxes);
}

function chipValues(view) {
  const minimum = toCents(view.minimum_bet);
  return [1, 5, 25, 100].map((m) => minimum * m).filter((c) => c <= toCents(view.maximum_bet));
}

function placeChip(spot) {
  if (!state.chip) return;
  state.pending.push({ spot, cents: state.chip });
  state.render();
}

function confirmBets() {
  const totals = {};
  for (const p of state.pending) totals[p.spot] = (totals[p.spot] || 0) + p.cents;
  state.lastBets = Object.entries(totals).map(([spot, cents]) => ({ spot, cents }));
  for (const { spot, cents } of state.lastBets) {
    const [box, bet] = spot.split(":");
    send("bet", { box: Number(box), amount: money(cents), bet });
  }
  state.pending = [];
  state.render();
}

function playerControls(view) {
  const nodes = [];
  if (view.phase === "betting") {
    nodes.push(el("div", { class: "chips", role: "group", "aria-label": "chips" },
      chipValues(view).map((cents) => el("button", {
        class: `chip${state.chip === cents ? " selected" : ""}`,
        "aria-pressed": state.chip === cents ? "true" : "false",
        onclick: () => { state.chip = cents; state.render(); },
      }, money(cents)))));
    nodes.push(el("div", { class: "row" },
      el("button", { onclick: () => { state.pending.pop(); state.render(); } }, "Undo"),
      el("button", { onclick: () => { state.pending = []; state.render(); } }, "Clear"),
      el("button", { onclick: () => { state.pending = state.lastBets.map((b) => ({ ...b })); state.render(); } }, "Rebet"),
      el("button", { onclick: () => { state.pending = state.lastBets.map((b) => ({ ...b, cents: 2 * b.cents })); state.render(); } }, "Double bet"),
      el("button", { class: "primary", disabled: !state.pending.length, onclick: confirmBets }, "Place bets")));
  }
  for (const offer of view.offers.filter((o) => o.player === state.name)) {
    const accept = {
      insurance: ["insurance", "Insurance"], "even-money": ["even_money", "Even money"],
      surrender: ["surrender", "Surrender"], "follow-split": ["follow", "Follow split"],
      "follow-double": ["follow", "Follow double"],
    }[offer.kind];
    nodes.push(el("div", { class: "row offer" },
      el("span", {}, `Box ${offer.box}: ${offer.kind.replace("-", " ")}?`),
      el("button", { "data-key": OFFER_KEYS[offer.kind], onclick: () => send(accept[0], { box: offer.box }) }, `${accept[1]} (${OFFER_KEYS[offer.kind].toUpperCase()})`),
      el("button", { "data-key": "n", onclick: () => send("decline", { box: offer.box, kind: offer.kind }) }, "No thanks (N)")));
  }
  if (view.legal_actions.length) {
    nodes.push(el("div", { class: "row actions" }, view.legal_actions.map((action) => el("button", {
      class: "primary", "data-key": ACTION_KEYS[action], onclick: () => send(action),
    }, `${action[0].toUpperCase()}${action.slice(1)} (${ACTION_KEYS[action].toUpperCase()})`))));
    if (state.hint) nodes.push(el("p", { class: "hint" }, hintFor(view)));
  }
  nodes.push(el("div", { class: "row" },
    el("button", { onclick: () => openRules(state.table) }, "Rules"),
    el("button", { onclick: () => openStrategy() }, "Strategy chart"),
    el("label", {}, el("input", { type: "checkbox", checked: state.hint, onchange: (e) => { state.hint = e.target.checked; state.render(); } }), " Show hint")));
  return nodes;
}

function dealerControls(view) {
  const input = el("input", { id: "card", placeholder: "card, e.g. QH", autocomplete: "off", size: 6 });
  const reason = el("input", { id: "reason", placeholder: "reason", size: 24 });
  return [
    el("form", { class: "row", onsubmit: (e) => { e.preventDefault(); send("card", { card: input.value.trim() }); input.value = ""; } },
      el("label", { for: "card" }, view.awaiting_card ? "Next card" : "Card"), input,
      el("button", { type: "submit", disabled: !view.awaiting_card }, "Enter")),
    el("form", { class: "row", onsubmit: (e) => { e.preventDefault(); send("void", { reason: reason.value || "dealing error" }); } },
      reason, el("button", { type: "submit" }, "Void round")),
    el("div", { class: "row" },
      el("button", { onclick: () => send("interrupt") }, "Technical interruption"),
      el("button", { onclick: () => send("cut_card") }, "Cut card out")),
  ];
}

function hintFor(view) {
  const chart = state.strategy;
  const turn = view.turn;
  if (!chart || !turn || !view.dealer.cards.length) return "";
  const box = view.boxes.find((b) => b.box === turn.box);
  const hand = box?.hands.find((h) => h.hand === turn.hand);
  if (!hand) return "";
  const up = view.dealer.cards[0].slice(0, -1);
  const upLabel = up === "A" ? "A" : ["J", "Q", "K", "10"].includes(up) ? "10" : up;
  const column = chart.up_cards.indexOf(upLabel);
  const ranks = hand.cards.map((c) => c.slice(0, -1)).map((r) => (["J", "Q", "K"].includes(r) ? "10" : r));
  let row = null;
  if (hand.cards.length === 2 && ranks[0] === ranks[1]) row = chart.rows.find((r) => r.section === "pair" && r.label.split(",")[0] === ranks[0]);
  if (!row) row = chart.rows.find((r) => r.section === (hand.soft ? "soft" : "hard") && Number(r.label.replace(/\D/g, "")) === hand.total);
  return row && column >= 0 ? `Basic strategy: ${row.codes[column]}` : "";
}

async function openRules(id) {
  const preset = await api(`/api/tables/${id}/rules`);
  const rows = Object.entries(preset.citations).map(([field, c]) => el("tr", {},
    el("th", {}, field.replaceAll("_", " ")), el("td", {}, JSON.stringify(c.value)), el("td", {}, c.clause), el("td", {}, c.note)));
  openPanel(el("div", {}, el("h2", {}, preset.title), el("p", {}, `Rulebook ${preset.rulebook}, version ${preset.version}`),
    el("table", { class: "rules" }, el("thead", {}, el("tr", {}, el("th", {}, "Rule"), el("th", {}, "Value"), el("th", {}, "Clause"), el("th", {}, "Note"))), el("tbody", {}, rows))));
}

function openStrategy() {
  if (!state.strategy) return;
  const holder = el("div", { class: "chart" });
  holder.innerHTML = state.strategy.svg; // our own server's SVG
  openPanel(el("div", {}, el("h2", {}, state.strategy.title), holder));
}

function openPanel(node) {
  document.getElementById("panel-body").replaceChildren(node);
  document.getElementById("panel").showModal();
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
  const button = app.querySelector(`.controls button[data-key="${event.key.toLowerCase()}"]`);
  if (button && !button.disabled) { event.preventDefault(); button.click(); }
});

function describe(event) {
  const who = event.player ? `${event.player} ` : "";
  switch (event.type) {
    case "card_dealt": return event.box == null ? `Dealer: ${event.card ?? "face-down card"}` : `Box ${event.box}: ${event.card}`;
    case "bet_settled": return `${who}${event.bet} on box ${event.box}: ${event.outcome} ${event.net}`;
    case "round_voided": return `Round void: ${event.reason}`;
    default: return `${who}${event.type.replaceAll("_", " ")}`;
  }
}

// -- history and recall --------------------------------------------------------------------
async function historyView() {
  const rounds = await api("/api/rounds?limit=20");
  show(el("h1", {}, "Your rounds"), el("table", { class: "history" },
    el("thead", {}, el("tr", {}, ["Round", "Table", "Status", "Before", "After", ""].map((h) => el("th", {}, h)))),
    el("tbody", {}, rounds.map((r) => el("tr", {},
      el("td", {}, `#${r.number}`), el("td", {}, r.table), el("td", {}, r.status),
      el("td", {}, r.balance_before), el("td", {}, r.balance_after ?? "–"),
      el("td", {}, el("a", { href: `#/round/${r.round}` }, "Recall")))))));
}

async function recallView(id) {
  const record = await api(`/api/rounds/${id}`);
  const recall = record.recall;
  show(el("h1", {}, `Round #${recall.number} at ${recall.table}`),
    el("p", {}, `${record.rules} version ${record.rules_version} · ${recall.status}${recall.void_reason ? `: ${recall.void_reason}` : ""}`),
    el("p", {}, `Balance before ${recall.balance_before ?? "–"}, after ${recall.balance_after ?? "–"}`),
    el("h2", {}, "Cards in order"), el("p", { class: "cards" }, recall.cards_dealt.map((c, i) => card(c, i))),
    el("h2", {}, "Your decisions"), el("ol", {}, recall.decisions.map((d) => el("li", {}, `${d.at}: ${d.op} ${JSON.stringify(d.args)}`))),
    el("h2", {}, "Your bets"), el("ol", {}, recall.bets.map((b) => el("li", {}, `${b.bet} box ${b.box}: stake ${b.stake}, ${b.outcome}, net ${b.net}`))),
    el("details", {}, el("summary", {}, "Replay file (croupier round)"), el("pre", {}, JSON.stringify(record, null, 2))));
}

// -- routing -------------------------------------------------------------------------------
async function route() {
  const [, page, id] = location.hash.split("/");
  if (page !== "table" && page !== "dealer") closeSocket();
  try {
    if (!state.token) return loginView();
    document.getElementById("logout").hidden = false;
    if (state.balance === null) await refreshBalance();
    if (page === "table") return tableView(id);
    if (page === "dealer") {
      const me = await api("/api/me");
      if (me.role !== "dealer" && me.role !== "admin") {
        return show(el("p", { class: "error", role: "alert" }, "The dealer console is for dealer accounts."));
      }
      return tableView(id, true);
    }
    if (page === "history") return await historyView();
    if (page === "round") return await recallView(id);
    return await lobbyView();
  } catch (problem) {
    show(el("p", { class: "error", role: "alert" }, problem.message));
  }
}

window.addEventListener("hashchange", route);
route();
