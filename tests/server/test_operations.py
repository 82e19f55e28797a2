"""Table operations as types (:mod:`croupier.server.operations`): each travels as
itself to the table's actor, as JSON only on the bus between processes, read back
once; an input is the engine's own command, and its record keeps what was sent."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from croupier.commands import (
    CloseBets,
    DealCard,
    Decline,
    Hit,
    InputError,
    PlaceBet,
    TimeOut,
    Void,
    Withdraw,
)
from croupier.round_state import OfferKind
from croupier.server.db import connect, migrate
from croupier.server.errors import ActionRefused
from croupier.server.hub import Hub
from croupier.server.operations import (
    Apply,
    ConfirmBets,
    Disconnected,
    EventsSince,
    LeaveBox,
    Log,
    MalformedOperation,
    Summary,
    TableOperation,
    TakeBox,
    View,
    Welcome,
    from_json,
)
from croupier.server.runtime import CutCard, TableConfig
from croupier.server.settings import Settings
from tests.server.tables import act, make_users, table

EVERY: list[TableOperation] = [
    View(viewer=None, dealer=False),
    View(viewer="ann", dealer=True),
    Welcome(viewer="ann", dealer=False),
    Summary(watching=3),
    EventsSince(round="r1", first=4, dealer=False),
    Log(rounds=3),
    TakeBox("ann", 2),
    LeaveBox("ann", 2),
    Disconnected("ann", 12.5),
    ConfirmBets("ann", 12.5),
    Apply(
        PlaceBet("ann", 1, Decimal("25.00")),
        now=3.0,
        user=7,
        key="k1",
        given=frozenset({"box", "amount"}),
    ),
    Apply(Hit("ann"), now=3.0, user=7, given=frozenset()),
    Apply(
        Decline("ann", 1, OfferKind.SURRENDER), now=3.0, user=7, given=frozenset({"box", "kind"})
    ),
    Apply(DealCard("AS"), now=3.0, user=9, by="dee", given=frozenset({"card"})),
    Apply(CutCard(), now=3.0, user=9, key="c", by="dee", given=frozenset()),
]


@pytest.mark.parametrize("operation", EVERY, ids=lambda operation: type(operation).__name__)
def test_every_operation_crosses_the_bus_as_json_and_reads_back_as_itself(
    operation: TableOperation,
) -> None:
    body = json.loads(json.dumps(operation.to_json()))  # as the bus carries it
    assert body["op"] == operation.name
    assert from_json(body) == operation


def test_an_input_crosses_the_bus_as_the_client_sent_it() -> None:
    """The body of an input between processes is what it has always been: the command's
    op, its player and the arguments the client gave, who sent it and when."""
    bet = Apply(
        PlaceBet("ann", 1, Decimal("25")),
        now=2.0,
        user=7,
        key="k",
        given=frozenset({"box", "amount"}),
    )
    assert bet.to_json() == {
        "op": "apply",
        "args": {
            "op": "bet",
            "player": "ann",
            "args": {"box": 1, "amount": "25"},
            "now": 2.0,
            "key": "k",
            "user": 7,
            "by": None,
        },
    }
    # Sent by a process before the operations were typed: no "by" for a player.
    earlier = {"op": "bet", "player": "ann", "args": {"box": 1, "amount": "25"}}
    read = from_json({"op": "apply", "args": {**earlier, "now": 2.0, "key": "k", "user": 7}})
    assert read == bet


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ([], MalformedOperation),
        ({"op": "dance", "args": {}}, MalformedOperation),
        ({"op": "view", "args": {"viewer": None}}, MalformedOperation),
        ({"op": "take_box", "args": {"player": "ann", "box": "2"}}, MalformedOperation),
        ({"op": "log", "args": {"rounds": True}}, MalformedOperation),
        ({"op": "apply", "args": {"op": "fly", "args": {}, "now": 1.0, "user": 1}}, InputError),
        (
            {"op": "apply", "args": {"op": "hit", "args": {}, "now": "1", "user": 1}},
            MalformedOperation,
        ),
        (
            {"op": "apply", "args": {"op": "cut_card", "args": {"x": 1}, "now": 1, "user": 1}},
            InputError,
        ),
    ],
)
def test_a_request_that_is_no_table_operation_is_refused_naming_why(
    body: object, problem: type[Exception]
) -> None:
    with pytest.raises(problem) as refused:
        from_json(body)
    assert str(refused.value)


def test_a_request_from_another_process_that_is_no_operation_is_answered_as_refused(
    tmp_path: Path,
) -> None:
    """The serving process reads the request once; one it cannot read is refused, the
    table untouched."""
    url = f"sqlite:///{tmp_path / 'table.db'}"
    engine = connect(url)
    migrate(engine)
    hub = Hub(engine, Settings(url=url, tables=(TableConfig(id="rws", preset="rws-v5"),)))

    async def reply(_: dict[str, Any]) -> None:
        raise AssertionError("nothing is said before the answer")

    answer = asyncio.run(hub._serve("rws", {"op": "dance", "args": {}}, reply))
    assert answer == {
        "error": {"code": "illegal", "message": "no table operation 'dance'", "clause": None}
    }
    before = hub.runtimes["rws"].record
    answer = asyncio.run(hub._serve("rws", {"op": "apply", "args": {"op": "fly"}}, reply))
    assert answer["error"]["code"] == "illegal"
    assert hub.runtimes["rws"].record == before


def test_the_record_keeps_the_arguments_as_sent_and_the_tables_own_in_full(
    engine: sqlalchemy.Engine,
) -> None:
    """A client's command is recorded with the arguments he gave (a bet's default
    ``bet`` left out, as he left it out); the table's own inputs with all of theirs."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5")
    runtime.apply(PlaceBet("ann", 1, Decimal("25")), now=1, given={"box", "amount"})
    runtime.apply(PlaceBet("ann", 2, Decimal("25")), now=1)
    runtime.apply(Withdraw("ann", 2), now=2)
    recorded = [(entry.op, entry.args) for entry in runtime.record.inputs]
    assert recorded == [
        ("bet", {"box": 1, "amount": "25"}),
        ("bet", {"box": 2, "amount": "25", "bet": "main"}),
        ("withdraw", {"box": 2, "bet": "main"}),
    ]


def test_a_key_names_one_command_whichever_way_it_comes(engine: sqlalchemy.Engine) -> None:
    """The same command sent again with its key is a retry; another command with that
    key is refused (``key_conflict``), the table unchanged."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5")
    first = runtime.apply(
        PlaceBet("ann", 1, Decimal("25")), now=1, key="k", given={"box", "amount"}
    )
    again = act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=2, key="k")
    assert (again.seq, again.retried) == (first.seq, True)
    with pytest.raises(ActionRefused) as refused:
        runtime.apply(PlaceBet("ann", 1, Decimal("50")), now=3, key="k", given={"box", "amount"})
    assert refused.value.code == "key_conflict"
    assert len(runtime.record.inputs) == 1


def test_the_tables_own_commands_are_applied_as_they_are(engine: sqlalchemy.Engine) -> None:
    """Who may issue a command is asked where it comes in (the table socket refuses a
    client's ``close_bets`` as ``forbidden``); the runtime applies the command it is
    given, the table's clocks' as any other."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", "10S 6D 7H 9C KD")
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    runtime.apply(CloseBets(), now=2)
    runtime.apply(TimeOut(), now=40)
    assert [entry.op for entry in runtime.record.inputs][:3] == ["bet", "close_bets", "time_out"]
    runtime.apply(Void("test"), now=41)
    assert runtime.record.inputs[-1].args == {"reason": "test"}


def test_a_cut_card_is_marked_at_a_dealers_table_and_refused_at_the_servers(
    engine: sqlalchemy.Engine,
) -> None:
    """The dealer's cut card mark is the server's own input, not an engine command: it
    marks the shoe of a table dealt by hand, and is not recorded."""
    ids = make_users(engine, "ann")
    dealt = table(engine, ids, "rws-v5")
    with pytest.raises(ActionRefused) as refused:
        dealt.apply(CutCard(), now=1, by="dee")
    assert refused.value.code == "not_dealer"
    by_hand = table(engine, ids, "rws-v5", dealt="dealer")
    marked = act(by_hand, "cut_card", None, {}, now=2, by="dee")
    assert (marked.events, marked.retried) == ([], False)
    assert by_hand.record.inputs == ()  # the mark is not an input of the round
