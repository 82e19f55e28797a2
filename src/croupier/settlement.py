"""Settlement: blackjacks paid at once, insurance, and every bet against the dealer's hand.

Bets are paid at the table's rates (by default a blackjack 3 to 2, a win 1 to 1,
insurance 2 to 1); a stand-off returns the stake.  Against a dealer blackjack a blackjack
stands off and the other hands lose what the table's ``dealer_blackjack_takes`` says:
every bet, or no more than each player's initial bet.  The round ends settled, with the
house's net recorded.
"""

from __future__ import annotations

from croupier.events import RoundSettled
from croupier.money import payout
from croupier.round_base import RoundBase
from croupier.round_state import INSURANCE, ZERO, Box, Phase
from croupier.rules import DealerBlackjackTakes

__all__ = ["SettlementMixin"]


class SettlementMixin(RoundBase):
    """Paying and taking the bets on the hands and the insurance bets."""

    def _pay_blackjacks(self) -> None:
        rules = self.rules
        for box in self._boxes:
            hand = box.hands[0]
            if not hand.is_blackjack:
                continue
            for wager in hand.wagers:
                if not wager.settled:
                    net = payout(
                        wager.stake,
                        rules.blackjack_pays,
                        rules.currency_unit,
                        rules.payout_rounding,
                    )
                    self._settle_wager(box, hand, wager, net, "blackjack")
            hand.finished = True

    def _settle_insurance(self, *, dealer_blackjack: bool) -> None:
        rules = self.rules
        for box in self._boxes:
            if box.insurance_settled:
                continue
            box.insurance_settled = True
            for player, amount in box.insurance.items():
                if dealer_blackjack:
                    net = payout(
                        amount, rules.insurance_pays, rules.currency_unit, rules.payout_rounding
                    )
                    self._settle(
                        player, box.number, None, INSURANCE, amount, net, "dealer-blackjack"
                    )
                else:
                    self._settle(player, box.number, None, INSURANCE, amount, -amount, "lost")

    def _final_settlement(self) -> None:
        rules = self.rules
        dealer_blackjack = self._dealer_has_blackjack()
        dealer_total = self.dealer_total
        self._settle_insurance(dealer_blackjack=dealer_blackjack)
        for box in self._boxes:
            if dealer_blackjack:
                self._settle_against_dealer_blackjack(box)
                continue
            for hand in box.hands:
                for wager in hand.wagers:
                    if wager.settled:
                        continue
                    if hand.surrendered:
                        net, outcome = -self._half_loss(wager.stake), "surrender"
                    elif hand.busted:
                        net, outcome = -wager.stake, "bust"
                    elif hand.is_blackjack:
                        net = payout(
                            wager.stake,
                            rules.blackjack_pays,
                            rules.currency_unit,
                            rules.payout_rounding,
                        )
                        outcome = "blackjack"
                    elif dealer_total > 21 or hand.total > dealer_total:
                        net = payout(
                            wager.stake, rules.win_pays, rules.currency_unit, rules.payout_rounding
                        )
                        outcome = "win"
                    elif hand.total == dealer_total:
                        net, outcome = ZERO, "stand-off"
                    else:
                        net, outcome = -wager.stake, "lose"
                    self._settle_wager(box, hand, wager, net, outcome)
        self._phase = Phase.SETTLED
        self._emit(RoundSettled(house_net=self.house_net))

    def _settle_against_dealer_blackjack(self, box: Box) -> None:
        takes = self.rules.dealer_blackjack_takes
        for player, initial in box.initial.items():
            cap = initial
            for hand in box.hands:
                wager = hand.wager_of(player)
                if wager is None or wager.settled:
                    continue
                if hand.is_blackjack:
                    self._settle_wager(box, hand, wager, ZERO, "stand-off")
                elif hand.surrendered or takes is DealerBlackjackTakes.ALL:
                    self._settle_wager(box, hand, wager, -wager.stake, "dealer-blackjack")
                else:
                    loss = min(wager.stake, cap)
                    cap -= loss
                    self._settle_wager(box, hand, wager, -loss, "dealer-blackjack")
