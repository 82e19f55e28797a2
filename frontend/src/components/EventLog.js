import { html } from "htm/preact";
import { sideBetName, outcomeWords } from "../names.js";
import { signed } from "../money.js";

const where = (e) => (e.box == null ? "Dealer" : `Box ${e.box}${e.hand && e.hand > 1 ? ` hand ${e.hand}` : ""}`);
const bet = (key) => (key === "main" ? "bet" : key === "insurance" ? "insurance" : sideBetName(key));

/** One engine event in words. */
export function describe(e) {
  switch (e.type) {
    case "bet_placed": return `${e.player} bets ${e.amount} (${bet(e.bet)}) on box ${e.box}`;
    case "bet_withdrawn": return `${e.player} withdraws ${e.amount} from box ${e.box}`;
    case "bets_closed": return "No more bets";
    case "card_dealt": return `${where(e)}: ${e.card ?? "a face-down card"}`;
    case "hole_card_revealed": return `Dealer turns over ${e.card}`;
    case "dealer_peeked": return e.blackjack ? "Dealer has blackjack" : "Dealer checks: no blackjack";
    case "insurance_taken": return `${e.player} insures box ${e.box} for ${e.amount}`;
    case "even_money_taken": return `${e.player} takes even money on box ${e.box}`;
    case "offer_declined": return `${e.player} declines ${e.offer.replaceAll("-", " ")} on box ${e.box}`;
    case "player_hit": return `${where(e)} hits`;
    case "player_stood": return `${where(e)} stands on ${e.total}${e.automatic ? " (automatically)" : ""}`;
    case "player_doubled_down": return `${e.player} doubles on ${where(e).toLowerCase()} for ${e.amount}`;
    case "player_split": return `${e.player} splits box ${e.box}`;
    case "split_followed": return `${e.player} follows the split on box ${e.box} (${e.amount})`;
    case "double_followed": return `${e.player} follows the double on box ${e.box} (${e.amount})`;
    case "player_surrendered": return `${where(e)} surrenders`;
    case "player_timed_out": return `${where(e)}: time ran out, the hand draws to 12 or more and stands`;
    case "dealer_finished": return `Dealer ${e.blackjack ? "has blackjack" : e.busted ? `busts with ${e.total}` : `has ${e.total}`}`;
    case "bet_settled": return `${e.player}, ${bet(e.bet)} on ${where(e).toLowerCase()}: ${outcomeWords(e.outcome)} ${signed(e.net)}`;
    case "bet_returned": return `${e.player}'s ${bet(e.bet)} on box ${e.box} returned: ${e.reason}`;
    case "technical_interruption": return `Technical interruption${e.outcome_established ? " (outcome established)" : ""}`;
    case "round_voided": return `Round void: ${e.reason}`;
    case "round_settled": return "Round over";
    case "refused": return `Refused: ${e.message} (${e.clause})`;
    default: return e.type.replaceAll("_", " ");
  }
}

/**
 * The table's recent events, newest first. Not a live region: every card of every
 * player is here, which a screen reader would read out one by one; the announcer says
 * what concerns the player (components/Table.js).
 */
export function EventLog({ table }) {
  return html`<section class="log" aria-label="what happened">
    <h2>Table log</h2>
    <ol aria-live="off">${table.events.value.map(({ id, number, event }) => html`<li key=${id} class=${event.type} data-round=${number}>${describe(event)}</li>`)}</ol>
  </section>`;
}
