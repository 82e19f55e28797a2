"""The ``croupier play`` command: blackjack at the terminal, one player on one or more boxes.

:class:`TerminalGame` drives a :class:`~croupier.round.Round` from typed answers.
It reads each answer through the ``ask`` function it is given and writes through
a Rich :class:`~rich.console.Console`, so that a test can script the answers and
read what was shown.  Every rule, payout and refusal is the engine's; the game
adds a bankroll (the bankroll plus the sum of the round nets) and refuses a bet
the balance cannot cover.

>>> import io
>>> from croupier.presets import find_rules
>>> from croupier.shoe import FixedOrder
>>> from croupier.table import Table
>>> answers = iter(["25", "", "n", "s", "q"])
>>> table = Table(find_rules("rws-v5"), source=FixedOrder("10H 7S 9D 10C"))
>>> console = Console(file=io.StringIO(), force_terminal=False)
>>> game = TerminalGame(table, ask=lambda prompt: next(answers), console=console)
>>> game.run()
Decimal('1025.00')
>>> "win" in console.file.getvalue()
True
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, NoReturn

import click
from rich.console import Console
from rich.text import Text

from croupier.cards import Card, hand_total
from croupier.cli.shared import DEFAULT_PRESET, preset_option
from croupier.errors import BetError, CroupierError, IllegalActionError
from croupier.events import (
    BetPlaced,
    BetResult,
    BetReturned,
    BetWithdrawn,
    DoubleFollowed,
    InsuranceTaken,
    PlayerDoubledDown,
    PlayerSplit,
    SplitFollowed,
)
from croupier.money import parse_amount
from croupier.presets import find_rules
from croupier.round import (
    INSURANCE,
    MAIN,
    Action,
    BoxView,
    HandView,
    Offer,
    OfferKind,
    Phase,
    Round,
)
from croupier.rules import Rules
from croupier.table import Table

if TYPE_CHECKING:
    from croupier.analysis.strategy import BasicStrategy

__all__ = [
    "ACTION_KEYS",
    "DEFAULT_BANKROLL",
    "DEFAULT_RULES",
    "PLAYER",
    "PlayerLeft",
    "TerminalGame",
    "card_text",
    "in_players_words",
    "play",
    "signed",
    "table_lines",
    "total_text",
]

#: The preset played when ``--rules`` is not given.
DEFAULT_RULES = DEFAULT_PRESET
#: The money the player sits down with when ``--bankroll`` is not given.
DEFAULT_BANKROLL = Decimal("1000.00")
#: The player's name in the round's bets and results.
PLAYER = "you"

#: The key of each action in the decision menu, and its label there.
ACTION_KEYS: dict[str, Action] = {
    "h": Action.HIT,
    "s": Action.STAND,
    "d": Action.DOUBLE,
    "p": Action.SPLIT,
    "r": Action.SURRENDER,
}
_LABELS = {
    Action.HIT: "(h)it",
    Action.STAND: "(s)tand",
    Action.DOUBLE: "(d)ouble",
    Action.SPLIT: "s(p)lit",
    Action.SURRENDER: "su(r)render",
}
_KEY_OF = {action: key for key, action in ACTION_KEYS.items()}
_QUIT_ANSWERS = frozenset({"q", "quit"})
_YES = frozenset({"y", "yes"})
_NO = frozenset({"n", "no"})
_SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_ZERO = Decimal(0)
#: The exit status of a bad option, as Click gives for a usage error.
_EXIT_USAGE = 2

#: Reads one answer: shows the prompt, returns the line typed (EOFError at end of input).
Ask = Callable[[str], str]


class PlayerLeft(Exception):
    """The player left the table: q at a prompt, the end of input, or Ctrl-C."""


# -- what the table shows -----------------------------------------------------------------------


def card_text(card: Card, *, symbols: bool = True) -> Text:
    """A card for the terminal: rank and suit, hearts and diamonds in red.

    Args:
        card: The card.
        symbols: Print the suit as a symbol (``♥``); otherwise as its letter (``H``).

    Returns:
        The card as styled text.

    >>> from croupier.cards import parse_card
    >>> text = card_text(parse_card("10H"))
    >>> text.plain, str(text.style)
    ('10♥', 'bold red')
    >>> card_text(parse_card("KS"), symbols=False).plain
    'KS'
    """
    suit = card.suit.value
    shown = _SUIT_SYMBOLS[suit] if symbols else suit
    return Text(f"{card.rank.value}{shown}", style="bold red" if card.suit.is_red else "bold")


def total_text(cards: Sequence[Card], *, blackjack: bool = False) -> str:
    """A hand's total as a player reads it: ``16``, ``soft 17``, ``blackjack``, ``24 bust``.

    Args:
        cards: The hand's cards.
        blackjack: The hand is a blackjack (a two-card 21 that is not from a split).

    Returns:
        The total in words.

    >>> from croupier.cards import parse_cards
    >>> total_text(parse_cards("AS 6D")), total_text(parse_cards("10S 6D 8C"))
    ('soft 17', '24 bust')
    >>> total_text(parse_cards("AS KD"), blackjack=True)
    'blackjack'
    """
    if not cards:
        return ""
    if blackjack:
        return "blackjack"
    total = hand_total(cards)
    if total.total > 21:
        return f"{total.total} bust"
    if total.is_soft:
        return f"soft {total.total}"
    return str(total.total)


def signed(amount: Decimal) -> str:
    """A net amount with its sign, zero included: ``+25.00``, ``-5.00``, ``+0.00``.

    >>> signed(Decimal("25.00")), signed(Decimal("-5.00")), signed(Decimal("0.00"))
    ('+25.00', '-5.00', '+0.00')
    >>> signed(Decimal("-0.00"))
    '+0.00'
    """
    return f"{abs(amount):+}" if amount == 0 else f"{amount:+}"


def _net_text(amount: Decimal) -> Text:
    style = "green" if amount > 0 else "red" if amount < 0 else ""
    return Text(signed(amount), style=style)


def _dealer_line(game: Round, *, symbols: bool) -> Text:
    line = Text("dealer  ")
    dealt = list(game.dealer_cards)
    first = game.rules.hole_card_dealt_first
    if first and game.hole_card is None and len(dealt) >= 2:
        # The turned hole card stays where it lay, before the up card.
        dealt[0], dealt[1] = dealt[1], dealt[0]
    cards = [card_text(card, symbols=symbols) for card in dealt]
    if game.hole_card is not None:  # dealt face down and not yet turned
        hidden = Text("??", style="dim")
        cards.insert(0 if first else len(cards), hidden)
    line.append(Text(" ").join(cards))
    dealer = game.dealer_cards
    blackjack = len(dealer) == 2 and hand_total(dealer).total == 21 and game.hole_card is None
    if dealer:
        line.append(f"   {total_text(dealer, blackjack=blackjack)}", style="cyan")
    return line


def _hand_line(
    box: BoxView, hand: HandView, *, many_boxes: bool, current: bool, symbols: bool
) -> Text:
    label = f"box {box.number} " if many_boxes else ""
    if len(box.hands) > 1 or hand.from_split:
        label += f"hand {hand.number}"
    line = Text(f"{label.strip() or 'you':<14}")
    line.append(Text(" ").join(card_text(card, symbols=symbols) for card in hand.cards))
    line.append(f"   {total_text(hand.cards, blackjack=hand.is_blackjack)}", style="cyan")
    for note, shown in (("doubled", hand.doubled), ("surrendered", hand.surrendered)):
        if shown:
            line.append(f"  {note}", style="italic")
    line.append(f"   stake {hand.stake}")
    if current:
        line.append("   <", style="bold yellow")
    return line


def _side_lines(game: Round, box: int, player: str) -> list[Text]:
    lines: list[Text] = []
    for event in game.events:
        if isinstance(event, InsuranceTaken) and event.box == box and event.player == player:
            lines.append(Text(f"{'':<14}insurance {event.amount}"))
    for result in game.results:
        if result.box == box and result.player == player and result.bet not in (MAIN, INSURANCE):
            line = Text(
                f"{'':<14}side bet {result.bet} {result.stake}: {_outcome(result.outcome)} "
            )
            line.append(_net_text(result.net))
            lines.append(line)
    return lines


def _outcome(outcome: str) -> str:
    return "lost" if outcome == "nothing" else outcome.replace("-", " ")


def table_lines(game: Round, *, player: str = PLAYER, symbols: bool = True) -> list[Text]:
    """The table as the player sees it: the dealer's cards, then each box's hands.

    The dealer's face-down card shows as ``??`` until it is turned; the hand whose
    turn it is carries a ``<``.

    Args:
        game: The round, its bets closed.
        player: Whose side bets and insurance to show.
        symbols: Print suits as symbols rather than letters.

    Returns:
        One line of text per row.
    """
    lines = [_dealer_line(game, symbols=symbols)]
    boxes = game.boxes
    turn = game.current_turn
    for box in boxes:
        for hand in box.hands:
            current = turn == (box.number, hand.number)
            lines.append(
                _hand_line(box, hand, many_boxes=len(boxes) > 1, current=current, symbols=symbols)
            )
        lines.extend(_side_lines(game, box.number, player))
    return lines


# -- the game -----------------------------------------------------------------------------------


class TerminalGame:
    """One player at a table, on one or more boxes, round after round.

    Args:
        table: The table: its rules and its shoe.
        ask: Shows a prompt and returns the line typed; raises :class:`EOFError`
            at the end of input.
        console: Where the table, messages and results are written.
        boxes: How many boxes the player plays, from 1 to the table's boxes.
        bankroll: The money the player sits down with.
        bet: The bet that Enter repeats in the first round (the table minimum when
            not given).
        player: The player's name in the round's bets and results.

    Raises:
        CroupierError: ``boxes`` is not on the table.
        BetError: ``bankroll`` or ``bet`` is not an amount in the table's currency.
    """

    def __init__(
        self,
        table: Table,
        *,
        ask: Ask,
        console: Console,
        boxes: int = 1,
        bankroll: Decimal = DEFAULT_BANKROLL,
        bet: Decimal | None = None,
        player: str = PLAYER,
    ) -> None:
        rules = table.rules
        if not 1 <= boxes <= rules.boxes:
            raise CroupierError(
                f"boxes must be from 1 to {rules.boxes} at {rules.name}, not {boxes}"
            )
        unit = rules.currency_unit
        first_bet = rules.minimum_bet if bet is None else parse_amount(bet, unit, what="bet")
        self._table = table
        self._ask = ask
        self._console = console
        self._boxes = boxes
        self._bankroll = parse_amount(bankroll, unit, what="bankroll")
        self._player = player
        self._last_bets = [first_bet] * boxes
        self._nets: list[Decimal] = []
        self._round: Round | None = None
        self._round_recorded = False
        self._shown: object = None
        self._symbols = console.encoding.lower().startswith("utf")
        self._chart: BasicStrategy | None = None

    # -- what the game shows --------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The table's rules."""
        return self._table.rules

    @property
    def balance(self) -> Decimal:
        """The bankroll plus the net of every round played."""
        return self._bankroll + sum(self._nets, _ZERO)

    @property
    def nets(self) -> tuple[Decimal, ...]:
        """The player's net on each round played, oldest first."""
        return tuple(self._nets)

    @property
    def round(self) -> Round | None:
        """The round being played, or the last one."""
        return self._round

    def available(self) -> Decimal:
        """What the player may still stake now: the balance less the money in play."""
        game = self._round
        if game is None or self._round_recorded:
            return self.balance
        return self.balance + _settled_net(game, self._player) - _in_play(game, self._player)

    # -- the session ------------------------------------------------------------------------------

    def run(self) -> Decimal:
        """Play rounds until the player quits or cannot cover the table minimum.

        Returns:
            The final balance.
        """
        rules = self.rules
        self._say(
            f"{rules.name}: bets {rules.minimum_bet} to {rules.maximum_bet} a box, "
            f"{self._boxes} box{'es' if self._boxes > 1 else ''}.",
            style="bold",
        )
        self._say("Answer q at any prompt to leave the table, ? at a decision for a hint.")
        try:
            while True:
                if self.balance < rules.minimum_bet:
                    self._say(
                        f"Your balance {self.balance} can't cover the table minimum "
                        f"{rules.minimum_bet}: the game is over.",
                        style="bold red",
                    )
                    break
                self.play_round()
                if self.balance < rules.minimum_bet:
                    continue
                self._read("Enter for the next round, q to quit: ")
        except PlayerLeft:
            self._leave()
        self._say(f"Final balance: {self.balance} ({signed(self.balance - self._bankroll)})")
        return self.balance

    def play_round(self) -> None:
        """Play one round: bets, the deal, offers and decisions, then the results.

        Raises:
            PlayerLeft: the player answered q, or the input ended.
        """
        game = self._table.new_round()
        self._round = game
        self._round_recorded = False
        self._shown = None
        self._console.rule(f"round {self._table.rounds_played}")
        self._say(f"Balance: {self.balance}", style="bold")
        self._take_bets(game)
        game.close_bets()
        self._play(game)
        self._finish(game)

    # -- bets -------------------------------------------------------------------------------------

    def _take_bets(self, game: Round) -> None:
        while True:
            placed = False
            for box in range(1, self._boxes + 1):
                amount = self._ask_bet(game, box)
                if amount is None:
                    continue
                game.place_bet(self._player, box, amount)
                self._last_bets[box - 1] = amount
                placed = True
                if self.rules.side_bets_offered():
                    self._ask_side_bets(game, box)
            if placed:
                return
            self._refuse("Place a bet on at least one box.")

    def _ask_bet(self, game: Round, box: int) -> Decimal | None:
        rules = self.rules
        default = self._last_bets[box - 1]
        many = self._boxes > 1
        prompt = (
            f"box {box} bet (Enter = {default}, 0 = no bet): "
            if many
            else f"bet (Enter = {default}): "
        )
        while True:
            answer = self._read(prompt)
            if many and answer == "0":
                return None
            try:
                value = game.verify_place_bet(self._player, box, answer or default)
            except BetError as error:
                self._refuse_error(error)
                continue
            if value < rules.minimum_bet:
                self._refuse(f"The table minimum is {rules.minimum_bet} a box.")
            elif value > self.available():
                self._refuse(f"Not enough money: you have {self.available()} left to bet.")
            else:
                return value

    def _ask_side_bets(self, game: Round, box: int) -> None:
        offered = [side.value for side in self.rules.side_bets_offered()]
        example = " ".join(f"{name}=5" for name in offered[:2])
        where = f"box {box} " if self._boxes > 1 else ""
        prompt = f"{where}side bets (e.g. {example}, Enter for none): "
        while True:
            answer = self._read(prompt)
            if not answer:
                return
            bets = self._read_side_bets(game, box, answer, example)
            if bets is None:
                continue
            total = sum(bets.values(), _ZERO)
            if total > self.available():
                self._refuse(f"Not enough money: you have {self.available()} left to bet.")
                continue
            for name, value in bets.items():
                game.place_bet(self._player, box, value, bet=name)
            return

    def _read_side_bets(
        self, game: Round, box: int, answer: str, example: str
    ) -> dict[str, Decimal] | None:
        bets: dict[str, Decimal] = {}
        for token in answer.replace(",", " ").split():
            name, equals, amount = token.partition("=")
            name = name.strip().lower()
            if not equals or not name or not amount:
                self._refuse(f"Write each side bet as name=amount, e.g. {example}.")
                return None
            if name in bets:
                self._refuse(f"Side bet {name} is given twice.")
                return None
            try:
                bets[name] = game.verify_place_bet(self._player, box, amount, bet=name)
            except BetError as error:
                self._refuse_error(error)
                return None
        return bets

    # -- the deal -----------------------------------------------------------------------------

    def _play(self, game: Round) -> None:
        while game.phase not in (Phase.SETTLED, Phase.VOID):
            self._show_table(game)
            if game.offers:
                self._answer_offer(game, game.offers[0])
            elif game.current_turn is not None:
                self._decide(game)
            else:  # pragma: no cover - only a round with cards entered by hand waits here
                return

    def _show_table(self, game: Round, *, always: bool = False) -> None:
        view = (game.dealer_cards, game.hole_card is None, game.boxes)
        if view == self._shown and not always:
            return
        self._shown = view
        for line in table_lines(game, player=self._player, symbols=self._symbols):
            self._console.print(line)

    def _where(self, box: int) -> str:
        return f"box {box}: " if self._boxes > 1 else ""

    def _answer_offer(self, game: Round, offer: Offer) -> None:
        where = self._where(offer.box)
        if offer.kind is OfferKind.INSURANCE:
            self._offer_insurance(game, offer, where)
        elif offer.kind is OfferKind.EVEN_MONEY:
            if self._yes(f"{where}even money for your blackjack? (y/n): "):
                game.take_even_money(self._player, offer.box)
            else:
                game.decline(self._player, offer.box, offer.kind)
        elif offer.kind is OfferKind.SURRENDER:
            if self._yes(f"{where}surrender for half your bet back? (y/n): "):
                game.surrender(box=offer.box, player=self._player)
            else:
                game.decline(self._player, offer.box, offer.kind)
        else:
            what = "split" if offer.kind is OfferKind.FOLLOW_SPLIT else "double"
            affordable = offer.amount is not None and offer.amount <= self.available()
            if affordable and self._yes(f"{where}follow the {what} for {offer.amount}? (y/n): "):
                game.follow(self._player, offer.box)
                return
            game.decline(self._player, offer.box, offer.kind)

    def _offer_insurance(self, game: Round, offer: Offer, where: str) -> None:
        full = offer.amount if offer.amount is not None else _ZERO
        for_less = self.rules.insurance_for_less
        most = min(full, self.available()) if for_less else full
        if most <= 0 or most > self.available():
            self._say(f"{where}insurance is offered, but you have no money left to stake.")
            game.decline(self._player, offer.box, offer.kind)
            return
        question = f"insurance for up to {full}?" if for_less else f"insurance for {full}?"
        if not self._yes(f"{where}{question} (y/n): "):
            game.decline(self._player, offer.box, offer.kind)
            return
        if not for_less:
            game.take_insurance(self._player, offer.box)
            return
        while True:
            answer = self._read(f"insurance amount (Enter = {most}): ")
            try:
                value = game.verify_take_insurance(self._player, offer.box, answer or most)
            except CroupierError as error:
                self._refuse_error(error)
                continue
            if value > self.available():
                self._refuse(f"Not enough money: you have {self.available()} left to stake.")
                continue
            game.take_insurance(self._player, offer.box, value)
            return

    # -- decisions --------------------------------------------------------------------------------

    def _unaffordable(self, hand: HandView) -> set[Action]:
        available = self.available()
        initial = hand.stake
        refused: set[Action] = set()
        if available < initial:
            refused.add(Action.SPLIT)
            if not self.rules.double_for_less or available <= 0:
                refused.add(Action.DOUBLE)
        return refused

    def _decide(self, game: Round) -> None:
        turn = game.current_turn
        assert turn is not None
        box_number, hand_number = turn
        box = next(box for box in game.boxes if box.number == box_number)
        hand = box.hands[hand_number - 1]
        legal = game.legal_actions()
        unaffordable = self._unaffordable(hand)
        choices = [action for action in legal if action not in unaffordable]
        keys = ", ".join(_KEY_OF[action] for action in choices)
        label = f"box {box_number} " if self._boxes > 1 else ""
        if len(box.hands) > 1:
            label += f"hand {hand_number} "
        total = total_text(hand.cards, blackjack=hand.is_blackjack)
        menu = "  ".join(_LABELS[action] for action in choices)
        prompt = f"{label or 'your move '}({total}): {menu}: "
        while True:
            answer = self._read(prompt).lower()
            if answer == "?":
                self._hint(game, box_number)
                continue
            action = ACTION_KEYS.get(answer) or _action_named(answer)
            if action is None:
                unknown = f"{answer!r} is not a key here: c" if answer else "C"
                self._refuse(f"{unknown}hoose one of {keys}.")
                continue
            if action not in legal:
                self._refuse(
                    in_players_words(
                        _refusal(game, action), player=self._player, symbols=self._symbols
                    )
                )
                continue
            if action in unaffordable:
                self._refuse(
                    f"Not enough money to {action.value}: you have {self.available()} left "
                    f"to stake and the hand carries {hand.stake}."
                )
                continue
            if action is Action.DOUBLE:
                self._double(game, hand)
            elif action is Action.HIT:
                game.hit()
            elif action is Action.STAND:
                game.stand()
            elif action is Action.SPLIT:
                game.split()
            else:
                game.surrender()
            return

    def _hint(self, game: Round, box: int) -> None:
        """The basic strategy chart's play for the hand whose turn it is."""
        from croupier.cli.shared import UserError, require_extra

        try:
            require_extra("math", "The hint")
        except UserError as error:
            self._refuse(error.format_message())
            return
        from croupier.analysis.autoplay import StrategyPlayer
        from croupier.analysis.strategy import derive_strategy

        if self._chart is None:
            self._say("Working out the chart for these rules...", style="dim")
            self._chart = derive_strategy(self.rules)
        action = StrategyPlayer(self._chart, player=self._player, box=box).decide(game)
        self._say(f"The chart says: {_LABELS[action]}.", style="magenta")

    def _double(self, game: Round, hand: HandView) -> None:
        initial = hand.stake
        if not self.rules.double_for_less:
            game.double_down()
            return
        most = min(initial, self.available())
        while True:
            answer = self._read(f"double amount (Enter = {most}): ")
            try:
                value = game.verify_double(answer or most)
            except CroupierError as error:
                self._refuse_error(error)
                continue
            if value is not None and value > self.available():
                self._refuse(f"Not enough money: you have {self.available()} left to stake.")
                continue
            game.double_down(value)
            return

    # -- the end of a round -------------------------------------------------------------------

    def _finish(self, game: Round) -> None:
        self._show_table(game, always=True)
        if game.phase is Phase.VOID:
            self._say(f"Round void: {game.void_reason}.", style="bold red")
            self._say("Every bet of the round was returned.")
        for result in sorted(
            (result for result in game.results if result.player == self._player),
            key=_box_order,
        ):
            self._console.print(self._result_line(result))
        net = game.net_by_player().get(self._player, _ZERO)
        self._nets.append(net)
        self._round_recorded = True
        line = Text("Net this round ")
        line.append(_net_text(net))
        line.append(f"   balance {self.balance}", style="bold")
        self._console.print(line)

    def _result_line(self, result: BetResult) -> Text:
        where = f"box {result.box} " if self._boxes > 1 else ""
        if result.bet == MAIN:
            what = f"{where}hand {result.hand}"
        elif result.bet == INSURANCE:
            what = f"{where}insurance"
        else:
            what = f"{where}side bet {result.bet}"
        line = Text(f"  {what:<30}{result.stake:>10}  {_outcome(result.outcome):<18}")
        line.append(_net_text(result.net))
        return line

    def _leave(self) -> None:
        """Leave the table: a round in play is played out as the rules say for a player who left."""
        game = self._round
        if game is None or self._round_recorded:
            return
        if game.phase is Phase.BETTING:
            return  # nothing was dealt: the bets are simply not made
        if game.phase not in (Phase.SETTLED, Phase.VOID):
            self._say("You leave with bets in play: your hands draw to 12 or more, then stand.")
            try:
                game.walk_away(self._player)
            except IllegalActionError as error:  # pragma: no cover - the round is always open
                self._refuse(str(error))
        if game.phase in (Phase.SETTLED, Phase.VOID):
            self._finish(game)

    # -- reading and writing ----------------------------------------------------------------------

    def _read(self, prompt: str) -> str:
        try:
            answer = self._ask(prompt)
        except (EOFError, KeyboardInterrupt):
            self._console.print()
            raise PlayerLeft from None
        answer = answer.strip()
        if answer.lower() in _QUIT_ANSWERS:
            raise PlayerLeft
        return answer

    def _yes(self, prompt: str) -> bool:
        while True:
            answer = self._read(prompt).lower()
            if answer in _YES:
                return True
            if answer in _NO:
                return False
            self._refuse("Please answer y or n.")

    def _say(self, message: str, *, style: str = "") -> None:
        self._console.print(Text(message, style=style))

    def _refuse(self, message: str) -> None:
        self._console.print(Text(message, style="yellow"))

    def _refuse_error(self, error: CroupierError) -> None:
        self._refuse(in_players_words(str(error), player=self._player, symbols=self._symbols))


def _box_order(result: BetResult) -> tuple[int, int, int, str]:
    """Box by box: the hands in order, then insurance, then the side bets."""
    kind = 0 if result.bet == MAIN else 1 if result.bet == INSURANCE else 2
    return (result.box, kind, result.hand or 0, result.bet)


#: A card as the engine writes it in a message (``7H``, ``10D``).
_CARD_CODE = re.compile(r"\b(10|[2-9TJQKA])([SHDC])\b")
#: The engine's note of the round's phase, for developers.
_PHASE_NOTE = re.compile(r"\s*\(phase=[^)]*\)")


def in_players_words(message: str, *, player: str = PLAYER, symbols: bool = True) -> str:
    """An engine's refusal as the player reads it: to "you", cards as the table shows
    them, without the round's internal phase.

    >>> in_players_words("cannot split: box 1 hand 1 holds 7H 4D, not a pair (phase=player-turns)")
    "You can't split: box 1 hand 1 holds 7♥ 4♦, not a pair."
    >>> in_players_words("cannot place a bet: you's bet of 99999.00 on box 1 is over the "
    ...     "table maximum 2500.00")
    "You can't place that bet: your bet of 99999.00 on box 1 is over the table maximum 2500.00."
    """
    text = _PHASE_NOTE.sub("", message).strip()
    text = text.replace(f"{player}'s ", "your ").replace(f"{player} ", "you ")
    action, colon, reason = text.partition(": ")
    if colon and action.startswith("cannot "):
        what = action.removeprefix("cannot ")
        what = {"place a bet": "place that bet"}.get(what, what)
        text = f"You can't {what}: {reason}"
    text = _CARD_CODE.sub(
        lambda match: f"{match[1]}{_SUIT_SYMBOLS[match[2]] if symbols else match[2]}", text
    )
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _action_named(answer: str) -> Action | None:
    try:
        return Action(answer)
    except ValueError:
        return None


def _refusal(game: Round, action: Action) -> str:
    """The engine's reason for refusing an action, as its verification gives it."""
    verify: dict[Action, Callable[[], object]] = {
        Action.HIT: game.verify_hit,
        Action.STAND: game.verify_stand,
        Action.DOUBLE: game.verify_double,
        Action.SPLIT: game.verify_split,
        Action.SURRENDER: game.verify_surrender,
    }
    try:
        verify[action]()
    except CroupierError as error:
        return str(error)
    return f"cannot {action.value} now"  # pragma: no cover - legal_actions agrees with verify


def _in_play(game: Round, player: str) -> Decimal:
    """The player's money on the table in this round that is not settled yet."""
    staked = _ZERO
    added = (
        BetPlaced,
        InsuranceTaken,
        PlayerDoubledDown,
        PlayerSplit,
        DoubleFollowed,
        SplitFollowed,
    )
    for event in game.events:
        if getattr(event, "player", None) != player:
            continue
        if isinstance(event, added):
            staked += event.amount
        elif isinstance(event, BetWithdrawn) or (
            isinstance(event, BetReturned) and event.reason != "void"
        ):
            staked -= event.amount
    settled = sum((r.stake for r in game.results if r.player == player), _ZERO)
    return staked - settled


def _settled_net(game: Round, player: str) -> Decimal:
    return sum((r.net for r in game.results if r.player == player), _ZERO)


# -- the command ----------------------------------------------------------------------------------


def _bad_option(option: str, message: str) -> NoReturn:
    raise click.BadParameter(message, ctx=click.get_current_context(), param_hint=f"'{option}'")


def _terminal_ask(console: Console) -> Ask:
    """Read answers from standard input, echoing them when it is not a terminal."""
    echo = not sys.stdin.isatty()

    def ask(prompt: str) -> str:
        answer = console.input(Text(prompt, style="bold cyan"))
        if echo:
            console.print(Text(answer))
        return answer

    return ask


@click.command(name="play")
@preset_option
@click.option(
    "--boxes",
    type=int,
    default=1,
    show_default=True,
    metavar="N",
    help="How many boxes you play, from 1 to the table's boxes.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    metavar="S",
    help="Seed the shoe for a reproducible game (otherwise a cryptographic shuffle).",
)
@click.option(
    "--bankroll",
    default=str(DEFAULT_BANKROLL),
    show_default=True,
    metavar="AMOUNT",
    help="The money you sit down with.",
)
@click.option(
    "--bet",
    default=None,
    metavar="AMOUNT",
    help="The bet Enter repeats in the first round (default: the table minimum).",
)
def play(rules_name: str, boxes: int, seed: int | None, bankroll: str, bet: str | None) -> None:
    """Play blackjack at the terminal, one player on N boxes.

    Each round asks your bet per box (Enter repeats the last one), any side bets,
    then each offer (y/n) and each decision by its key: (h)it (s)tand (d)ouble
    s(p)lit su(r)render.  Answer q, or press Ctrl-D, at any prompt to leave.
    """
    try:
        rules = find_rules(rules_name)
    except CroupierError as error:
        _bad_option("--rules", str(error))
    if not 1 <= boxes <= rules.boxes:
        _bad_option(
            "--boxes",
            f"{boxes} is not from 1 to {rules.boxes}: {rules.name} has {rules.boxes} boxes",
        )
    try:
        money = parse_amount(bankroll, rules.currency_unit, what="bankroll")
    except BetError as error:
        _bad_option("--bankroll", str(error))
    first_bet: Decimal | None = None
    if bet is not None:
        try:
            first_bet = parse_amount(bet, rules.currency_unit, what="bet")
        except BetError as error:
            _bad_option("--bet", str(error))
        if not rules.minimum_bet <= first_bet <= rules.maximum_bet:
            _bad_option(
                "--bet",
                f"{first_bet} is not from {rules.minimum_bet} to {rules.maximum_bet}, "
                f"the bets at {rules.name}",
            )
    console = Console(highlight=False)
    table = Table(rules, seed=seed)
    game = TerminalGame(
        table,
        ask=_terminal_ask(console),
        console=console,
        boxes=boxes,
        bankroll=money,
        bet=first_bet,
    )
    game.run()
