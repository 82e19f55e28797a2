// What the player sees of his results: the banner at the end of a round, the road of
// recent results with a few session statistics, and chips drawn as stacks.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { chipColour, chipStack, format, signed } from "../money.js";
import { bead, sessionStats } from "../outcome.js";

const TITLES = { blackjack: "Blackjack!", win: "You win", lose: "You lose", push: "Push", void: "Round void" };

/** The round's result across all the player's bets, until his next bet or a while. */
export function ResultBanner({ table, betting }) {
  const summary = table.summary.value;
  const [hidden, setHidden] = useState(null);
  const mineOnLayout = betting && table.view.value?.bets.some((b) => b.player === table.you.value);
  useEffect(() => {
    if (!summary) return undefined;
    const timer = setTimeout(() => setHidden(summary.id), 12_000);
    return () => clearTimeout(timer);
  }, [summary?.id]);
  if (!summary || hidden === summary.id || mineOnLayout) return null;
  // Not a live region: the announcer says the result (components/Table.js).
  return html`<div class=${`banner ${summary.kind}`} data-round=${summary.number}>
    <strong class="banner-title">${TITLES[summary.kind]}</strong>
    <span class="banner-net">${summary.kind === "void" ? "" : signed(summary.net)}</span>
    <span class="banner-text">${summary.kind === "void" || summary.timedOut ? summary.text : summary.bets > 1 ? `Net of your ${summary.bets} bets this round` : "This round"}</span>
  </div>`;
}

/** The bead road of the player's recent results, and the session's figures. */
export function RecentResults({ table }) {
  const entries = table.road.value;
  if (!entries.length) return null;
  const stats = sessionStats(entries);
  return html`<section class="recent" aria-label="your recent results">
    <h2>Recent results</h2>
    <ol class="road">${entries.slice(-24).map((entry) => html`<li key=${entry.round} class=${`bead ${entry.kind}`}
        title=${`Round ${entry.number ?? ""}: ${signed(entry.net)}`}>${bead(entry.kind)}</li>`)}</ol>
    <dl class="stats">
      ${[
        ["Rounds", "rounds", stats.rounds],
        ["Won", "won", stats.won],
        ["Lost", "lost", stats.lost],
        ["Pushes", "pushed", stats.pushed],
        ["Blackjacks", "blackjacks", stats.blackjacks],
        ["Best win", "best", stats.biggestWin],
        ["Net here", "net", stats.net],
      ].map(([label, key, value]) => html`<div key=${key}><dt>${label}</dt><dd data-stat=${key}
        class=${key !== "net" ? "" : value.startsWith("-") ? "down" : value.startsWith("+") ? "up" : ""}>${value}</dd></div>`)}
    </dl>
  </section>`;
}

/** A bet drawn as a stack of chips (the amount written beside it). */
export function ChipStack({ value }) {
  const chips = chipStack(value, 8);
  return html`<span class="chip-stack" style=${`--count:${chips.length}`} aria-hidden="true">
    ${chips.map((chip, index) => html`<i class=${`stacked ${chipColour(chip)}`} style=${`--i:${index}`}></i>`)}
  </span><span class="stack-amount">${format(value)}</span>`;
}
