// A table: the felt, the chip tray, the offers and actions of the player's turn, the
// table's messages and log, and the panels of its rules and strategy.
import { html } from "htm/preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { useSignalEffect } from "@preact/signals";
import { api } from "../api.js";
import { refuseBets, refuseChip, totals } from "../betting.js";
import { codeWords, strategyCode } from "../hint.js";
import { chipColour, chipValues, format } from "../money.js";
import { balance, user } from "../session.js";
import { TableConnection } from "../table.js";
import { ratioWords } from "../names.js";
import { Felt } from "./Felt.js";
import { EventLog } from "./EventLog.js";
import { RulesPanel, StrategyPanel } from "./Panels.js";
import { DealerConsole } from "./DealerConsole.js";

const ACTIONS = {
  hit: ["h", "Hit"], stand: ["s", "Stand"], double: ["d", "Double"], split: ["p", "Split"], surrender: ["r", "Surrender"],
};
const OFFERS = {
  insurance: ["i", "insurance", "Insurance", "Insure for half your bet?"],
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
  const [pending, setPending] = useState([]); // chips: {box, bet, value}
  const lastKey = `croupier.last-bets.${id}`;
  const [lastBets, setLastBets] = useState(() => JSON.parse(sessionStorage.getItem(lastKey) ?? "[]"));
  const [hint, setHint] = useState(false);
  const view = table.view.value;
  const you = table.you.value;

  useEffect(() => {
    api(`/api/tables/${encodeURIComponent(id)}/rules`).then((data) => setRules(data.rules)).catch((error) => table.tell("error", error.message));
    api(`/api/tables/${encodeURIComponent(id)}/strategy`).then(setStrategy).catch(() => {});
  }, [id]);

  // Chips not yet placed are dropped when the bets close.
  useSignalEffect(() => {
    if (table.view.value && table.view.value.phase !== "betting") setPending((chips) => (chips.length ? [] : chips));
  });
  // The first chip of a table is picked for the player: its smallest.
  useEffect(() => {
    if (view && chip === null) setChip(chipValues(view.minimum_bet, view.maximum_bet)[0]);
  }, [view, chip]);

  const placed = view ? view.bets.filter((b) => b.player === you) : [];
  const limits = rules ?? (view && { minimum_bet: view.minimum_bet, maximum_bet: view.maximum_bet });

  function onSpot(box, bet) {
    if (!you) return table.tell("error", "Log in to bet.");
    if (!chip) return table.tell("error", "Pick a chip first.");
    const refusal = refuseChip({ box, bet, value: chip, pending, placed, rules: limits, balance: balance.value });
    if (refusal) return table.tell("error", refusal);
    setPending([...pending, { box, bet, value: chip }]);
  }

  function placeBets() {
    if (!pending.length) return table.tell("error", "Put chips on a betting spot first.");
    const refusal = refuseBets(pending, placed, limits);
    if (refusal) return table.tell("error", refusal);
    const bets = totals(pending);
    for (const bet of bets) table.act("bet", { box: bet.box, amount: bet.value, bet: bet.bet });
    setLastBets(bets);
    sessionStorage.setItem(lastKey, JSON.stringify(bets));
    setPending([]);
  }

  function repeat(times) {
    if (!lastBets.length) return table.tell("error", "No bets yet to repeat.");
    const chips = lastBets.flatMap((bet) => Array.from({ length: times }, () => ({ box: bet.box, bet: bet.bet, value: bet.value })));
    for (let k = 0; k < chips.length; k += 1) {
      const refusal = refuseChip({ ...chips[k], pending: chips.slice(0, k), placed, rules: limits, balance: balance.value });
      if (refusal) return table.tell("error", refusal);
    }
    setPending(chips);
  }

  // Keyboard: the letter on each button; an action letter out of turn says why nothing happens.
  useEffect(() => {
    function onKey(event) {
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
      if (event.ctrlKey || event.metaKey || event.altKey || document.querySelector("dialog[open]")) return;
      const key = event.key.toLowerCase();
      // Enter on a focused button or link is that element's own.
      if (key === "enter" && event.target instanceof Element && event.target.closest("button, a")) return;
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

  if (!view) return html`<p class="loading" role="status">${table.status.value === "closed" ? "This table is closed." : "Connecting to the table…"}</p>`;

  const print = rules
    ? `Blackjack pays ${ratioWords(rules.blackjack_pays)} · Dealer ${rules.dealer_hits_soft_17 ? "hits soft 17" : "stands on all 17s"}${rules.insurance ? ` · Insurance pays ${ratioWords(rules.insurance_pays)}` : ""}`
    : "";
  const myOffers = view.offers.filter((o) => o.player === you);
  const code = hint && view.turn?.yours ? hintCode(view, strategy) : null;

  return html`<div class="table-page">
    <header class="table-head">
      <h1>${view.table} <small>${view.rules} v${view.rules_version} · round #${view.number} · bets ${view.minimum_bet}–${view.maximum_bet}</small></h1>
      <span class=${`link ${table.status.value}`} role="status">${{ open: "", connecting: "Connecting…", reconnecting: "Reconnecting…", closed: "Disconnected" }[table.status.value]}</span>
    </header>
    <${Felt} table=${table} view=${view} pending=${pending} onSpot=${onSpot} chipSelected=${chip} print=${print} />
    <${Notice} table=${table} />
    <section class="controls" aria-label="your controls">
      ${dealer ? html`<${DealerConsole} table=${table} view=${view} />` : html`
        ${!you && html`<p>You are watching. <a href="#/login">Log in</a> to play.</p>`}
        ${you && view.phase === "betting" && html`<div class="betting">
          <div class="chips" role="group" aria-label="chips">
            ${chipValues(view.minimum_bet, view.maximum_bet).map((value) => html`<button type="button"
              class=${`chip ${chipColour(value)}${chip === value ? " selected" : ""}`} aria-pressed=${chip === value ? "true" : "false"}
              data-value=${value} onClick=${() => setChip(value)}>${value.replace(/\.00$/, "")}</button>`)}
          </div>
          <div class="row">
            <button type="button" data-key="u" disabled=${!pending.length} onClick=${() => setPending(pending.slice(0, -1))}>Undo (U)</button>
            <button type="button" data-key="c" disabled=${!pending.length} onClick=${() => setPending([])}>Clear (C)</button>
            <button type="button" data-key="b" disabled=${!lastBets.length} onClick=${() => repeat(1)}>Rebet (B)</button>
            <button type="button" data-key="x" disabled=${!lastBets.length} onClick=${() => repeat(2)}>Double bet (X)</button>
            <button type="button" class="primary" data-key="enter" onClick=${placeBets}>Place bets (Enter)</button>
          </div>
        </div>`}
        ${myOffers.map((offer) => {
          const [key, op, label, question] = OFFERS[offer.kind];
          return html`<div class="row offer" role="group" aria-label=${`${offer.kind} offer, box ${offer.box}`}>
            <span>Box ${offer.box}${offer.hand > 1 ? `, hand ${offer.hand}` : ""}: ${question}${offer.amount ? ` (${offer.amount})` : ""}</span>
            <button type="button" class="primary" data-key=${key} onClick=${() => table.act(op, { box: offer.box })}>${label} (${key.toUpperCase()})</button>
            <button type="button" data-key="n" onClick=${() => table.act("decline", { box: offer.box, kind: offer.kind })}>No thanks (N)</button>
          </div>`;
        })}
        ${view.legal_actions.length > 0 && html`<div class="row actions" role="group" aria-label="your move">
          ${view.legal_actions.map((action) => html`<button type="button" class="primary" data-key=${ACTIONS[action][0]}
            onClick=${() => table.act(action)}>${ACTIONS[action][1]} (${ACTIONS[action][0].toUpperCase()})</button>`)}
        </div>`}
        ${code && html`<p class="hint" role="note">Basic strategy: ${codeWords(code)}</p>`}
        <div class="row tools">
          <button type="button" onClick=${() => setPanel("rules")}>Rules</button>
          <button type="button" onClick=${() => setPanel("strategy")} disabled=${!strategy}>Strategy chart</button>
          <label><input type="checkbox" checked=${hint} onChange=${(event) => setHint(event.currentTarget.checked)} /> Show hint</label>
        </div>`}
    </section>
    <${EventLog} table=${table} />
    ${panel === "rules" && html`<${RulesPanel} id=${id} onClose=${() => setPanel(null)} />`}
    ${panel === "strategy" && html`<${StrategyPanel} strategy=${strategy} onClose=${() => setPanel(null)} />`}
  </div>`;
}

function hintCode(view, strategy) {
  const box = view.boxes.find((b) => b.box === view.turn.box);
  const hand = box?.hands.find((h) => h.hand === view.turn.hand);
  if (!hand || !view.dealer.cards.length) return null;
  return strategyCode(strategy, hand.cards, hand.total, hand.soft, view.dealer.cards[0]);
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
  return html`<div class=${`notice ${notice?.kind ?? ""}`} role="alert" aria-live="assertive">
    ${notice && html`<span>${notice.text}</span><button type="button" class="small" aria-label="dismiss" onClick=${() => (table.notice.value = null)}>×</button>`}
  </div>`;
}
