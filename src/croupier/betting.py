"""Bets while bets are open, and "No more bets".

A bet is checked against the table's limits as it is placed: an initial bet behind
another player's box only where the table takes bets behind (``bets_behind``, RWS v5
1.26), the box maximum on the box's initial bets, the side bet maximum, and Under 13
or Over 13 no more than the box's initial bet (RWS v5 3.13.2).  Closing bets needs an
initial bet; a box under the table minimum keeps bets open until it is raised or
withdrawn (RWS v5 5.2).  Closing returns side bets without an initial bet on their box
(5.15), then the deal starts.

The box maximum (RWS v5 5.1, "the House shall reject the excess Bets"; 3.5, "the
Player [shall] place the Bet within the permissible minimum and maximum limits") is
read one way for every player: a bet is taken or rejected whole, never cut.  The
seated player has the priority, so his own bets are held to the maximum alone, and a
bet behind him is refused when the box could not take it whole.  A bet behind that a
later raise of the seated player leaves no room for is returned whole at "No more
bets", the bets behind kept in the order they were placed.
"""

from __future__ import annotations

from decimal import Decimal

from croupier.errors import BetError, IllegalActionError
from croupier.events import BetPlaced, BetReturned, BetsClosed, BetWithdrawn
from croupier.money import parse_amount
from croupier.round_state import MAIN, ZERO, Box, Hand, Phase, PlacedBet, RoundState, Step, Wager
from croupier.rules import SideBet

__all__ = [
    "close_bets",
    "place_bet",
    "verify_close_bets",
    "verify_place_bet",
    "verify_withdraw",
    "withdraw",
]

_UNDER_OVER = (SideBet.UNDER_13.value, SideBet.OVER_13.value)
# Enum members as module names: on Python 3.11 reading a member off its class goes
# through EnumType.__getattr__'s slow hook (about 70 ns), and a round reads dozens.
_BETTING = Phase.BETTING
_DEALING = Phase.DEALING
_INITIAL_DEAL = Step.INITIAL_DEAL


def _require_betting(state: RoundState, what: str) -> None:
    if state.phase is not _BETTING:
        raise BetError(
            f"cannot {what}: no more bets ({state.rules.cite_no_more_bets}) "
            f"(phase={state.phase.value})"
        )


def _placed(state: RoundState, player: str, box: int, bet: str) -> Decimal:
    placed = state.bets.find(player, box, bet)
    return ZERO if placed is None else placed.amount


def box_totals(state: RoundState) -> dict[int, Decimal]:
    """Each box's initial bets, added up (every player on it), as the layout keeps them."""
    return state.bets.initial_totals()


def short_of_minimum(state: RoundState) -> dict[int, Decimal]:
    """The boxes whose initial bets fall short of the table minimum, with their totals
    (RWS v5 5.2: the minimum must be met before the deal)."""
    minimum = state.rules.minimum_bet
    return {box: total for box, total in sorted(box_totals(state).items()) if total < minimum}


def verify_place_bet(
    state: RoundState, player: object, box: object, amount: object, bet: object
) -> Decimal:
    """Check a bet; returns its exact amount or raises :class:`BetError`."""
    _require_betting(state, "place a bet")
    rules = state.rules
    if not isinstance(player, str) or not player.strip():
        raise BetError(f"cannot place a bet: player name {player!r} is empty")
    if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= rules.boxes:
        raise BetError(
            f"cannot place a bet: box {box!r} is not on this table (boxes 1-{rules.boxes})"
        )
    if not isinstance(bet, str):
        raise BetError(f"cannot place a bet: {bet!r} is not a bet")
    value = parse_amount(amount, rules.currency_unit, what=f"{bet} bet")
    if bet == MAIN:
        _check_initial_bet(state, player, box, value)
        return value
    offered = {side.value for side in rules.side_bets_offered()}
    if bet not in offered:
        names = ", ".join(sorted(offered)) or "none"
        raise BetError(
            f"cannot place a bet: side bet {bet!r} is not offered at {rules.name} "
            f"(offered: {names})"
        )
    own = _placed(state, player, box, bet) + value
    if rules.side_bet_maximum is not None and own > rules.side_bet_maximum:
        raise BetError(
            f"cannot place a bet: {bet} bet of {own} is over the side bet maximum "
            f"{rules.side_bet_maximum}"
        )
    if bet in _UNDER_OVER:
        initial = state.bets.initial_on(box)
        if initial and own > initial:
            raise BetError(
                f"cannot place a bet: {bet} bet of {own} is over box {box}'s initial bet "
                f"{initial} (RWS v5 3.13.2)"
            )
    return value


def _check_initial_bet(state: RoundState, player: str, box: int, value: Decimal) -> None:
    """An initial bet: behind a seated player only where the table takes bets behind
    (RWS v5 1.26); whole within the box maximum, the seated player first (5.1, 3.5)."""
    rules = state.rules
    seated = state.seated.get(box)
    if seated is not None and seated != player and not rules.bets_behind:
        raise BetError(
            f"cannot place a bet: box {box} is {seated}'s; {rules.name} takes no bets "
            "behind a seated player"
        )
    own = _placed(state, player, box, MAIN) + value
    if own > rules.maximum_bet:
        raise BetError(
            f"cannot place a bet: {player}'s bet of {own} on box {box} is over the "
            f"table maximum {rules.maximum_bet}"
        )
    if seated is None or seated == player:
        # The seated player has the priority (5.1): the bets behind him do not count.
        return
    total = state.bets.initial_on(box) + value
    if total > rules.maximum_bet:
        room = rules.maximum_bet - (total - own)
        raise BetError(
            f"cannot place a bet: box {box} would carry {total}, over the table maximum "
            f"{rules.maximum_bet}; a bet behind {seated} may take it to {room} at most "
            f"({rules.cite_box_maximum})"
        )


def place_bet(state: RoundState, player: str, box: int, value: Decimal, bet: str) -> None:
    """Place (or add to) a checked bet.  The first initial bet on a box seats its player."""
    seated = False
    if bet == MAIN and box not in state.seated:
        state.seated[box] = player
        seated = True
    state.bets.add(player, box, bet, value)
    state.events.append(BetPlaced(player=player, box=box, bet=bet, amount=value, seated=seated))


def verify_withdraw(state: RoundState, player: str, box: int, bet: str) -> PlacedBet:
    """The bet a withdrawal takes back, or :class:`BetError`."""
    _require_betting(state, "withdraw a bet")
    placed = state.bets.find(player, box, bet)
    if placed is not None:
        return placed
    raise BetError(f"cannot withdraw a bet: {player} has no {bet} bet on box {box}")


def withdraw(state: RoundState, placed: PlacedBet) -> None:
    """Take a bet back while bets are open; a seat passes to the next bettor on the box."""
    state.bets.remove(placed)
    box = placed.box
    if placed.bet == MAIN and state.seated.get(box) == placed.player:
        del state.seated[box]
        for other in state.bets:
            if other.box == box and other.bet == MAIN:
                state.seated[box] = other.player
                break
    state.events.append(
        BetWithdrawn(player=placed.player, box=box, bet=placed.bet, amount=placed.amount)
    )


def verify_close_bets(state: RoundState) -> None:
    """Check that bets can close: some initial bet must be on the table."""
    if state.phase is not _BETTING:
        raise IllegalActionError(f"cannot close bets: they are closed (phase={state.phase.value})")
    totals = box_totals(state)
    if not totals:
        raise BetError("cannot close bets: no initial bet has been placed")
    rules = state.rules
    minimum = rules.minimum_bet
    for box in sorted(state.seated):
        total = totals.get(box, ZERO)
        if total < minimum:
            raise BetError(
                f"cannot close bets: box {box} carries {total}, under the table minimum "
                f"{rules.minimum_bet}; raise or withdraw it ({rules.cite_box_minimum})"
            )


def close_bets(state: RoundState) -> None:
    """ "No more bets": boxes under the minimum and excess are returned, then the deal."""
    state.events.append(BetsClosed())
    state.phase = _DEALING
    for number in sorted(state.seated):
        state.boxes.append(_close_box(state, number))
    _return_orphan_side_bets(state)
    cursor = state.cursor
    cursor.step = _INITIAL_DEAL
    cursor.card = 0


def _close_box(state: RoundState, number: int) -> Box:
    rules = state.rules
    seated = state.seated[number]
    mains = [placed for placed in state.bets if placed.box == number and placed.bet == MAIN]
    if len(mains) > 1:
        mains.sort(key=lambda placed: placed.player != seated)  # seated first, then as placed
    room = rules.maximum_bet
    initial: dict[str, Decimal] = {}
    for placed in mains:
        # A bet is kept or rejected whole (5.1: "the House shall reject the excess
        # Bets"): a bet behind that a later raise of the seated player's left no room
        # for comes back in full.
        if placed.amount > room:
            _give_back(
                state, placed, placed.amount, f"over the box maximum ({rules.cite_box_maximum})"
            )
            continue
        room -= placed.amount
        initial[placed.player] = placed.amount
    box_initial = sum(initial.values(), ZERO)
    side_bets: list[PlacedBet] = []
    for placed in state.bets:
        if placed.box != number or placed.bet == MAIN:
            continue
        kept = placed.amount
        if placed.bet in _UNDER_OVER:
            kept = min(kept, box_initial)
        if kept < placed.amount:
            _give_back(
                state, placed, placed.amount - kept, "over the box's initial bet (RWS v5 3.13.2)"
            )
        side_bets.append(PlacedBet(placed.player, number, placed.bet, kept))
    wagers = [Wager(player, amount) for player, amount in initial.items()]
    box = Box(number, seated, initial, side_bets)
    box.hands.append(Hand(1, [], wagers))
    return box


def _return_orphan_side_bets(state: RoundState) -> None:
    rules = state.rules
    in_play: set[int] | None = None
    for placed in state.bets:
        if placed.bet == MAIN:
            continue
        if in_play is None:
            in_play = {box.number for box in state.boxes}
        if placed.box not in in_play:
            _give_back(
                state,
                placed,
                placed.amount,
                f"no initial bet on the box ({rules.cite_side_bet_alone})",
            )
    if not rules.side_bet_needs_own_initial_bet:
        return
    for box in state.boxes:
        if not box.side_bets:
            continue
        for placed in list(box.side_bets):
            if placed.player not in box.initial:
                box.side_bets.remove(placed)
                _give_back(
                    state,
                    placed,
                    placed.amount,
                    f"{placed.player} has no initial bet of his own on the box at {rules.name}",
                )


def _give_back(state: RoundState, placed: PlacedBet, amount: Decimal, reason: str) -> None:
    # Money that never came into play at "No more bets": it has an event, not a result.
    state.events.append(
        BetReturned(
            player=placed.player,
            box=placed.box,
            hand=None,
            bet=placed.bet,
            amount=amount,
            reason=reason,
        )
    )
