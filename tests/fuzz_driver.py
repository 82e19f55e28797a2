"""Random rounds that hunt defects: a random table (legal and illegal commands) and its checks.

Shared by ``tests/test_round_fuzz.py`` and ``scripts/fuzz_rounds.py``.  One round is
played by :func:`play_random_round`: random boxes, players seated and betting behind,
bets inside and outside the limits, side bets, withdrawals, "No more bets", then, until
the round is over, a random mix of legal commands, illegal ones (wrong player, action
not allowed, insurance over the limit...) and irregularities (time-outs, players
walking away, bets returned after a dealing error, interruptions, voids, a joker or an
excess card from a dealer's shoe).

Every command goes through :class:`Harness`, which checks after each one that a
refused command raised a :class:`~croupier.errors.CroupierError` and changed nothing,
that ``can`` and ``verify`` agree with ``apply``, and a few invariants of the round's
state; at the end of the round it checks the money (balance, every stake settled or
returned exactly once, a ledger read from the events alone), the settlement against
the cards, and that a snapshot (through JSON), a copy and a pickle taken at a random
point run on exactly as the round did.  A failure raises :class:`CheckFailed`, whose
``check`` names the property; :func:`replay` plays a recorded round again (from a
fixed card order) and :func:`shrink` cuts it down to a short reproduction.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

from croupier.cards import Card, full_deck, parse_card
from croupier.commands import (
    CloseBets,
    Command,
    DealCard,
    Decline,
    DoubleDown,
    Follow,
    Hit,
    Interrupt,
    PlaceBet,
    ReturnBets,
    Settle,
    Split,
    Stand,
    Surrender,
    TakeEvenMoney,
    TakeInsurance,
    TimeOut,
    Void,
    WalkAway,
    Withdraw,
    command_from_json,
)
from croupier.errors import CroupierError
from croupier.events import (
    BetPlaced,
    BetResult,
    BetReturned,
    BetSettled,
    BetWithdrawn,
    CardDealt,
    DealerFinished,
    DoubleFollowed,
    EvenMoneyTaken,
    Event,
    InsuranceTaken,
    OfferDeclined,
    PlayerDoubledDown,
    PlayerSplit,
    PlayerStood,
    PlayerSurrendered,
    PlayerTimedOut,
    RoundSettled,
    RoundVoided,
    SeatPassed,
    SplitFollowed,
    TechnicalInterruption,
)
from croupier.money import payout, quantize
from croupier.presets import find_rules
from croupier.round import Action, Automation, Awaiting, OfferKind, Phase, Round
from croupier.rules import DealerBlackjackTakes, Interruption, Rules
from croupier.rules import Surrender as SurrenderRule
from croupier.shoe import CardSource, CompositionCheck, DealerEntry, FixedOrder, ShuffledShoe

__all__ = [
    "PLAYERS",
    "CheckFailed",
    "Harness",
    "Mode",
    "RoundRecord",
    "Setup",
    "describe_repro",
    "fixed_setup",
    "play_random_round",
    "replay",
    "shrink",
]

#: The players at the table; ``zed`` never bets.
PLAYERS = ("ann", "bob", "cy", "dee")
STRANGER = "zed"
MAIN = "main"
INSURANCE = "insurance"
ZERO = Decimal(0)
OVER = (Phase.SETTLED, Phase.VOID)
#: Reasons of money given back at "No more bets" (it has an event but no result).
CLOSE_REASONS = (
    "over the box maximum",
    "over the box's initial bet",
    "no initial bet on the box",
    "has no initial bet of his own",
)
#: Commands a player issues for himself (an absent player issues none).
PLAYER_COMMANDS = (
    Hit,
    Stand,
    DoubleDown,
    Split,
    Surrender,
    TakeInsurance,
    TakeEvenMoney,
    Follow,
    Decline,
)
#: Commands counted as irregularities when accepted.
IRREGULAR = (TimeOut, WalkAway, ReturnBets, Interrupt, Void, Settle)

Mode = Literal["shoe", "fixed", "hand", "entry"]


class CheckFailed(AssertionError):
    """A property of the round does not hold; ``check`` names it."""

    def __init__(self, check: str, detail: str) -> None:
        super().__init__(f"{check}: {detail}")
        self.check = check
        self.detail = detail


def fail(check: str, detail: str) -> CheckFailed:
    return CheckFailed(check, detail)


def ensure(condition: bool, check: str, detail: Callable[[], str] | str) -> None:
    if not condition:
        raise CheckFailed(check, detail() if callable(detail) else detail)


@dataclass(frozen=True)
class Setup:
    """How a round's table is made: preset, where the cards come from, automation."""

    preset: str
    #: ``shoe``: a seeded lazy ShuffledShoe; ``fixed``: a FixedOrder of ``cards`` (a
    #: short one runs out); ``hand``: ``Round(rules, None)``, every card a DealCard;
    #: ``entry``: a DealerEntry source, every card a DealCard.
    mode: Mode
    #: Settlement waits for the dealer's Settle command.
    settle_by_hand: bool = False
    shoe_seed: int | None = None
    cards: tuple[str, ...] = ()
    #: Cards the shoe's composition check already counted (earlier rounds of the shoe).
    prior: tuple[str, ...] = ()

    def source(self, rules: Rules) -> CardSource | None:
        if self.mode == "shoe":
            return ShuffledShoe(rules.decks, seed=self.shoe_seed, lazy=True)
        if self.mode == "fixed":
            return FixedOrder(self.cards)
        if self.mode == "entry":
            return DealerEntry()
        return None

    def check(self, rules: Rules) -> CompositionCheck:
        check = CompositionCheck(rules.decks)
        for text in self.prior:
            check.take(parse_card(text))
        return check


@dataclass
class Step:
    """One command applied to the round, and what came of it."""

    command: Command
    accepted: bool
    events: tuple[dict[str, object], ...]
    error: str | None


@dataclass
class RoundRecord:
    """A round played: how it was set up, its commands, and what the checks found."""

    setup: Setup
    fork_at: int
    steps: list[Step] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    failure: CheckFailed | None = None
    cards_dealt: tuple[str, ...] = ()

    @property
    def commands(self) -> list[Command]:
        return [step.command for step in self.steps]


# -- checking --------------------------------------------------------------------------------


def _source_position(source: CardSource | None) -> object:
    if isinstance(source, ShuffledShoe | FixedOrder):
        return source.dealt
    if isinstance(source, DealerEntry):
        return source.queued
    return None


def _fingerprint(game: Round) -> tuple[object, ...]:
    state = game.state
    return (
        len(state.events),
        state.phase,
        state.cursor.awaiting,
        tuple(state.offers),
        game.current_turn,
        len(state.results),
        game.legal_actions(),
        _source_position(state.source),
        state.check.taken,
    )


def _has_nan(command: Command) -> bool:
    for name in ("amount",):
        value = getattr(command, name, None)
        if isinstance(value, Decimal) and value.is_nan():
            return True
    return False


def check_command_json(command: Command) -> None:
    """A command survives JSON: ``command_from_json(json(cmd.to_json())) == cmd``."""
    data = command.to_json()
    text = json.dumps(data)
    again = command_from_json(json.loads(text))
    if _has_nan(command):
        ensure(again.to_json() == data, "command-json", f"{command!r} came back as {again!r}")
    else:
        ensure(again == command, "command-json", f"{command!r} came back as {again!r}")


def _events_json(events: Iterable[Event]) -> tuple[dict[str, object], ...]:
    return tuple(event.to_json() for event in events)


class Harness:
    """A round under test: every command through :meth:`apply`, checks at :meth:`finish`.

    ``deep``: compare the whole snapshot before and after every refused command (else
    a fingerprint of the state); the fuzz script may turn it off for speed.
    """

    def __init__(
        self,
        setup: Setup,
        fork_at: int,
        *,
        deep: bool = True,
        tolerate: frozenset[str] = frozenset(),
    ) -> None:
        self.setup = setup
        self.tolerate = tolerate
        self.rules = find_rules(setup.preset)
        self.source = setup.source(self.rules)
        automation = Automation.DEALING if setup.settle_by_hand else Automation.ALL
        self.game = Round(
            self.rules, self.source, check=setup.check(self.rules), automation=automation
        )
        self.deep = deep
        self.record = RoundRecord(setup, fork_at)
        self.stats = self.record.stats
        self.forks: list[tuple[str, Round]] = []
        self.forked = False
        self.absent: set[str] = set()
        self.returned: set[tuple[str, int]] = set()
        self.close_returns: list[BetReturned] = []
        #: Results of a player on a box before his bets were returned.
        self.before_return: dict[tuple[str, int], set[tuple[str, int, int | None, str]]] = {}
        self.walked_at: dict[str, int] = {}
        self.tolerated: set[str] = set()
        self.bets_at_close: list[tuple[str, int, str, Decimal]] = []
        self.seated_at_close: dict[int, str] = {}

    def ensure(self, condition: bool, check: str, detail: Callable[[], str] | str) -> None:
        """Raise :class:`CheckFailed` unless ``condition``; a tolerated check is counted."""
        if condition:
            return
        if check in self.tolerate:
            if check not in self.tolerated:
                self.tolerated.add(check)
                self.stats[f"tolerated:{check}"] += 1
            return
        raise CheckFailed(check, detail() if callable(detail) else detail)

    # -- one command ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.game.phase in OVER

    def apply(self, command: Command) -> bool:
        """Apply a command to the round and check it; returns whether it was accepted."""
        game = self.game
        if not self.forked and len(self.record.steps) >= self.record.fork_at:
            self.fork()
        check_command_json(command)
        was_over = self.over
        print_before = _fingerprint(game)
        phase_before = game.phase
        awaiting_before = game.awaiting
        turn_before = game.current_turn
        results_before = game.results
        offers_before = game.offers
        if isinstance(command, CloseBets) and phase_before is Phase.BETTING:
            self.bets_at_close = [
                (bet.player, bet.box, bet.bet, bet.amount) for bet in game.placed_bets
            ]
            self.seated_at_close = {
                bet.box: game.seated_player(bet.box) or "" for bet in game.placed_bets
            }
        try:
            allowed = game.can(command)
        except Exception as error:
            raise fail("crash-in-can", f"{command!r}: {_trace(error)}") from error
        # The whole state before a command expected to be refused, to compare after it.
        snap_before = game.snapshot() if self.deep and not allowed else None
        try:
            game.verify(command)
            verify_error: CroupierError | None = None
        except CroupierError as error:
            verify_error = error
        except Exception as error:
            raise fail("crash-in-verify", f"{command!r}: {_trace(error)}") from error
        self.ensure(
            _fingerprint(game) == print_before,
            "query-changed-state",
            f"can() or verify() of {command!r} changed the round",
        )
        start = len(game.state.events)
        try:
            events = game.apply(command)
            apply_error: CroupierError | None = None
        except CroupierError as error:
            events = ()
            apply_error = error
        except Exception as error:
            raise fail(
                "crash-in-apply", f"{command!r} in phase {phase_before.value}: {_trace(error)}"
            ) from error
        accepted = apply_error is None
        self.ensure(
            allowed == accepted,
            "can-disagrees",
            lambda: (
                f"can({command!r}) is {allowed} but apply "
                + ("accepted it" if accepted else f"refused it: {apply_error}")
            ),
        )
        self.ensure(
            (verify_error is None) == accepted,
            "verify-disagrees",
            lambda: (
                f"verify({command!r}) raised {verify_error!r} but apply "
                + ("accepted it" if accepted else f"raised {apply_error!r}")
            ),
        )
        if verify_error is not None and apply_error is not None:
            self.ensure(
                type(verify_error) is type(apply_error) and str(verify_error) == str(apply_error),
                "verify-message-differs",
                f"{command!r}: verify raised {verify_error!r}, apply {apply_error!r}",
            )
        self.record.steps.append(
            Step(
                command,
                accepted,
                _events_json(events),
                None if apply_error is None else f"{type(apply_error).__name__}: {apply_error}",
            )
        )
        if not accepted:
            self.stats["refused"] += 1
            self.ensure(
                _fingerprint(game) == print_before,
                "refused-changed-state",
                f"{command!r} was refused ({apply_error}) but changed the round",
            )
            if snap_before is not None:
                after = game.snapshot()
                self.ensure(
                    after == snap_before,
                    "refused-changed-state",
                    lambda: (
                        f"{command!r} was refused ({apply_error}) but its snapshot "
                        f"changed: {_dict_difference(snap_before, after)}"
                    ),
                )
            return False
        self.stats["accepted"] += 1
        self.ensure(
            not was_over, "accepted-after-round-over", f"{command!r} accepted in a round over"
        )
        self.ensure(
            game.state.events[start:] == list(events),
            "events-returned",
            f"apply({command!r}) returned other events than it recorded",
        )
        self._after_accepted(
            command,
            events,
            phase_before,
            awaiting_before,
            turn_before,
            results_before,
            offers_before,
        )
        self.check_state()
        return True

    def _after_accepted(
        self,
        command: Command,
        events: tuple[Event, ...],
        phase_before: Phase,
        awaiting_before: Awaiting,
        turn_before: tuple[int, int] | None,
        results_before: tuple[BetResult, ...],
        offers_before: Sequence[object],
    ) -> None:
        game = self.game
        rules = self.rules
        if isinstance(command, IRREGULAR):
            self.stats[f"irregularity:{command.op}"] += 1
        if isinstance(command, PLAYER_COMMANDS) and command.player is not None:
            self.ensure(
                command.player not in self.absent,
                "absent-player-acted",
                f"{command!r} accepted from {command.player}, who walked away",
            )
        for event in events:
            player = getattr(event, "player", None)
            if isinstance(
                event,
                PlayerDoubledDown
                | DoubleFollowed
                | PlayerSplit
                | SplitFollowed
                | InsuranceTaken
                | EvenMoneyTaken
                | SeatPassed,
            ):
                self.ensure(
                    player not in self.absent,
                    "absent-player-money",
                    f"{event.to_json()} for {player}, who walked away (RWS v5 5.3, 1.26)",
                )
                box = getattr(event, "box", None)
                if isinstance(box, int) and not isinstance(event, SeatPassed):
                    self.ensure(
                        (str(player), box) not in self.returned,
                        "returned-player-money",
                        f"{event.to_json()}: {player} had his bets on box {box} returned "
                        "(RWS v5 5.7.3), yet more of his money went on it",
                    )
        if isinstance(command, CloseBets):
            for event in events[1:]:
                if not isinstance(event, BetReturned):
                    break
                self.ensure(
                    any(reason in event.reason for reason in CLOSE_REASONS),
                    "close-return-reason",
                    f"unexpected reason at No more bets: {event.reason}",
                )
                self.close_returns.append(event)
            self._check_close()
        if isinstance(command, WalkAway):
            self.absent.add(command.who)
            self.walked_at[command.who] = len(self.record.steps)
            for offer in game.offers:
                self.ensure(
                    offer.player not in self.absent,
                    "absent-player-offer",
                    f"{offer} still open to {offer.player}, who walked away",
                )
        if isinstance(command, ReturnBets):
            self.ensure(
                rules.dealing_error_return,
                "return-bets-allowed",
                f"{rules.name} gives no player his bet back, yet {command!r} was accepted",
            )
            key = (returns_of(command), command.box)
            self.returned.add(key)
            self.before_return.setdefault(
                key,
                {
                    (r.player, r.box, r.hand, r.bet)
                    for r in results_before
                    if (r.player, r.box) == key
                },
            )
        if isinstance(command, Interrupt):
            interruptions = [e for e in events if isinstance(e, TechnicalInterruption)]
            self.ensure(len(interruptions) == 1, "interrupt-event", f"events {events}")
            established = interruptions[0].outcome_established
            if any(result.net != 0 for result in results_before):
                self.ensure(
                    established,
                    "interrupt-established",
                    "a bet had won or lost, yet the interruption found no outcome established",
                )
            elif established:
                # No bet settled with a gain or loss: only a bust or a surrender held while
                # a dealer blackjack may come has lost whatever the dealer holds.
                held = [
                    (box.number, hand.number)
                    for box in game.state.boxes
                    for hand in box.hands
                    if (hand.hard > 21 or hand.surrendered)
                    and any(not wager.settled for wager in hand.wagers)
                ]
                self.ensure(
                    bool(held),
                    "interrupt-established",
                    "no bet had won or lost and no bust or surrender is held, yet the "
                    f"interruption found an outcome established ({len(results_before)} results)",
                )
            if rules.interruption is Interruption.VOID_ALL or not established:
                self.ensure(
                    game.phase is Phase.VOID,
                    "interrupt-void",
                    f"interrupt at {rules.name} (established={established}) left phase "
                    f"{game.phase.value}",
                )
                self.stats["interrupt:void"] += 1
            else:
                self.ensure(
                    game.phase is phase_before,
                    "interrupt-continues",
                    f"interrupt with an outcome established moved the round from "
                    f"{phase_before.value} to {game.phase.value}",
                )
                self.stats["interrupt:continued"] += 1
        if isinstance(command, Void):
            self.ensure(
                game.phase is Phase.VOID and game.void_reason == command.reason,
                "void",
                f"void({command.reason!r}) left phase {game.phase.value}, "
                f"reason {game.void_reason!r}",
            )
        if isinstance(command, TimeOut):
            if awaiting_before is Awaiting.ANSWERS:
                declined = [e for e in events if isinstance(e, OfferDeclined)]
                self.ensure(
                    len(declined) >= len(offers_before),
                    "time-out-declines",
                    f"time out with {len(offers_before)} offers open declined {len(declined)}",
                )
            else:
                self.ensure(
                    any(isinstance(e, PlayerTimedOut) for e in events),
                    "time-out-event",
                    f"time out at {turn_before} gave {events}",
                )
                self.ensure(
                    game.current_turn != turn_before or game.awaiting is not Awaiting.DECISION,
                    "time-out-plays-hand",
                    f"after a time out box/hand {turn_before} still waits for a decision",
                )
        if not isinstance(command, Stand):
            for event in events:
                if isinstance(event, PlayerStood) and not event.automatic and event.total < 12:
                    hand = self._hand(event.box, event.hand)
                    split_ace = hand is not None and hand.split_aces
                    self.ensure(
                        split_ace,
                        "absent-rule-5.3",
                        f"{event.to_json()} after {command!r}: a hand played for its "
                        "player draws to 12 or more (RWS v5 5.3)",
                    )
        if game.phase is Phase.VOID and phase_before is not Phase.VOID:
            reason = game.void_reason or ""
            kind = (
                "foreign-card"
                if "foreign card" in reason
                else "excess-card"
                if "excess card" in reason
                else "shoe-exhausted"
                if "no card left" in reason
                else "interrupt"
                if isinstance(command, Interrupt)
                else "void-command"
                if isinstance(command, Void)
                else "other"
            )
            self.stats[f"void:{kind}"] += 1
            if kind == "foreign-card":
                self.ensure(
                    rules.cite_foreign_card in reason,
                    "void-cites-clause",
                    f"{reason!r} does not cite {rules.cite_foreign_card}",
                )
            if kind == "excess-card":
                self.ensure(
                    rules.cite_excess_card in reason,
                    "void-cites-clause",
                    f"{reason!r} does not cite {rules.cite_excess_card}",
                )

    def _hand(self, box_number: int, hand_number: int) -> Any:
        box = self.game.state.box(box_number)
        if box is None or not 1 <= hand_number <= len(box.hands):
            return None
        return box.hands[hand_number - 1]

    def check_state(self) -> None:
        """Invariants of the round between commands."""
        game = self.game
        awaiting = game.awaiting
        phase = game.phase
        self.ensure(
            (phase in OVER) == (awaiting is Awaiting.NOTHING),
            "awaiting-phase",
            f"phase {phase.value} awaiting {awaiting.value}",
        )
        self.ensure(
            (phase is Phase.BETTING) == (awaiting is Awaiting.BETS),
            "awaiting-phase",
            f"phase {phase.value} awaiting {awaiting.value}",
        )
        deciding = awaiting is Awaiting.DECISION
        self.ensure(
            deciding == (game.current_turn is not None) == bool(game.legal_actions()),
            "awaiting-decision",
            f"awaiting {awaiting.value}, turn {game.current_turn}, legal {game.legal_actions()}",
        )
        if deciding:
            legal = game.legal_actions()
            self.ensure(
                Action.HIT in legal or Action.STAND in legal,
                "no-way-on",
                f"legal actions {legal}",
            )
            box = game.state.boxes[game.state.cursor.box]
            self.ensure(
                box.seated not in self.absent,
                "absent-player-decides",
                f"box {box.number} waits for {box.seated}, who walked away",
            )
            hand = game.current_hand
            carries = dict(hand.stakes) if hand is not None else {}
            self.ensure(
                (box.seated, box.number) not in self.returned,
                "returned-player-decides",
                f"box {box.number} hand {game.current_turn} waits for a decision of "
                f"{box.seated}, whose bets on it were returned after a dealing error (RWS v5 "
                f"5.7.3); the hand carries {carries}",
            )
        self.ensure(
            (awaiting is Awaiting.ANSWERS) == bool(game.offers),
            "awaiting-answers",
            f"awaiting {awaiting.value} with offers {game.offers}",
        )
        for offer in game.offers:
            self.ensure(
                offer.player not in self.absent,
                "absent-player-offer",
                f"{offer} is open to {offer.player}, who walked away",
            )
            self.ensure(
                (offer.player, offer.box) not in self.returned,
                "returned-player-offer",
                f"{offer} is open to {offer.player}, whose bets on box {offer.box} were "
                "returned after a dealing error (RWS v5 5.7.3)",
            )
        if awaiting is Awaiting.CARD:
            self.ensure(
                self.setup.mode in ("hand", "entry"),
                "awaiting-card",
                f"a round dealing from {self.setup.mode} waits for a card",
            )
        if awaiting is Awaiting.SETTLEMENT:
            self.ensure(self.setup.settle_by_hand, "awaiting-settlement", "settlement not by hand")

    # -- snapshot, copy, pickle ------------------------------------------------------------

    def fork(self) -> None:
        """Take a snapshot (through JSON), a copy and a pickle of the round, to run them on."""
        self.forked = True
        self.record.fork_at = len(self.record.steps)
        game = self.game
        rules = self.rules
        try:
            snap = game.snapshot()
            text = json.dumps(snap)
        except Exception as error:
            raise fail("snapshot-json", _trace(error)) from error
        loaded = json.loads(text)
        self.ensure(
            loaded == snap, "snapshot-json", "the snapshot changes through json.dumps/loads"
        )
        try:
            restored = Round.restore(loaded, rules, copy.deepcopy(self.source))
        except Exception as error:
            raise fail("snapshot-restore", _trace(error)) from error
        copied = game.copy()
        try:
            pickled = pickle.loads(pickle.dumps(game))
        except Exception as error:
            raise fail("pickle", _trace(error)) from error
        for name, twin in (("restore", restored), ("copy", copied), ("pickle", pickled)):
            again = twin.snapshot()
            if again != snap:
                self.ensure(
                    False,
                    f"fork-{name}-snapshot",
                    f"{name} at step {self.record.fork_at} differs from the round: "
                    f"{_dict_difference(snap, again)}",
                )
            self.forks.append((name, twin))
        self.stats["forks"] += 1

    def _run_forks(self) -> None:
        steps = self.record.steps[self.record.fork_at :]
        final = self.game.snapshot()
        for name, twin in self.forks:
            for index, step in enumerate(steps, start=self.record.fork_at):
                try:
                    events = twin.apply(step.command)
                    error: str | None = None
                except CroupierError as exc:
                    events = ()
                    error = f"{type(exc).__name__}: {exc}"
                except Exception as exc:
                    raise fail(
                        f"fork-{name}-crash", f"step {index} {step.command!r}: {_trace(exc)}"
                    ) from exc
                got = _events_json(events)
                if (error is None) != step.accepted or got != step.events:
                    self.ensure(
                        False,
                        f"fork-{name}-diverged",
                        f"forked at step {self.record.fork_at}; step {index} "
                        f"{step.command!r}: round gave {step.events or step.error}, "
                        f"the {name} gave {got or error}",
                    )
            twin_final = twin.snapshot()
            if twin_final != final:
                self.ensure(
                    False,
                    f"fork-{name}-diverged",
                    f"forked at step {self.record.fork_at}: final states differ: "
                    f"{_dict_difference(final, twin_final)}",
                )
            self.ensure(
                twin.results == self.game.results,
                f"fork-{name}-diverged",
                "results differ",
            )

    # -- the end of the round ------------------------------------------------------------

    def finish(self) -> None:
        """Every check of a round that is over."""
        game = self.game
        self.ensure(game.phase in OVER, "round-not-over", f"phase {game.phase.value}")
        if not self.forked:
            self.fork()
        self.check_state()
        self.ensure(not game.offers and game.current_turn is None, "over-but-waiting", repr(game))
        self.record.cards_dealt = tuple(
            event.card for event in game.events if isinstance(event, CardDealt)
        )
        self._check_money()
        self._check_events_against_results()
        self._check_ledger()
        self._check_cards()
        self._check_rules_respected()
        if game.phase is Phase.SETTLED:
            self._check_settlement()
            self._check_dealer()
        else:
            self._check_void()
        self._check_returned()
        self._run_forks()
        self.stats[f"phase:{game.phase.value}"] += 1
        self.stats["checked"] += 1

    def _check_money(self) -> None:
        game = self.game
        unit = self.rules.currency_unit
        nets = game.net_by_player()
        total = sum(nets.values(), ZERO)
        self.ensure(
            total + game.house_net == 0, "unbalanced", f"players {nets}, house {game.house_net}"
        )
        self.ensure(
            game.house_net == -sum((r.net for r in game.results), ZERO),
            "unbalanced",
            "house net is not minus the results' nets",
        )
        keys = Counter((r.player, r.box, r.hand, r.bet) for r in game.results)
        duplicates = [key for key, count in keys.items() if count > 1]
        self.ensure(not duplicates, "stake-settled-twice", f"result rows {duplicates} appear twice")
        for result in game.results:
            for what in ("stake", "net"):
                value: Decimal = getattr(result, what)
                self.ensure(
                    value.as_tuple().exponent == unit.as_tuple().exponent,
                    "money-not-in-units",
                    f"{result.to_json()}: {what} {value} is not written in units of {unit}",
                )
            self.ensure(
                not (result.net == 0 and result.net.is_signed()),
                "negative-zero",
                f"{result.to_json()} prints a net of minus zero",
            )
            self.ensure(result.stake > 0, "result-stake", f"{result.to_json()}")
            self.ensure(result.net >= -result.stake, "lost-more-than-stake", f"{result.to_json()}")
        staked = {p: a for p, a in game.staked_by_player().items() if a}
        by_results: dict[str, Decimal] = {}
        for result in game.results:
            by_results[result.player] = by_results.get(result.player, ZERO) + result.stake
        self.ensure(
            staked == by_results,
            "stakes-vs-results",
            f"staked_by_player {staked} but the results' stakes add to {by_results}",
        )
        # Every stake in the round's state has exactly one result with that stake.
        state = game.state
        expected: Counter[tuple[str, int, int | None, str, Decimal]] = Counter()
        if state.boxes:
            for box in state.boxes:
                for placed in (*box.side_bets, *box.returned_side_bets):
                    expected[(placed.player, box.number, None, placed.bet, placed.amount)] += 1
                insured = {**box.insurance, **box.returned_insurance}
                self.ensure(
                    len(insured) == len(box.insurance) + len(box.returned_insurance),
                    "insurance-twice",
                    f"box {box.number}: insurance {box.insurance}, returned "
                    f"{box.returned_insurance}",
                )
                for player, amount in insured.items():
                    expected[(player, box.number, None, INSURANCE, amount)] += 1
                for hand in box.hands:
                    for wager in hand.wagers:
                        expected[(wager.player, box.number, hand.number, MAIN, wager.stake)] += 1
        else:
            for placed in state.bets:
                expected[(placed.player, placed.box, None, placed.bet, placed.amount)] += 1
        got = Counter((r.player, r.box, r.hand, r.bet, r.stake) for r in game.results)
        self.ensure(
            got == expected,
            "stake-not-settled-once",
            lambda: (
                f"stakes without one result: {sorted(map(str, expected - got))}; "
                f"results without a stake: {sorted(map(str, got - expected))}"
            ),
        )

    def _check_events_against_results(self) -> None:
        game = self.game
        events = game.events
        close_ids = {id(event) for event in self.close_returns}
        returned_events = Counter(
            (e.player, e.box, e.hand, e.bet, e.amount)
            for e in events
            if isinstance(e, BetReturned) and id(e) not in close_ids
        )
        returned_rows = Counter(
            (r.player, r.box, r.hand, r.bet, r.stake)
            for r in game.results
            if r.outcome in ("void", "returned")
        )
        self.ensure(
            returned_events == returned_rows,
            "bet-returned-vs-results",
            lambda: (
                f"BetReturned without a result: "
                f"{sorted(map(str, returned_events - returned_rows))}; returned results without "
                f"an event: {sorted(map(str, returned_rows - returned_events))}"
            ),
        )
        settled_events = Counter(
            (e.player, e.box, e.hand, e.bet, e.stake, e.net, e.outcome)
            for e in events
            if isinstance(e, BetSettled)
        )
        if game.phase is Phase.SETTLED:
            settled_rows = Counter(
                (r.player, r.box, r.hand, r.bet, r.stake, r.net, r.outcome)
                for r in game.results
                if r.outcome not in ("void", "returned")
            )
            self.ensure(
                settled_events == settled_rows,
                "bet-settled-vs-results",
                lambda: (
                    f"events without a result: "
                    f"{sorted(map(str, settled_events - settled_rows))}; results without an "
                    f"event: {sorted(map(str, settled_rows - settled_events))}"
                ),
            )
            finals = [e for e in events if isinstance(e, RoundSettled)]
            self.ensure(
                len(finals) == 1 and events[-1] is finals[0],
                "round-settled-event",
                f"{len(finals)} RoundSettled events; last event {events[-1]}",
            )
            self.ensure(
                finals[0].house_net == game.house_net,
                "round-settled-event",
                f"RoundSettled says {finals[0].house_net}, the round {game.house_net}",
            )
            self.ensure(
                not any(isinstance(e, RoundVoided) for e in events),
                "settled-and-void",
                "a settled round has a RoundVoided event",
            )

    def _check_ledger(self) -> None:
        """What each player put on the table, read from the events alone."""
        game = self.game
        close_ids = {id(event) for event in self.close_returns}
        ledger: dict[str, Decimal] = {}

        def add(player: str, amount: Decimal) -> None:
            ledger[player] = ledger.get(player, ZERO) + amount

        for event in game.events:
            if isinstance(event, BetPlaced):
                add(event.player, event.amount)
            elif isinstance(event, BetWithdrawn) or (
                isinstance(event, BetReturned) and id(event) in close_ids
            ):
                add(event.player, -event.amount)
            elif isinstance(
                event,
                InsuranceTaken | PlayerDoubledDown | DoubleFollowed | SplitFollowed | PlayerSplit,
            ):
                add(event.player, event.amount)
        ledger = {p: a for p, a in ledger.items() if a}
        staked = {p: a for p, a in game.staked_by_player().items() if a}
        self.ensure(
            ledger == staked,
            "ledger-vs-staked",
            f"the events put {ledger} on the table, staked_by_player says {staked}",
        )

    def _check_close(self) -> None:
        """ "No more bets" kept and returned what the limits say (RWS v5 5.1, 5.15, 3.13.2)."""
        rules = self.rules
        state = self.game.state
        expected_initial: dict[int, dict[str, Decimal]] = {}
        expected_sides: Counter[tuple[str, int, str, Decimal]] = Counter()
        returns: Counter[tuple[str, int, str, Decimal]] = Counter()
        boxes = sorted({box for _, box, bet, _ in self.bets_at_close if bet == MAIN})
        for number in boxes:
            seated = self.seated_at_close[number]
            mains = [b for b in self.bets_at_close if b[1] == number and b[2] == MAIN]
            mains.sort(key=lambda b: b[0] != seated)
            room = rules.maximum_bet
            initial: dict[str, Decimal] = {}
            for player, _, _, amount in mains:
                # Kept or returned whole, the seated player first (RWS v5 5.1).
                if amount > room:
                    returns[(player, number, MAIN, amount)] += 1
                    continue
                room -= amount
                initial[player] = amount
            expected_initial[number] = initial
            total = sum(initial.values(), ZERO)
            for player, _, bet, amount in self.bets_at_close:
                if bet == MAIN or _ != number:
                    continue
                kept = min(amount, total) if bet in ("under_13", "over_13") else amount
                if kept < amount:
                    returns[(player, number, bet, amount - kept)] += 1
                if rules.side_bet_needs_own_initial_bet and player not in initial:
                    returns[(player, number, bet, kept)] += 1
                else:
                    expected_sides[(player, number, bet, kept)] += 1
        for player, number, bet, amount in self.bets_at_close:
            if bet != MAIN and number not in boxes:
                returns[(player, number, bet, amount)] += 1
        got_initial = {box.number: dict(box.initial) for box in state.boxes}
        self.ensure(
            got_initial == expected_initial,
            "close-initial-bets",
            f"bets {self.bets_at_close}, seated {self.seated_at_close}: the boxes keep "
            f"{got_initial}, the limits keep {expected_initial}",
        )
        got_sides = Counter(
            (side.player, box.number, side.bet, side.amount)
            for box in state.boxes
            for side in box.side_bets
        )
        if state.side_bets_settled or state.phase is Phase.VOID:
            got_sides = expected_sides  # already settled or returned: see the results
        self.ensure(
            got_sides == expected_sides,
            "close-side-bets",
            f"bets {self.bets_at_close}: side bets kept {dict(got_sides)}, "
            f"expected {dict(expected_sides)}",
        )
        got_returns = Counter((e.player, e.box, e.bet, e.amount) for e in self.close_returns)
        self.ensure(
            got_returns == returns,
            "close-returns",
            f"bets {self.bets_at_close}: returned at No more bets {dict(got_returns)}, "
            f"expected {dict(returns)}",
        )

    def _check_side_bet(self, result: BetResult) -> None:
        """A side bet's outcome and payout, worked out again from the first cards."""
        rules = self.rules
        dealt = [e for e in self.game.events if isinstance(e, CardDealt)]
        first_two = [parse_card(e.card) for e in dealt if e.box == result.box and e.hand == 1][:2]
        ups = [parse_card(e.card) for e in dealt if e.box is None and e.face_up]
        what = f"{result.to_json()} on {[c.text for c in first_two]} against {ups[:1]}"
        if len(first_two) < 2 or not ups:
            raise fail("side-bet-cards", what)
        one, two = first_two
        up = ups[0]
        outcome, pays = _side_bet_expected(result.bet, rules, one, two, up)
        want = (
            payout(result.stake, pays, rules.currency_unit, rules.payout_rounding)
            if pays is not None
            else -result.stake
        )
        self.ensure(
            result.outcome == outcome and result.net == want,
            "side-bet-settlement",
            f"{what}: want {outcome} net {want}",
        )

    def _check_cards(self) -> None:
        """Every card taken from the source was dealt, and counted once by the check."""
        game = self.game
        dealt = sum(1 for event in game.events if isinstance(event, CardDealt))
        reason = game.void_reason or ""
        refused = 1 if ("foreign card" in reason or "excess card" in reason) else 0
        taken = game.state.check.taken - len(self.setup.prior)
        self.ensure(
            taken == dealt,
            "cards-counted",
            f"{dealt} cards dealt, the composition check counted {taken}",
        )
        source = self.source
        if isinstance(source, ShuffledShoe | FixedOrder):
            drawn = source.dealt
            self.ensure(
                drawn == dealt + (refused if isinstance(source, FixedOrder) else 0),
                "cards-drawn",
                f"{drawn} cards drawn from the shoe, {dealt} dealt (void: {reason or 'no'})",
            )

    def _check_rules_respected(self) -> None:
        """What the events did is within the table's rules and limits."""
        game = self.game
        rules = self.rules
        state = game.state
        boxes = {box.number: box for box in state.boxes}
        for box in state.boxes:
            total = sum(box.initial.values(), ZERO)
            self.ensure(
                rules.minimum_bet <= total <= rules.maximum_bet,
                "box-limits",
                f"box {box.number} carries {total} ({rules.minimum_bet}-{rules.maximum_bet})",
            )
            self.ensure(
                len(box.hands) <= rules.max_split_hands,
                "split-limit",
                f"box {box.number} has {len(box.hands)} hands",
            )
            for side in (*box.side_bets, *box.returned_side_bets):
                self.ensure(
                    rules.side_bet_maximum is None or side.amount <= rules.side_bet_maximum,
                    "side-bet-limit",
                    f"{side} over {rules.side_bet_maximum}",
                )
                if side.bet in ("under_13", "over_13"):
                    self.ensure(
                        side.amount <= total, "side-bet-limit", f"{side} over initial {total}"
                    )
                if rules.side_bet_needs_own_initial_bet:
                    self.ensure(
                        side.player in box.initial,
                        "side-bet-own-initial",
                        f"{side} without an initial bet of {side.player} on the box",
                    )
            if game.phase is Phase.SETTLED:
                for hand in box.hands:
                    where = f"box {box.number} hand {hand.number} {[c.text for c in hand.cards]}"
                    self.ensure(len(hand.cards) >= 2, "hand-cards", f"{where}: under 2 cards")
                    if hand.split_aces and not rules.hit_split_aces:
                        self.ensure(len(hand.cards) == 2, "split-aces-one-card", f"{where}: drew")
                    if hand.doubled:
                        self.ensure(len(hand.cards) == 3, "double-one-card", where)
        up = state.dealer_cards[0] if state.dealer_cards else None
        for event in game.events:
            if isinstance(event, InsuranceTaken):
                self.ensure(rules.insurance, "insurance-offered", str(event))
                initial = boxes[event.box].initial.get(event.player, ZERO)
                self.ensure(
                    ZERO < event.amount <= initial / 2,
                    "insurance-limit",
                    f"{event.to_json()}: initial bet {initial}",
                )
                self.ensure(
                    up is not None and up.points == 1,
                    "insurance-against-ace",
                    f"{event.to_json()} against {up}",
                )
            elif isinstance(event, EvenMoneyTaken):
                self.ensure(rules.even_money, "even-money-offered", str(event))
            elif isinstance(event, PlayerDoubledDown | DoubleFollowed):
                wager = boxes[event.box].hands[event.hand - 1].wager_of(event.player)
                initial = wager.initial if wager is not None else ZERO
                self.ensure(
                    ZERO < event.amount <= initial,
                    "double-limit",
                    f"{event.to_json()}: initial bet on the hand {initial}",
                )
                if isinstance(event, PlayerDoubledDown) and not rules.double_for_less:
                    self.ensure(event.amount == initial, "double-for-less", f"{event.to_json()}")
            elif isinstance(event, SplitFollowed):
                initial_bet = boxes[event.box].initial.get(event.player)
                self.ensure(
                    event.amount == initial_bet,
                    "split-follow-amount",
                    f"{event.to_json()}: initial {initial_bet}",
                )
            elif isinstance(event, PlayerSurrendered):
                self.ensure(
                    rules.surrender is not SurrenderRule.NONE, "surrender-offered", str(event)
                )

    def _check_void(self) -> None:
        game = self.game
        self.ensure(bool(game.void_reason), "void-reason", "a void round without a reason")
        for result in game.results:
            self.ensure(
                result.net == 0 and result.outcome in ("void", "returned"),
                "void-result",
                f"void round has result {result.to_json()}",
            )
        voids = [e for e in game.events if isinstance(e, RoundVoided)]
        self.ensure(len(voids) == 1, "void-event", f"{len(voids)} RoundVoided events")
        self.ensure(
            not any(isinstance(e, RoundSettled) for e in game.events),
            "settled-and-void",
            "a void round has a RoundSettled event",
        )

    def _check_returned(self) -> None:
        """Bets returned after a dealing error: returned once, never settled afterwards."""
        game = self.game
        for key, earlier in self.before_return.items():
            rows = [r for r in game.results if (r.player, r.box) == key]
            for row in rows:
                if (row.player, row.box, row.hand, row.bet) in earlier:
                    continue
                self.ensure(
                    row.outcome == "returned",
                    "returned-bet-settled",
                    f"{key[0]} had his bets on box {key[1]} returned (5.7.3), yet a later "
                    f"result is {row.to_json()}",
                )

    def _check_settlement(self) -> None:
        """Each result of a settled round agrees with the cards."""
        game = self.game
        rules = self.rules
        unit = rules.currency_unit
        rounding = rules.payout_rounding
        finished = [e for e in game.events if isinstance(e, DealerFinished)]
        self.ensure(len(finished) == 1, "dealer-finished", f"{len(finished)} DealerFinished events")
        dealer_bj = finished[-1].blackjack
        dealer_cards = list(game.dealer_cards)
        dealer, _ = _total(dealer_cards)
        self.ensure(
            dealer == finished[-1].total and dealer_bj == _is_blackjack(dealer_cards),
            "dealer-finished",
            f"{finished[-1].to_json()} but the dealer shows {[c.text for c in dealer_cards]}",
        )
        boxes = {box.number: box for box in game.state.boxes}
        lost_to_bj: dict[tuple[str, int], Decimal] = {}
        for result in game.results:
            what = f"{result.to_json()} against dealer {[c.text for c in dealer_cards]}"
            if result.outcome == "void":
                raise fail("void-in-settled-round", what)
            if result.bet == INSURANCE:
                if result.outcome == "returned":
                    continue
                want = (
                    payout(result.stake, rules.insurance_pays, unit, rounding)
                    if dealer_bj
                    else -result.stake
                )
                self.ensure(result.net == want, "insurance-settlement", f"{what}: want net {want}")
                continue
            if result.bet != MAIN:
                if result.outcome != "returned":
                    self._check_side_bet(result)
                continue
            box = boxes[result.box]
            hand = box.hands[(result.hand or 1) - 1]
            total, _ = _total(hand.cards)
            stake = result.stake
            outcome = result.outcome
            blackjack = hand.is_blackjack
            want_net: Decimal | None = None
            if outcome == "returned":
                self.ensure(
                    (result.player, result.box) in self.returned,
                    "returned-without-return",
                    what,
                )
                continue
            if outcome == "even-money":
                self.ensure(blackjack, "even-money", what)
                want_net = stake
            elif outcome == "blackjack":
                self.ensure(blackjack and not dealer_bj, "blackjack-outcome", what)
                want_net = payout(stake, rules.blackjack_pays, unit, rounding)
            elif outcome == "surrender":
                self.ensure(hand.surrendered, "surrender-outcome", what)
                want_net = quantize(stake / 2, unit, rounding) - stake
            elif outcome == "bust":
                self.ensure(total > 21, "bust-outcome", what)
                want_net = -stake
            elif outcome == "win":
                self.ensure(
                    total <= 21 and not dealer_bj and (dealer > 21 or total > dealer),
                    "win-outcome",
                    what,
                )
                want_net = payout(stake, rules.win_pays, unit, rounding)
            elif outcome == "lose":
                self.ensure(not dealer_bj and dealer <= 21 and total < dealer, "lose-outcome", what)
                want_net = -stake
            elif outcome == "stand-off":
                self.ensure(
                    (dealer_bj and blackjack)
                    or (not dealer_bj and not blackjack and total == dealer <= 21),
                    "stand-off-outcome",
                    what,
                )
                want_net = ZERO
            elif outcome == "dealer-blackjack":
                self.ensure(dealer_bj and not blackjack, "dealer-blackjack-outcome", what)
                self.ensure(-stake <= result.net <= 0, "dealer-blackjack-outcome", what)
                if rules.dealer_blackjack_takes is DealerBlackjackTakes.ALL or hand.surrendered:
                    want_net = -stake
                else:
                    key = (result.player, result.box)
                    lost_to_bj[key] = lost_to_bj.get(key, ZERO) - result.net
            else:
                raise fail("unknown-outcome", what)
            if want_net is not None:
                self.ensure(
                    result.net == want_net, f"{outcome}-net", f"{what}: want net {want_net}"
                )
            if outcome in ("win", "lose", "stand-off") and rules.must_draw_to_12:
                self.ensure(
                    total >= 12 or hand.doubled or hand.split_aces,
                    "must-draw-to-12",
                    f"{what}: the hand stood on {total} (RWS v5 3.19)",
                )
        for (player, number), lost in lost_to_bj.items():
            initial = boxes[number].initial.get(player, ZERO)
            self.ensure(
                lost <= initial,
                "dealer-blackjack-takes",
                f"{player} lost {lost} on box {number} to a dealer blackjack, more than his "
                f"initial bet {initial} ({rules.dealer_blackjack_takes.value})",
            )

    def _check_dealer(self) -> None:
        """The dealer drew while under 17 (soft 17 as the rules say) and only then."""
        game = self.game
        rules = self.rules
        cards = list(game.dealer_cards)
        for length in range(2, len(cards)):
            total, soft = _total(cards[:length])
            self.ensure(
                total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17),
                "dealer-drew-past-17",
                f"the dealer drew to {[c.text for c in cards]} after {total}",
            )
        if len(cards) >= 2 and not _is_blackjack(cards):
            total, soft = _total(cards)
            live = any(
                r.outcome in ("win", "lose", "stand-off") and r.bet == MAIN for r in game.results
            )
            if live:
                self.ensure(
                    total >= 17 and not (total == 17 and soft and rules.dealer_hits_soft_17),
                    "dealer-stood-short",
                    f"the dealer stood on {[c.text for c in cards]} with live hands",
                )


def _side_bet_expected(
    bet: str, rules: Rules, one: Card, two: Card, up: Card
) -> tuple[str, Fraction | None]:
    """What a side bet's cards make and its ratio to 1 (``None``: lost), from the pay tables."""
    if bet == "player_pair":
        return ("pair", rules.player_pair_pays) if one.rank is two.rank else ("nothing", None)
    if bet in ("under_13", "over_13"):
        points = one.points + two.points
        made = "under-13" if points < 13 else "over-13" if points > 13 else "thirteen"
        table = rules.under_13_pays if bet == "under_13" else rules.over_13_pays
        return made, table if made == bet.replace("_", "-") else None
    red = {"H", "D"}
    if bet == "perfect_pairs":
        tables = rules.perfect_pairs_pays or ()
        if one.rank is not two.rank:
            return "nothing", None
        if one.suit is two.suit:
            return "perfect-pair", tables[0]
        if (one.suit.value in red) == (two.suit.value in red):
            return "coloured-pair", tables[1]
        return "mixed-pair", tables[2]
    tables = rules.twenty_one_plus_three_pays or ()
    cards = (one, two, up)
    orders = sorted(card.rank.order for card in cards)
    flush = len({card.suit for card in cards}) == 1
    trips = len({card.rank for card in cards}) == 1
    straight = (orders[1] == orders[0] + 1 and orders[2] == orders[1] + 1) or orders == [1, 12, 13]
    if trips:
        return ("suited-trips", tables[0]) if flush else ("three-of-a-kind", tables[2])
    if straight:
        return ("straight-flush", tables[1]) if flush else ("straight", tables[3])
    if flush:
        return "flush", tables[4]
    return "nothing", None


def returns_of(command: ReturnBets) -> str:
    """The player whose bets a ReturnBets command returns."""
    return str(getattr(command, "who", None) or getattr(command, "player", ""))


def _total(cards: Sequence[Card]) -> tuple[int, bool]:
    hard = sum(card.points for card in cards)
    if any(card.points == 1 for card in cards) and hard <= 11:
        return hard + 10, True
    return hard, False


def _is_blackjack(cards: Sequence[Card]) -> bool:
    return len(cards) == 2 and _total(cards)[0] == 21


def _trace(error: BaseException) -> str:
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    return "".join(lines[-6:]).strip()


def _dict_difference(before: object, after: object, path: str = "") -> str:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            if before.get(key) != after.get(key):
                return _dict_difference(before.get(key), after.get(key), f"{path}.{key}")
        return "(equal)"
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (one, two) in enumerate(zip(before, after, strict=True)):
            if one != two:
                return _dict_difference(one, two, f"{path}[{index}]")
    text_before = json.dumps(before, default=str)[:300]
    text_after = json.dumps(after, default=str)[:300]
    return f"{path or '<root>'}: {text_before} -> {text_after}"


# -- the random table -------------------------------------------------------------------------


MAX_STEPS = 400


class RandomTable:
    """Chooses the commands of a round at random, legal and illegal ones."""

    def __init__(self, harness: Harness, rng: random.Random, deck: list[Card]) -> None:
        self.harness = harness
        self.game = harness.game
        self.rules = harness.rules
        self.rng = rng
        self.deck = deck
        self.prior = [parse_card(text) for text in harness.setup.prior]
        self.boxes: list[int] = []
        self.bettors: list[str] = []
        self.unit = self.rules.currency_unit
        #: A crowded table: more players on each box, more irregularities.
        self.crowded = rng.random() < 0.3
        self.irregular = 0.12 if self.crowded else 0.06

    # -- amounts -----------------------------------------------------------------------------

    def _cents(self, low: Decimal, high: Decimal) -> Decimal:
        units_low = int(low / self.unit)
        units_high = max(units_low, int(high / self.unit))
        return Decimal(self.rng.randint(units_low, units_high)) * self.unit

    def bet_amount(self) -> Decimal:
        rules = self.rules
        rng = self.rng
        low, high = rules.minimum_bet, rules.maximum_bet
        roll = rng.random()
        if roll < 0.25:
            return low
        if roll < 0.5:
            return low * rng.randint(2, 8)
        if roll < 0.62:
            return self._cents(low, min(high, low * 40))
        if roll < 0.68:
            return high
        if roll < 0.72:
            return high - low
        if roll < 0.76:
            return high + self.unit
        if roll < 0.81:
            return max(self.unit, low - self.unit)
        if roll < 0.84:
            return self.unit
        return rng.choice(
            [
                ZERO,
                Decimal("-25"),
                Decimal("10.005"),
                Decimal("NaN"),
                Decimal("Infinity"),
                Decimal("1E+7"),
                Decimal("0.001"),
            ]
        )

    def side_amount(self, box: int) -> Decimal:
        rules = self.rules
        rng = self.rng
        roll = rng.random()
        maximum = rules.side_bet_maximum
        if roll < 0.55:
            return Decimal(rng.choice(["1", "5", "10", "25"]))
        if roll < 0.7 and maximum is not None:
            return maximum
        if roll < 0.78 and maximum is not None:
            return maximum + self.unit
        if roll < 0.9:
            placed = sum(
                (bet.amount for bet in self.game.placed_bets if bet.box == box and bet.bet == MAIN),
                ZERO,
            )
            return placed + self.unit if placed else Decimal("5")
        return rng.choice([ZERO, Decimal("-5"), Decimal("2.999")])

    def any_amount(self) -> Decimal | None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.3:
            return None
        base = self.rules.minimum_bet
        return rng.choice(
            [
                self.unit,
                base,
                base / 2,
                base * 2,
                base * 400,
                ZERO,
                Decimal("-1"),
                Decimal("0.001"),
                self._cents(self.unit, base * 4),
            ]
        )

    # -- betting -----------------------------------------------------------------------------

    def betting(self) -> None:
        rules = self.rules
        rng = self.rng
        harness = self.harness
        count = rng.randint(1, min(3, rules.boxes))
        self.boxes = rng.sample(range(1, rules.boxes + 1), count)
        offered = [side.value for side in rules.side_bets_offered()]
        commands: list[Command] = []
        for box in self.boxes:
            players = rng.sample(PLAYERS, rng.randint(2, 4) if self.crowded else rng.randint(1, 3))
            for player in players:
                commands.append(PlaceBet(player, box, self.bet_amount()))
                if rng.random() < 0.15:
                    commands.append(PlaceBet(player, box, self.bet_amount()))
                for side in offered:
                    if rng.random() < 0.25:
                        commands.append(PlaceBet(player, box, self.side_amount(box), side))
            if offered and rng.random() < 0.1:
                # A side bet by a player with no initial bet of his own on the box.
                outsider = rng.choice([p for p in PLAYERS if p not in players] or [STRANGER])
                commands.append(PlaceBet(outsider, box, self.side_amount(box), rng.choice(offered)))
        if offered and rng.random() < 0.1:
            # A side bet on a box with no initial bet: returned at "No more bets" (5.15).
            empty = [b for b in range(1, rules.boxes + 1) if b not in self.boxes]
            if empty:
                commands.insert(
                    rng.randrange(len(commands) + 1),
                    PlaceBet(
                        rng.choice(PLAYERS), rng.choice(empty), Decimal("5"), rng.choice(offered)
                    ),
                )
        if rng.random() < 0.1:
            commands.append(
                PlaceBet(
                    rng.choice(PLAYERS),
                    rng.choice(self.boxes),
                    Decimal("5"),
                    rng.choice(["perfect_pairs", "21+3", "player_pair", "under_13", "bogus"]),
                )
            )
        if rng.random() < 0.1:
            commands.append(
                PlaceBet(
                    rng.choice(PLAYERS), rng.choice([0, rules.boxes + 1, -1]), rules.minimum_bet
                )
            )
        for command in commands:
            harness.apply(command)
            if rng.random() < 0.08:
                self.withdraw()
            if rng.random() < 0.05:
                harness.apply(self.anything())
            if self.game.phase is not Phase.BETTING:
                return
        if rng.random() < 0.01:
            # An interruption or a void before the deal.
            harness.apply(rng.choice([Interrupt(), Void("void before the deal")]))
            return
        if harness.apply(CloseBets()) or self.game.phase is not Phase.BETTING:
            return
        # Bets cannot close yet: raise the boxes under the minimum (5.2), then close.
        game = self.game
        if not any(bet.bet == MAIN for bet in game.placed_bets):
            harness.apply(PlaceBet(PLAYERS[0], self.boxes[0], rules.minimum_bet))
        for box in sorted({bet.box for bet in game.placed_bets if bet.bet == MAIN}):
            total = sum(
                (b.amount for b in game.placed_bets if b.box == box and b.bet == MAIN), ZERO
            )
            seated = game.seated_player(box)
            if total < rules.minimum_bet and seated is not None:
                harness.apply(PlaceBet(seated, box, rules.minimum_bet - total))
        ensure(
            harness.apply(CloseBets()),
            "close-bets",
            lambda: f"bets could not close after fix-up: {harness.record.steps[-1].error}",
        )

    def withdraw(self) -> None:
        placed = self.game.placed_bets
        rng = self.rng
        if placed and rng.random() < 0.8:
            bet = rng.choice(placed)
            self.harness.apply(Withdraw(bet.player, bet.box, bet.bet))
        else:
            self.harness.apply(
                Withdraw(rng.choice(PLAYERS), rng.randint(0, self.rules.boxes + 1), MAIN)
            )

    # -- playing -----------------------------------------------------------------------------

    def play(self) -> None:
        harness = self.harness
        self.bettors = sorted({bet.player for bet in self.game.placed_bets}) or list(PLAYERS)
        self.boxes = sorted({box.number for box in self.game.state.boxes}) or self.boxes
        steps = 0
        while not harness.over:
            steps += 1
            ensure(
                steps <= MAX_STEPS,
                "round-never-ends",
                f"still {self.game.phase.value} awaiting {self.game.awaiting.value} after "
                f"{MAX_STEPS} commands",
            )
            roll = self.rng.random()
            if roll < self.irregular:
                command = self.irregularity()
            elif roll < self.irregular + 0.22:
                command = self.anything()
            elif roll < self.irregular + 0.3:
                command = self.targeted_illegal()
            else:
                command = self.progress()
            harness.apply(self.avoid_known(command))
        for _ in range(self.rng.randint(0, 2)):
            harness.apply(self.rng.choice([self.anything(), self.irregularity()]))

    def avoid_known(self, command: Command) -> Command:
        """With ``returned-player-offer`` tolerated, decline what a returned player is offered."""
        harness = self.harness
        game = self.game
        turn = game.current_turn
        if (
            "returned-player-decides" in harness.tolerate
            and turn is not None
            and (game.seated_player(turn[0]), turn[0]) in harness.returned
            and isinstance(command, DoubleDown | Split)
        ):
            return Hit() if Action.HIT in game.legal_actions() else Stand()
        if "returned-player-offer" not in harness.tolerate or not game.offers:
            return command
        kinds = {
            TakeInsurance: (OfferKind.INSURANCE,),
            TakeEvenMoney: (OfferKind.EVEN_MONEY,),
            Follow: (OfferKind.FOLLOW_SPLIT, OfferKind.FOLLOW_DOUBLE),
            Surrender: (OfferKind.SURRENDER,),
        }.get(type(command))
        if kinds is None:
            return command
        player = getattr(command, "player", None)
        box = getattr(command, "box", None)
        for offer in self.game.offers:
            if (
                offer.kind in kinds
                and (player is None or offer.player == player)
                and (box is None or offer.box == box)
            ):
                if (offer.player, offer.box) in harness.returned:
                    return Decline(offer.player, offer.box, offer.kind)
                break
        return command

    def _player(self, *, none: bool = False) -> str | None:
        rng = self.rng
        pool: list[str | None] = [*self.bettors, *self.bettors, STRANGER, *PLAYERS]
        if none:
            pool.append(None)
        return rng.choice(pool)

    def _some_player(self) -> str:
        return self.rng.choice([*self.bettors, *self.bettors, STRANGER])

    def _box(self) -> int:
        rng = self.rng
        if rng.random() < 0.85 and self.boxes:
            return rng.choice(self.boxes)
        return rng.randint(0, self.rules.boxes + 1)

    def _card_text(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.02:
            return "JK"
        if roll < 0.04 and self.prior:
            return rng.choice(self.prior).text
        if roll < 0.05:
            return rng.choice(["ZZ", "", "1S", "as", "10h", "T"])
        if self.deck:
            return self.deck.pop().text
        return rng.choice(full_deck()).text

    def progress(self) -> Command:
        """A command the round is waiting for (mostly accepted)."""
        game = self.game
        rng = self.rng
        awaiting = game.awaiting
        if awaiting is Awaiting.DECISION:
            action = rng.choice(game.legal_actions())
            seated = game.seated_player(game.current_turn[0]) if game.current_turn else None
            player = rng.choice([None, seated])
            if action is Action.HIT:
                return Hit(player)
            if action is Action.STAND:
                return Stand(player)
            if action is Action.SPLIT:
                return Split(player)
            if action is Action.SURRENDER:
                return Surrender(player)
            amount: Decimal | None = None
            hand = game.current_hand
            if hand is not None and seated is not None and rng.random() < 0.4:
                own = dict(hand.stakes).get(seated, ZERO)
                if self.rules.double_for_less and own > self.unit and rng.random() < 0.6:
                    amount = self._cents(self.unit, own)
                else:
                    amount = own
            return DoubleDown(player, amount)
        if awaiting is Awaiting.ANSWERS:
            offer = rng.choice(game.offers)
            decline = 0.75 if offer.kind is OfferKind.SURRENDER else 0.45
            if rng.random() < decline:
                return Decline(offer.player, offer.box, rng.choice([offer.kind, None]))
            if offer.kind is OfferKind.INSURANCE:
                limit = offer.amount or ZERO
                choice: Decimal | None = None
                roll = rng.random()
                if roll < 0.3:
                    choice = limit
                elif roll < 0.5 and self.rules.insurance_for_less and limit > self.unit:
                    choice = self._cents(self.unit, limit)
                return TakeInsurance(offer.player, offer.box, choice)
            if offer.kind is OfferKind.EVEN_MONEY:
                return TakeEvenMoney(offer.player, offer.box)
            if offer.kind is OfferKind.SURRENDER:
                return Surrender(rng.choice([offer.player, None]), rng.choice([offer.box, None]))
            return Follow(offer.player, offer.box)
        if awaiting is Awaiting.CARD:
            return DealCard(self._card_text())
        if awaiting is Awaiting.SETTLEMENT:
            return Settle()
        raise fail(
            "stuck",
            f"phase {game.phase.value} awaits {awaiting.value}: nothing can move the round",
        )

    def targeted_illegal(self) -> Command:
        """A command close to a legal one, but wrong."""
        game = self.game
        rng = self.rng
        awaiting = game.awaiting
        if awaiting is Awaiting.DECISION and game.current_turn is not None:
            seated = game.seated_player(game.current_turn[0])
            others = [p for p in [*self.bettors, *PLAYERS, STRANGER] if p != seated]
            roll = rng.random()
            if roll < 0.4:
                # The wrong player decides.
                who = rng.choice(others)
                return rng.choice([Hit(who), Stand(who), DoubleDown(who), Split(who)])
            missing = [a for a in Action if a not in game.legal_actions()]
            if missing and roll < 0.8:
                action = rng.choice(missing)
                return {
                    Action.HIT: Hit(),
                    Action.STAND: Stand(),
                    Action.DOUBLE: DoubleDown(),
                    Action.SPLIT: Split(),
                    Action.SURRENDER: Surrender(),
                }[action]
            hand = game.current_hand
            own = dict(hand.stakes).get(seated or "", ZERO) if hand else ZERO
            return DoubleDown(seated, rng.choice([own + self.unit, own * 2, ZERO, -own]))
        if awaiting is Awaiting.ANSWERS:
            offer = rng.choice(game.offers)
            roll = rng.random()
            if offer.kind is OfferKind.INSURANCE and roll < 0.4:
                limit = offer.amount or ZERO
                return TakeInsurance(offer.player, offer.box, limit + self.unit)
            if roll < 0.6:
                kinds = [kind for kind in OfferKind if kind is not offer.kind]
                return Decline(offer.player, offer.box, rng.choice(kinds))
            if roll < 0.8:
                other = rng.choice([p for p in [*PLAYERS, STRANGER] if p != offer.player])
                return rng.choice(
                    [
                        Decline(other, offer.box, offer.kind),
                        Follow(other, offer.box),
                        TakeInsurance(other, offer.box),
                    ]
                )
            return rng.choice([Hit(), Stand(), DealCard(self._card_text()), Settle()])
        if awaiting is Awaiting.CARD:
            return rng.choice([Hit(), Stand(), Settle(), Follow(self._some_player(), 1)])
        return rng.choice([DealCard("AS"), Hit(), CloseBets(), Settle()])

    def anything(self) -> Command:
        """Any command at all, with random arguments."""
        rng = self.rng
        kinds = [
            OfferKind.INSURANCE,
            OfferKind.SURRENDER,
            OfferKind.EVEN_MONEY,
            OfferKind.FOLLOW_SPLIT,
            OfferKind.FOLLOW_DOUBLE,
            None,
        ]
        choice = rng.randrange(17)
        if choice == 0:
            return Hit(self._player(none=True))
        if choice == 1:
            return Stand(self._player(none=True))
        if choice == 2:
            return DoubleDown(self._player(none=True), self.any_amount())
        if choice == 3:
            return Split(self._player(none=True))
        if choice == 4:
            return Surrender(self._player(none=True), rng.choice([None, self._box()]))
        if choice == 5:
            return TakeInsurance(self._some_player(), self._box(), self.any_amount())
        if choice == 6:
            return TakeEvenMoney(self._some_player(), self._box())
        if choice == 7:
            return Follow(self._some_player(), self._box())
        if choice == 8:
            return Decline(self._some_player(), self._box(), rng.choice(kinds))
        if choice == 9:
            return DealCard(self._card_text() if rng.random() < 0.5 else "KH")
        if choice == 10:
            return Settle()
        if choice == 11:
            return CloseBets()
        if choice == 12:
            return PlaceBet(self._some_player(), self._box(), self.bet_amount())
        if choice == 13:
            return Withdraw(self._some_player(), self._box(), MAIN)
        if choice == 14:
            return TimeOut()
        if choice == 15:
            return ReturnBets(self._some_player(), self._box())
        return WalkAway(STRANGER)

    def irregularity(self) -> Command:
        rng = self.rng
        roll = rng.random()
        if roll < 0.3:
            return TimeOut()
        if roll < 0.5:
            return WalkAway(self._some_player())
        if roll < 0.8:
            return ReturnBets(self._some_player(), self._box())
        if roll < 0.92:
            return Interrupt()
        return Void(rng.choice(["dealing error that cannot be reconstructed", "", "   "]))


def _deck(rules: Rules, rng: random.Random, prior: Sequence[str]) -> list[Card]:
    deck = full_deck() * rules.decks
    for text in prior:
        deck.remove(parse_card(text))
    rng.shuffle(deck)
    return deck


def choose_setup(
    preset: str, rng: random.Random, mode: Mode | None = None
) -> tuple[Setup, list[Card]]:
    """A random table: mostly a seeded shoe, sometimes a dealer's hand or a short order."""
    rules = find_rules(preset)
    roll = rng.random()
    if mode is not None:
        roll = {"shoe": 0.0, "fixed": 0.75, "hand": 0.8, "entry": 0.99}[mode]
    settle_by_hand = rng.random() < 0.08
    if roll < 0.72:
        return Setup(preset, "shoe", settle_by_hand, shoe_seed=rng.getrandbits(48)), []
    if roll < 0.78:
        cards = full_deck() * rules.decks
        rng.shuffle(cards)
        short = tuple(card.text for card in cards[: rng.randint(2, 14)])
        return Setup(preset, "fixed", settle_by_hand, cards=short), []
    prior: tuple[str, ...] = ()
    if rng.random() < 0.4:
        # The shoe already dealt every copy of a card or two in earlier rounds.
        chosen = rng.sample(full_deck(), rng.randint(1, 2))
        prior = tuple(card.text for card in chosen for _ in range(rules.decks))
    by_hand: Mode = "hand" if roll < 0.94 else "entry"
    return Setup(preset, by_hand, settle_by_hand, prior=prior), _deck(rules, rng, prior)


def play_random_round(
    preset: str,
    rng: random.Random,
    *,
    deep: bool = True,
    mode: Mode | None = None,
    tolerate: frozenset[str] = frozenset(),
) -> RoundRecord:
    """Play one random round of ``preset`` and check it; a failure is kept on the record.

    ``mode`` forces where the cards come from (see :class:`Setup`); ``deep`` compares
    the whole snapshot around every refused command.  ``tolerate`` names checks that
    only count their failures (a known defect), so that rounds go on to find others;
    with ``returned-player-offer`` tolerated, no offer to a player whose bets were
    returned is ever accepted.
    """
    setup, deck = choose_setup(preset, rng, mode)
    fork_at = rng.choice([0, 1, rng.randint(2, 12), rng.randint(5, 40), rng.randint(5, 40)])
    harness = Harness(setup, fork_at, deep=deep, tolerate=tolerate)
    table = RandomTable(harness, rng, deck)
    record = harness.record
    try:
        table.betting()
        if not harness.over:
            table.play()
        harness.finish()
    except CheckFailed as failure:
        record.failure = failure
    except Exception as error:
        record.failure = fail("driver-error", _trace(error))
    record.cards_dealt = tuple(
        event.card for event in harness.game.events if isinstance(event, CardDealt)
    )
    record.stats["rounds"] += 1
    record.stats[f"mode:{setup.mode}"] += 1
    record.stats["crowded"] += table.crowded
    return record


# -- replay and shrinking ----------------------------------------------------------------------


def replay(
    setup: Setup,
    commands: Sequence[Command],
    fork_at: int,
    *,
    deep: bool = True,
    tolerate: frozenset[str] = frozenset(),
) -> tuple[CheckFailed | None, Harness]:
    """Play recorded commands again with every check; the failure found, if any.

    Commands after the round is over are applied too (they must all be refused).
    """
    harness = Harness(setup, fork_at, deep=deep, tolerate=tolerate)
    try:
        for command in commands:
            harness.apply(command)
        if harness.over:
            harness.finish()
        return None, harness
    except CheckFailed as failure:
        return failure, harness
    except Exception as error:
        return fail("crash", _trace(error)), harness


def fixed_setup(record: RoundRecord) -> Setup:
    """The setup of a recorded round with a shoe replaced by the cards it dealt."""
    if record.setup.mode == "shoe":
        return replace(record.setup, mode="fixed", shoe_seed=None, cards=record.cards_dealt)
    return record.setup


def shrink(
    setup: Setup,
    commands: Sequence[Command],
    fork_at: int,
    check: str,
    *,
    budget: int = 400,
    tolerate: frozenset[str] = frozenset(),
) -> tuple[Setup, list[Command], int]:
    """Cut a failing round down: fewer commands, fewer cards, an early fork, same failure."""
    current = list(commands)
    tries = 0

    def fails(candidate_setup: Setup, candidate: list[Command], fork: int) -> bool:
        nonlocal tries
        tries += 1
        failure, _ = replay(candidate_setup, candidate, fork, tolerate=tolerate)
        return failure is not None and failure.check == check

    if not fails(setup, current, fork_at):
        return setup, current, fork_at
    chunk = max(1, len(current) // 2)
    while chunk >= 1 and tries < budget:
        index = 0
        changed = False
        while index < len(current) and tries < budget:
            candidate = current[:index] + current[index + chunk :]
            fork = min(fork_at, len(candidate))
            if candidate and fails(setup, candidate, fork):
                current = candidate
                fork_at = fork
                changed = True
            else:
                index += chunk
        if not changed:
            chunk //= 2
    for fork in range(0, fork_at):
        if tries >= budget:
            break
        if fails(setup, current, fork):
            fork_at = fork
            break
    if setup.mode == "fixed":
        # Only the cards the shortened round deals.
        _, harness = replay(setup, current, fork_at)
        source = harness.source
        if isinstance(source, FixedOrder):
            trimmed = replace(setup, cards=setup.cards[: source.dealt])
            if fails(trimmed, current, fork_at):
                setup = trimmed
    if setup.prior:
        for text in sorted(set(setup.prior)):
            fewer = replace(setup, prior=tuple(p for p in setup.prior if p != text))
            if tries < budget and fails(fewer, current, fork_at):
                setup = fewer
    if setup.settle_by_hand and fails(replace(setup, settle_by_hand=False), current, fork_at):
        setup = replace(setup, settle_by_hand=False)
    return setup, current, fork_at


def describe_repro(setup: Setup, commands: Sequence[Command], fork_at: int) -> str:
    """A reproduction as text: the preset, the card source and the commands, in order."""
    if setup.mode == "fixed":
        source = f'FixedOrder("{" ".join(setup.cards)}")'
    elif setup.mode == "shoe":
        decks = find_rules(setup.preset).decks
        source = f"ShuffledShoe({decks}, seed={setup.shoe_seed}, lazy=True)"
    elif setup.mode == "entry":
        source = "DealerEntry()"
    else:
        source = "None  # every card by DealCard"
    lines = [f"rules = find_rules({setup.preset!r})", f"source = {source}"]
    if setup.prior:
        lines.append(
            f"check: CompositionCheck({find_rules(setup.preset).decks}) already holds "
            f"{' '.join(sorted(set(setup.prior)))} (every copy)"
        )
    if setup.settle_by_hand:
        lines.append("automation = Automation.DEALING  # settlement waits for Settle()")
    lines.append(f"snapshot/copy/pickle taken before command {fork_at}")
    for index, command in enumerate(commands):
        lines.append(f"  {index:3d}. {command!r}")
    return "\n".join(lines)


def count_irregularities(stats: Counter[str]) -> dict[str, int]:
    """The irregularities exercised, by name."""
    return {
        key: value
        for key, value in sorted(stats.items())
        if key.startswith(("irregularity:", "void:", "interrupt:"))
    }
