"""A table: one rule set and one shoe, round after round.

The table shuffles between rounds when the cut card has come out (or before every
round where the rules say so), and keeps the shoe's composition check across the
rounds of a shoe so that an excess card is found (RWS v5 5.5.2).

>>> from croupier.rules import Rules
>>> table = Table(Rules(decks=6), seed=7)
>>> game = table.new_round()
>>> _ = game.place_bet("ann", 1, "25")
>>> _ = game.close_bets()
>>> game.phase in (Phase.PLAYER_TURNS, Phase.SETTLED, Phase.OFFERS)
True
>>> table.rounds_played
1
"""

from __future__ import annotations

from croupier.errors import IllegalActionError
from croupier.round import Phase, Round
from croupier.rules import Rules
from croupier.shoe import CardSource, CompositionCheck, ShuffledShoe

__all__ = ["Table"]

# The phases of a round that is over (bound once: reading an Enum member off its class
# is slow on Python 3.11).
_OVER = (Phase.SETTLED, Phase.VOID)


class Table:
    """A table dealing rounds of one rule set from one card source.

    Args:
        rules: the table's rules.
        source: the card source; a shuffled shoe for ``rules`` when omitted.
        seed: seeds the shuffled shoe, for reproducible play (ignored with ``source``).
        lazy_shuffle: the shuffled shoe shuffles as it deals (a simulation's shoe, see
            :class:`~croupier.shoe.ShuffledShoe`).
    """

    def __init__(
        self,
        rules: Rules,
        *,
        source: CardSource | None = None,
        seed: int | None = None,
        lazy_shuffle: bool = False,
    ) -> None:
        self.rules = rules
        self.source: CardSource = (
            source
            if source is not None
            else ShuffledShoe.from_rules(rules, seed=seed, lazy=lazy_shuffle)
        )
        self.check = CompositionCheck(rules.decks)
        self.rounds_played = 0
        self._round: Round | None = None

    @property
    def round(self) -> Round | None:
        """The round now at the table, if any."""
        return self._round

    def new_round(self) -> Round:
        """Open a new round ("Place your bets, please"), shuffling first if due."""
        if self._round is not None and self._round.phase not in _OVER:
            raise IllegalActionError(
                f"cannot open a round: the last one is not over (phase={self._round.phase.value})"
            )
        if self.source.needs_shuffle:
            self.shuffle()
        self._round = Round(self.rules, self.source, check=self.check)
        self.rounds_played += 1
        return self._round

    def shuffle(self) -> None:
        """Shuffle the shoe and restart its composition check."""
        self.source.shuffle()
        self.check.reset()
