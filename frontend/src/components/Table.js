// A table: the felt, the chip tray, the offers and actions of the player's turn, the
// table's messages and log, and the panels of its rules and strategy.
import { html } from "htm/preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useSignalEffect } from "@preact/signals";
import { api } from "../api.js";
import { refuseChip, refuseConfirm, totals } from "../betting.js";
import { codeWords, strategyCode } from "../hint.js";
import { amount, chipColour, chipValues, format, sum } from "../money.js";
import { balance, user } from "../session.js";
import { TableConnection } from "../table.js";
import { ratioWords } from "../names.js";
import { Felt } from "./Felt.js";
import { EventLog } from "./EventLog.js";
import { HowToPlayPanel, RulesPanel, StrategyPanel } from "./Panels.js";
import { DealerConsole } from "./DealerConsole.js";
import { RecentResults } from "./Outcome.js";
import { TableHistory } from "./TableHistory.js";
import { play, soundOn, toggleSound } from "../sound.js";
import { stepIndex } from "../roving.js";
import { reveal } from "../reveal.js";
import { awayWords } from "../away.js";
import { now } from "../clock.js";

const ACTIONS = {
  hit: ["h", "Hit"], stand: ["s", "Stand"], double: ["d", "Double"], split: ["p", "Split"], surrender: ["r", "Surrender"],
};
const OFFERS = {
  insurance: ["i", "insurance", "Insurance", "Insure for half your bet?"],
  // Insuring a blackjack against an Ace is even money in effect: the bet is paid 1 to 1
  // whatever the dealer has (the rules that allow it: live and online tables).
  "insured-blackjack": ["e", "insurance", "Even money", "Even money: your blackjack paid 1 to 1 now, whatever the dealer has (insured for half your bet)?"],
  "even-money": ["e", "even_money", "Even money", "Take even money for your blackjack?"],
  surrender: ["r", "surrender", "Surrender", "Surrender for half your bet back?"],
  "follow-split": ["f", "follow", "Follow split", "The box's player split: follow with a matching bet?"],
  "follow-double": ["f", "follow", "Follow double", "The box's player doubled: follow with a matching bet?"],
};
const ACTION_KEYS = new Set(Object.values(ACTIONS).map(([key]) => key));

export function TablePage({ id, dealer = false }) {
  const table = useMemo(() => new TableConnection(id), [id]);
  useEffect(() => () => table.close(), [table]);
  const [rules, setRules] = useState(null);
  const [strategy, setStrategy] = useState(null);
  const [panel, setPanel] = useState(null);
  const [chip, setChip] = useState(null);
  // The chips the player put down this round, in order (for Undo): {round, box, bet, value}.
  const [chips, setChips] = useState([]);
  const lastKey = `croupier.last-bets.${id}`;
  const [lastBets, setLastBets] = useState(() => JSON.parse(sessionStorage.getItem(lastKey) ?? "[]"));
  const [hint, setHint] = useState(false);
  // Actions chosen while a box's surrender offer is open: each played when its hand's
  // turn comes ({round, box, action}).
  const [queued, setQueued] = useState([]);
  const betsThisRound = useRef({ round: null, bets: [] });
  // The bet buttons' tab stop (Place bets until the player moves it with the arrows).
  const [betStop, setBetStop] = useState("enter");
  const pageRef = useRef(null);
  const controlsRef = useRef(null);
  // The control that last had the focus on this page (null once the focus left it).
  const lastFocus = useRef(null);
  const view = table.view.value;
  const you = table.you.value;

  useEffect(() => {
    api(`/api/tables/${encodeURIComponent(id)}/rules`).then((data) => setRules(data.rules)).catch((error) => table.tell("error", error.message));
  }, [id]);

  // The bets on the layout at "No more bets" are the round's bets: remembered for Rebet.
  useSignalEffect(() => {
    const current = table.view.value;
    const me = table.you.value;
    if (!current || !me) return;
    const seen = betsThisRound.current;
    if (current.phase === "betting") {
      const mine = current.bets.filter((b) => b.player === me).map((b) => ({ box: b.box, bet: b.bet, value: b.amount }));
      betsThisRound.current = { round: current.round, bets: mine };
    } else if (seen.round === current.round && seen.bets.length) {
      const bets = totals(seen.bets);
      setLastBets(bets);
      sessionStorage.setItem(lastKey, JSON.stringify(bets));
      betsThisRound.current = { round: null, bets: [] };
    }
  });
  // A chosen action is played once the hand's turn has come and the action is legal.
  useSignalEffect(() => {
    const current = table.view.value;
    if (!queued.length || !current) return;
    const live = queued.filter((q) => q.round === current.round && ["offers", "player-turns"].includes(current.phase));
    const due = live.find((q) => current.turn?.yours && current.turn.box === q.box && current.turn.hand === 1 && current.legal_actions.includes(q.action));
    if (due) table.act(due.action);
    if (due || live.length !== queued.length) setQueued(live.filter((q) => q !== due));
  });
  // The first chip of a table is picked for the player: its smallest.
  useEffect(() => {
    if (view && chip === null) setChip(chipValues(view.minimum_bet, view.maximum_bet)[0]);
  }, [view, chip]);

  const placed = view ? view.bets.filter((b) => b.player === you) : [];
  const limits = rules ?? (view && { minimum_bet: view.minimum_bet, maximum_bet: view.maximum_bet });
  const myChips = view ? chips.filter((c) => c.round === view.round) : [];

  /** A chip lands on a spot: it is sent at once, so it is a bet even if never confirmed. */
  function onSpot(box, bet) {
    if (!you) return table.tell("error", "Log in to bet.");
    if (!chip) return table.tell("error", "Pick a chip first.");
    const refusal = refuseChip({ box, bet, value: chip, pending: [], placed, rules: limits, balance: balance.value });
    if (refusal) return table.tell("error", refusal);
    if (table.act("bet", { box, amount: chip, bet })) {
      setChips([...myChips, { round: view.round, box, bet, value: chip }]);
      play("chip");
    }
  }

  function undo() {
    const last = myChips[myChips.length - 1];
    if (!last) return;
    // What stays on the spot: the player's earlier chips there (the table's view may not
    // show the last chip yet).
    const rest = sum(myChips.slice(0, -1).filter((c) => c.box === last.box && c.bet === last.bet).map((c) => c.value));
    table.act("withdraw", { box: last.box, bet: last.bet });
    if (rest.gt(0)) table.act("bet", { box: last.box, bet: last.bet, amount: format(rest) });
    setChips(myChips.slice(0, -1));
  }

  function clear() {
    for (const bet of placed) table.act("withdraw", { box: bet.box, bet: bet.bet });
    setChips([]);
  }

  /** Enter: the bets on the layout are confirmed ("Bets accepted: 35.00"); once every
   * player at the table (with a bet, or seated) has confirmed, the round is dealt without
   * waiting for the clock. */
  function placeBets() {
    if (!placed.length && !myChips.length) return table.tell("error", "Put chips on a betting spot first.");
    // Chips still on their way are ahead of the confirmation on the same socket: the
    // server takes them first, and checks the minimum itself.
    const inFlight = sum(myChips.map((c) => c.value)).gt(sum(placed.map((b) => b.amount)));
    const refusal = inFlight ? null : refuseConfirm(view.bets, you, limits);
    if (refusal) return table.tell("error", refusal);
    table.send({ type: "confirm_bets" });
  }

  function repeat(times) {
    if (!lastBets.length) return table.tell("error", "No bets yet to repeat.");
    const wanted = lastBets.map((bet) => ({ box: bet.box, bet: bet.bet, value: format(amount(bet.value).times(times)) }));
    for (let k = 0; k < wanted.length; k += 1) {
      const refusal = refuseChip({ ...wanted[k], pending: wanted.slice(0, k), placed, rules: limits, balance: balance.value });
      if (refusal) return table.tell("error", refusal);
    }
    const landed = [];
    for (const bet of wanted) {
      if (table.act("bet", { box: bet.box, amount: bet.value, bet: bet.bet })) landed.push({ round: view.round, ...bet });
    }
    setChips([...myChips, ...landed]);
  }

  async function loadStrategy() {
    if (strategy) return strategy;
    const chart = await api(`/api/tables/${encodeURIComponent(id)}/strategy`);
    setStrategy(chart);
    return chart;
  }
  function openChart() {
    setPanel("strategy");
    loadStrategy().catch((error) => table.tell("error", error.message));
  }

  /** An action of the player's turn, or, while his surrender offer is open, his answer to
   * it: surrender, or play on with the action chosen (RWS v5 3.16). */
  function decide(action, surrender) {
    if (!surrender) return table.act(action);
    if (action === "surrender") return table.act("surrender", { box: surrender.box });
    table.act("decline", { box: surrender.box, kind: "surrender" });
    setQueued([...queued, { round: view.round, box: surrender.box, action }]);
    table.announce(`${ACTIONS[action][1]} chosen: played when box ${surrender.box}'s turn comes.`);
  }

  // Keyboard: the letter on each button; Enter places the bets wherever the focus is on
  // the layout (a chip, a spot); an action letter out of turn says why nothing happens.
  useEffect(() => {
    function onKey(event) {
      // A key held down repeats: what it was pressed for came before (bets placed), and
      // its repeats never play what appeared since (a hit on the hand just dealt).
      if (event.repeat) {
        if (event.target instanceof Element && event.target.closest(".offer, .actions")) event.preventDefault();
        return;
      }
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
      if (event.ctrlKey || event.metaKey || event.altKey || document.querySelector("dialog[open]")) return;
      const key = event.key.toLowerCase();
      const target = event.target instanceof Element ? event.target : null;
      if (key === "enter") {
        // Buttons and links keep their own Enter; on a chip, a betting spot or nothing in
        // particular, Enter places bets.
        if (target?.closest("button, a, summary") && !target.closest(".chip, .spot")) return;
        const place = document.querySelector('.controls button[data-key="enter"]');
        if (place) {
          event.preventDefault();
          place.click();
        }
        return;
      }
      const button = document.querySelector(`.controls button[data-key="${key}"]:not(:disabled)`);
      if (button) {
        event.preventDefault();
        button.click();
      } else if (ACTION_KEYS.has(key) && table.view.value && !dealer) {
        const current = table.view.value;
        const action = Object.entries(ACTIONS).find(([, [k]]) => k === key)[0];
        if (!current.turn || !current.turn.yours) {
          table.tell("error", current.turn ? `It is not your turn: box ${current.turn.box} is playing.` : "There is no hand to play now.");
        } else if (current.offers.some((o) => o.player === you)) {
          table.tell("error", "Answer the offer first.");
        } else {
          table.tell("error", `You cannot ${action} now: you may ${current.legal_actions.join(", ")}.`);
        }
      }
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [table, you, dealer]);

  // Where the focus is on this page; when the control that had it goes (Place bets once
  // the cards are dealt, a decision once it is made), it moves to the next thing to do,
  // never to the page's body (WCAG 2.2 2.4.3).
  useEffect(() => {
    function onFocusIn(event) {
      lastFocus.current = pageRef.current?.contains(event.target) ? event.target : null;
    }
    function onFocusOut() {
      setTimeout(rescueFocus, 0);
    }
    document.addEventListener("focusin", onFocusIn);
    document.addEventListener("focusout", onFocusOut);
    return () => {
      document.removeEventListener("focusin", onFocusIn);
      document.removeEventListener("focusout", onFocusOut);
    };
  }, []);
  useEffect(rescueFocus);

  function rescueFocus() {
    const lost = lastFocus.current;
    if (!lost || (lost.isConnected && !lost.disabled)) return;
    const active = document.activeElement;
    if ((active && active !== document.body && active !== lost) || document.querySelector("dialog[open]")) return;
    const controls = controlsRef.current;
    const felt = lost.matches(".spot, .sit") ? pageRef.current?.querySelector('.felt [data-roving][tabindex="0"]') : null;
    const target = decisionArea() ?? felt ?? controls?.querySelector('button[data-key="enter"]') ?? controls;
    lastFocus.current = null;
    // The page keeps its place (see the moments below): the focus never scrolls it.
    target?.focus({ preventScroll: true });
  }

  /** The offer or the move the player is asked for: a group that takes the focus, not
   * one of its buttons, so that a key meant for what came before (the Enter that placed
   * the bets, pressed twice) never plays a decision. */
  function decisionArea() {
    return controlsRef.current?.querySelector(".offer, .actions") ?? null;
  }

  // The player's turn, or an offer to him: the focus goes to its group; Tab reaches
  // its buttons, or their letters play them.
  const myDecisions = view && you ? view.offers.filter((o) => o.player === you).map((o) => `${o.kind}:${o.box}:${o.hand ?? 1}`) : [];
  const decisionKey = view && you && (view.legal_actions.length || myDecisions.length)
    ? `${view.round}|${view.turn?.yours ? `${view.turn.box}:${view.turn.hand}` : ""}|${myDecisions.join(",")}`
    : null;
  useEffect(() => {
    if (!decisionKey || document.querySelector("dialog[open]")) return;
    const active = document.activeElement;
    if (active?.closest?.(".offer, .actions") || active?.matches?.("input:not([type=checkbox]), textarea, select")) return;
    decisionArea()?.focus({ preventScroll: true });
  }, [decisionKey]);

  // The moments of a round, each with what the player needs on one screen: at betting
  // his spots, the chips and Place bets; at his decision the dealer's cards and the
  // buttons; at the result the dealer's final hand and the banner.  When one comes, the
  // page scrolls (only as far as it must) to show it; in between it is left where the
  // player put it.
  const moment = !view ? null
    : decisionKey ? `decide|${decisionKey}`
    : view.phase === "betting" && you ? `bet|${view.round}`
    : ["settled", "void"].includes(view.phase) ? `result|${view.round}`
    : null;
  useEffect(() => {
    if (!moment || document.querySelector("dialog[open]")) return;
    const page = pageRef.current;
    const felt = page?.querySelector(".felt");
    const bottom = moment.startsWith("decide") ? decisionArea()
      : moment.startsWith("bet") ? controlsRef.current?.querySelector('button[data-key="enter"]')
      : page?.querySelector(".felt .banner") ?? felt;
    const top = moment.startsWith("bet") ? felt : page?.querySelector(".dealer") ?? felt;
    reveal(top, bottom);
  }, [moment]);

  if (!view) {
    return html`<div class="table-page" ref=${pageRef}>
      <p class="loading" role="status">${table.status.value === "closed" ? "This table is closed." : "Connecting to the table…"}</p>
      <${Announcer} key="announcer" table=${table} />
    </div>`;
  }

  const print = rules
    ? `Blackjack pays ${ratioWords(rules.blackjack_pays)} · Dealer ${rules.dealer_hits_soft_17 ? "hits soft 17" : "stands on all 17s"}${rules.insurance ? ` · Insurance pays ${ratioWords(rules.insurance_pays)}` : ""}`
    : "";
  const myOffers = view.offers.filter((o) => o.player === you);
  // One box's surrender offer at a time (a player on two boxes answers each in turn).
  const surrender = myOffers.find((o) => o.kind === "surrender" && o.then && !queued.some((q) => q.box === o.box));
  const otherOffers = myOffers.filter((o) => o !== surrender);
  const actions = view.legal_actions.length ? view.legal_actions : surrender ? [...surrender.then, "surrender"] : [];
  const code = hint && view.turn?.yours ? hintCode(view, strategy) : null;

  const chipList = chipValues(view.minimum_bet, view.maximum_bet);
  const chipStop = chipList.includes(chip) ? chip : chipList[0];
  /** The chips are a radio group: the arrow keys move to the next chip and pick it. */
  function onChipKey(event) {
    const next = stepIndex(event.key, chipList.indexOf(chipStop), chipList.length);
    if (next === null || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    setChip(chipList[next]);
    event.currentTarget.querySelector(`[data-value="${chipList[next]}"]`)?.focus();
  }
  /** The bet buttons are a toolbar: the arrow keys move between those that may be used. */
  function onBetKey(event) {
    const buttons = [...event.currentTarget.querySelectorAll("button:not(:disabled)")];
    const next = stepIndex(event.key, buttons.indexOf(event.target), buttons.length);
    if (next === null || buttons.indexOf(event.target) < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    buttons[next].focus();
  }
  // Place bets is the tab stop again when the button moved to has been disabled since.
  // Nothing is sent while the socket is down or taken for dead ("Reconnecting…").
  const offline = table.status.value !== "open";
  const usable = offline
    ? { u: false, c: false, b: false, x: false, enter: false }
    : { u: myChips.length > 0, c: placed.length > 0, b: lastBets.length > 0, x: lastBets.length > 0, enter: true };
  const betTab = usable[betStop] ? betStop : "enter";
  const betButton = (key, props, label) => html`<button type="button" data-key=${key} tabIndex=${betTab === key ? 0 : -1}
    disabled=${!usable[key]} onFocus=${() => setBetStop(key)} ...${props}>${label}</button>`;

  return html`<div class="table-page" ref=${pageRef}>
    <header class="table-head">
      <h1>${view.table} <small>${view.rules} v${view.rules_version} · round #${view.number} · bets ${view.minimum_bet}–${view.maximum_bet}</small></h1>
      <span class=${`link ${table.status.value}`}>${{ open: "", connecting: "Connecting…", reconnecting: "Reconnecting…", closed: "Disconnected" }[table.status.value]}</span>
    </header>
    <${Felt} table=${table} view=${view} onSpot=${onSpot} chipSelected=${chip} print=${print} />
    <${Away} table=${table} view=${view} you=${you} />
    <${Notice} table=${table} />
    <${Announcer} key="announcer" table=${table} />
    <section class="controls" aria-label="your controls" tabindex="-1" ref=${controlsRef}>
      ${dealer ? html`<${DealerConsole} table=${table} view=${view} />` : html`
        ${!you && html`<p>You are watching. <a href="#/login">Log in</a> to play.</p>`}
        ${you && view.phase === "betting" && html`<div class="betting">
          <div class="chips" role="radiogroup" aria-label="chip value" onKeyDown=${onChipKey}>
            ${chipList.map((value) => html`<button type="button" role="radio"
              class=${`chip ${chipColour(value)}${chip === value ? " selected" : ""}`} aria-checked=${chip === value ? "true" : "false"}
              tabIndex=${value === chipStop ? 0 : -1} data-value=${value} onClick=${() => setChip(value)}>${value.replace(/\.00$/, "")}</button>`)}
          </div>
          <div class="row" role="toolbar" aria-label="your bets" onKeyDown=${onBetKey}>
            ${betButton("u", { onClick: undo }, "Undo (U)")}
            ${betButton("c", { onClick: clear }, "Clear (C)")}
            ${betButton("b", { onClick: () => repeat(1) }, "Rebet (B)")}
            ${betButton("x", { onClick: () => repeat(2) }, "Double bet (X)")}
            ${betButton("enter", { class: "primary", onClick: placeBets }, "Place bets (Enter)")}
          </div>
        </div>`}
        ${otherOffers.map((offer) => {
          const kind = offer.kind === "insurance" && offer.blackjack ? "insured-blackjack" : offer.kind;
          const [key, op, label, question] = OFFERS[kind];
          const args = kind === "insured-blackjack" ? { box: offer.box, amount: offer.amount } : { box: offer.box };
          return html`<div class="row offer" role="group" tabIndex="-1" aria-label=${`${label} offer, box ${offer.box}`}>
            <span>Box ${offer.box}${offer.hand > 1 ? `, hand ${offer.hand}` : ""}: ${question}${offer.amount && kind !== "insured-blackjack" ? ` (${offer.amount})` : ""}</span>
            <button type="button" class="primary" data-key=${key} disabled=${offline} onClick=${() => table.act(op, args)}>${label} (${key.toUpperCase()})</button>
            <button type="button" data-key="n" disabled=${offline} onClick=${() => table.act("decline", { box: offer.box, kind: offer.kind })}>No thanks (N)</button>
          </div>`;
        })}
        ${actions.length > 0 && html`<div class="row actions" role="group" tabIndex="-1" aria-label="your move">
          ${actions.map((action) => html`<button type="button" class=${action === "surrender" ? "" : "primary"} data-key=${ACTIONS[action][0]}
            disabled=${offline} onClick=${() => decide(action, view.legal_actions.length ? null : surrender)}>${ACTIONS[action][1]} (${ACTIONS[action][0].toUpperCase()})</button>`)}
          ${surrender && !view.legal_actions.length && html`<span class="fine">Surrender: half your bet back (${view.rules}).</span>`}
        </div>`}
        ${queued.map((q) => html`<p class="fine" key=${q.box}>${ACTIONS[q.action][1]} chosen: played when box ${q.box}'s turn comes.</p>`)}
        ${code && html`<p class="hint" role="note">Basic strategy: ${codeWords(code)}</p>`}
        <div class="row tools">
          <button type="button" onClick=${() => setPanel("how-to-play")}>How to play</button>
          <button type="button" onClick=${() => setPanel("rules")}>Rules</button>
          <button type="button" onClick=${openChart}>Strategy chart</button>
          <label><input type="checkbox" checked=${hint} onChange=${(event) => {
            setHint(event.currentTarget.checked);
            if (event.currentTarget.checked) loadStrategy().catch((error) => table.tell("error", error.message));
          }} /> Show hint</label>
          <button type="button" class="sound" aria-pressed=${soundOn.value ? "true" : "false"} onClick=${toggleSound}>${soundOn.value ? "Sound on" : "Sound off"}</button>
        </div>
        ${you && html`<${RecentResults} table=${table} />`}`}
    </section>
    <${TableHistory} id=${id} ended=${["settled", "void"].includes(view.phase) ? view.round : null} />
    <${EventLog} table=${table} />
    ${panel === "rules" && html`<${RulesPanel} id=${id} onClose=${() => setPanel(null)} />`}
    ${panel === "how-to-play" && html`<${HowToPlayPanel} rules=${rules} sideBets=${view.side_bets} onClose=${() => setPanel(null)} />`}
    ${panel === "strategy" && html`<${StrategyPanel} strategy=${strategy} onClose=${() => setPanel(null)} />`}
  </div>`;
}

function hintCode(view, strategy) {
  const box = view.boxes.find((b) => b.box === view.turn.box);
  const hand = box?.hands.find((h) => h.hand === view.turn.hand);
  if (!hand || !view.dealer.cards.length) return null;
  return strategyCode(strategy, hand.cards, hand.total, hand.soft, view.dealer.cards[0]);
}

/** The players who left mid-round, and how long the table waits for each (not a live
 * region: the announcer says only the player's own game). */
function Away({ table, view, you }) {
  void now.value; // the seconds left, each second
  const words = awayWords(view, table.now(), you);
  if (!words.length) return null;
  return html`<div class="away-notice">${words.map(({ player, text }) => html`<p key=${player} data-player=${player}>${text}</p>`)}</div>`;
}

/** The table's latest message to the player; it fades after a while. */
function Notice({ table }) {
  const notice = table.notice.value;
  useEffect(() => {
    if (!notice) return undefined;
    const timer = setTimeout(() => {
      if (table.notice.value === notice) table.notice.value = null;
    }, 8000);
    return () => clearTimeout(timer);
  }, [notice]);
  // Errors are said at once (role=alert); other messages are said by the announcer.
  const error = notice?.kind === "error";
  return html`<div class=${`notice ${notice?.kind ?? ""}`}>
    <span role="alert">${error && html`<span key=${notice.id}>${notice.text}</span>`}</span>
    ${notice && !error && html`<span>${notice.text}</span>`}
    ${notice && html`<button type="button" class="small" aria-label="dismiss" onClick=${() => (table.notice.value = null)}>×</button>`}
  </div>`;
}

/**
 * The one live region of the table (WCAG 2.2 4.1.3): the player's own turns, offers,
 * bets and results, said politely. Each message is a new line, so the same words said
 * twice are said twice; the last few are kept.
 */
function Announcer({ table }) {
  return html`<div class="visually-hidden" id="announcer" role="status" aria-live="polite">
    ${table.announcements.value.map((message) => html`<p key=${message.id}>${message.text}</p>`)}
  </div>`;
}
