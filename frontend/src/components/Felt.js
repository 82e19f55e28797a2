// The felt: the dealer's cards at the top, the boxes in an arc below.
import { html } from "htm/preact";
import { useRef, useState } from "preact/hooks";
import { Cards } from "./Card.js";
import { Timer } from "./Timer.js";
import { amount, format, signed, sum } from "../money.js";
import { outcomeWords, sideBetName } from "../names.js";
import { holderOf, layoutTotal } from "../betting.js";
import { spotTotal } from "../mine.js";
import { ChipStack, ResultBanner } from "./Outcome.js";
import { controlOf, feltControls, homeSpot, sideSpotsShown, spotStep } from "../roving.js";
import { narrow } from "../screen.js";

const DEAL_STEP_MS = 140;

export function Felt({ table, view, onSpot, chipSelected, print }) {
  const you = table.you.value;
  const betting = view.phase === "betting";
  // One tab stop for the felt's controls (his own box's spot until he moves it); the
  // arrow keys move between them (WAI-ARIA roving tabindex).
  const [moved, setMoved] = useState(null);
  const controls = feltControls(view, you, narrow.value);
  const stop = controls.some((c) => c.key === moved) ? moved : homeSpot(view, you);
  const spotsRef = useRef(null);
  function onKeyDown(event) {
    const elements = [...spotsRef.current.querySelectorAll("[data-roving]:not(:disabled)")];
    const index = elements.indexOf(event.target);
    if (index < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const items = elements.map((element) => controlOf(element.dataset.roving));
    const boxes = [...spotsRef.current.querySelectorAll("li.box")].map((li) => ({ box: Number(li.dataset.box), rect: li.getBoundingClientRect() }));
    const next = spotStep(event.key, items, index, boxes);
    if (next === null) return;
    event.preventDefault();
    elements[next].focus();
  }
  const total = you && betting ? layoutTotal(view.bets, you) : null;
  const inPlay = view.boxes.map((b) => b.box);
  // The order of the initial deal: each box's first card, the dealer's, then the second cards.
  const rounds = inPlay.length + 1;
  const boxOrder = (box) => (box === null ? inPlay.length : inPlay.indexOf(box));
  const dealOrder = (box) => (index) => (index < 2 ? (index * rounds + boxOrder(box)) * DEAL_STEP_MS : 0);
  const boxes = Array.from({ length: view.boxes_count }, (_, k) => k + 1);
  return html`<section class="felt" aria-label="the table">
    <div class="dealer" aria-label="dealer">
      <${Cards} cards=${view.dealer.cards} hidden=${view.dealer.hidden_cards} dealOrder=${dealOrder(null)} />
      <div class="total">${view.dealer.cards.length ? html`Dealer <strong>${view.dealer.total}</strong>${view.dealer.total > 21 ? " bust" : ""}` : "Dealer"}</div>
      <${Timer} table=${table} view=${view} />
      <p class="felt-print">${view.phase === "void" ? `Round void: ${view.void_reason}` : print}</p>
      ${total !== null && amount(total).gt(0) && html`<p class="layout-total">Your bets on the layout: <strong>${total}</strong>${view.confirmed.includes(you) ? " · accepted" : ""}</p>`}
      <${ResultBanner} table=${table} betting=${betting} />
    </div>
    <div class="layout" ref=${spotsRef} role=${controls.length ? "toolbar" : null}
      aria-label=${controls.length ? "betting spots (arrow keys move between them)" : null} onKeyDown=${onKeyDown}>
      <ol class="boxes" style=${`--count:${boxes.length}`}>
        ${boxes.map((number) => html`<${Box} key=${number} number=${number} count=${boxes.length} table=${table} view=${view}
          onSpot=${onSpot} chipSelected=${chipSelected} stop=${stop} onStop=${setMoved}
          dealOrder=${dealOrder(number)} />`)}
      </ol>
    </div>
  </section>`;
}

function Box({ number, count, table, view, onSpot, chipSelected, stop, onStop, dealOrder }) {
  const you = table.you.value;
  const placed = view.boxes.find((b) => b.box === number);
  const bets = view.bets.filter((b) => b.box === number);
  // The first initial bet on a box seats its player; later ones bet behind him.
  const holder = holderOf(view, number);
  const roving = (key) => ({ "data-roving": key, tabIndex: key === stop ? 0 : -1, onFocus: () => onStop(key) });
  const results = view.results.filter((r) => r.box === number);
  const betting = view.phase === "betting";
  const position = count > 1 ? (number - 1) / (count - 1) : 0.5;
  const turn = view.turn?.box === number ? view.turn.hand : null;
  const spot = (bet) => {
    const onTable = spotTotal(view, number, bet);
    const mine = sum(bets.filter((b) => b.bet === bet && b.player === you).map((b) => b.amount));
    const main = bet === "main";
    // Another player's box with his bet on it: a bet behind him where the rules have
    // standing players (RWS v5 1.26), none elsewhere.
    const others = main && holder && holder !== you && bets.some((b) => b.bet === "main");
    const closed = others && view.bets_behind === false;
    const label = main ? (others ? (closed ? "Taken" : "Bet behind") : "Bet") : sideBetName(bet);
    const won = results.filter((r) => r.bet === bet && r.hand === null);
    return html`<button type="button" class=${`spot ${main ? "main" : "side"}${mine.gt(0) ? " mine" : ""}${onTable.gt(0) ? " staked" : ""}`}
      data-spot=${`${number}:${bet}`} disabled=${!betting || !you || closed} ...${roving(`${number}:${bet}`)}
      aria-label=${`${label} on box ${number}${onTable.gt(0) ? `, ${format(onTable)} on it` : ""}${mine.gt(0) && !mine.eq(onTable) ? `, ${format(mine)} yours` : ""}`}
      title=${chipSelected ? "" : "Pick a chip first"}
      onClick=${() => onSpot(number, bet)}>
      <span class="spot-label">${label}</span>
      ${onTable.gt(0) && html`<span class="stack"><${ChipStack} value=${onTable} />${mine.gt(0) && !mine.eq(onTable) ? html` <small>(yours ${format(mine)})</small>` : ""}</span>`}
      ${won.map((r) => html`<${Result} result=${r} />`)}
    </button>`;
  };
  const sideResults = !betting ? results.filter((r) => r.hand === null && r.bet !== "main") : [];
  return html`<li class=${`box${holder === you && you ? " yours" : ""}`} data-box=${number}
      style=${`--t:${position}`} aria-label=${`box ${number}${holder ? `, ${holder}` : ", free"}`}>
    <div class="seat">
      <span class="number">${number}</span>
      <span class="holder">${holder ?? "free"}</span>
      ${betting && !holder && you && html`<button type="button" class="small sit" aria-label=${`Sit at box ${number}`}
        ...${roving(`sit:${number}`)} onClick=${() => table.send({ type: "take_box", box: number })}>Sit</button>`}
      ${betting && you && view.seats[String(number)] === you && !bets.some((b) => b.player === you) && html`<button type="button"
        class="small leave" aria-label=${`Leave box ${number}`} onClick=${() => table.send({ type: "leave_box", box: number })}>Leave</button>`}
    </div>
    ${(placed?.hands ?? []).map((hand) => html`<${Hand} key=${hand.hand} hand=${hand} active=${turn === hand.hand} you=${you}
        results=${results.filter((r) => r.hand === hand.hand)} dealOrder=${hand.hand === 1 ? dealOrder : () => 0} />`)}
    ${sideResults.map((r) => html`<${Result} result=${r} label=${`${sideBetName(r.bet)} (${r.player})`} />`)}
    ${betting && html`<div class="spots">${spot("main")}${sideSpotsShown(view, number, narrow.value) && view.side_bets.map((bet) => spot(bet))}</div>`}
  </li>`;
}

function Hand({ hand, active, you, results, dealOrder }) {
  const total = hand.blackjack ? "Blackjack" : `${hand.soft && hand.total < 21 ? "soft " : ""}${hand.total}${hand.total > 21 ? " bust" : ""}`;
  // The hand's own result for the player (his main bet on it): highlighted on the felt.
  const own = results.filter((r) => r.bet === "main" && r.player === you);
  const net = sum(own.map((r) => r.net));
  const outcome = !own.length ? "" : own.some((r) => r.outcome === "blackjack" && amount(r.net).gt(0)) ? " blackjack" : net.gt(0) ? " won" : net.lt(0) ? " lost" : " push";
  return html`<div class=${`hand${active ? " active" : ""}${outcome}`} data-hand=${hand.hand} aria-current=${active ? "true" : null}>
    <${Cards} cards=${hand.cards} dealOrder=${dealOrder} />
    <div class="total">${hand.cards.length ? total : ""}${hand.doubled ? " · doubled" : ""}${hand.surrendered ? " · surrendered" : ""}</div>
    <div class="stakes">${Object.entries(hand.stakes).map(([player, stake]) => html`<span class=${player === you ? "mine" : ""}>${player} ${stake}</span>`)}${hand.behind && html`<span class="behind">${hand.behind.players} behind ${hand.behind.amount}</span>`}</div>
    ${results.map((r) => html`<${Result} result=${r} />`)}
  </div>`;
}

/** A settled bet: whose, how it ended, and what it made (a push in a neutral colour). */
function Result({ result, label = result.player }) {
  const net = amount(result.net);
  const kind = net.gt(0) ? "won" : net.lt(0) ? "lost" : "push";
  return html`<span class=${`result ${kind}`}>${label}: ${outcomeWords(result.outcome)} ${signed(result.net)}</span>`;
}
