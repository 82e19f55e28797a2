"""The page's data: the tables' exact RTPs, computed once per rule set and kept; the
page's weight."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest

from croupier.presets import find_rules
from croupier.rules import Rules
from croupier.server import web
from croupier.server.web import RtpCache, rules_fingerprint


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rule sets whose figures were computed (a stand-in for the exact math)."""
    names: list[str] = []

    def compute(rules: Rules) -> dict[str, Any]:
        names.append(rules.name)
        return {"main": 0.99, "side_bets": {}}

    monkeypatch.setattr(web, "compute_rtp", compute)
    return names


def test_the_figures_are_computed_once_and_read_back_after_a_restart(
    tmp_path: Path, computed: list[str]
) -> None:
    rules = find_rules("rws-v5")
    assert RtpCache(tmp_path).get(rules) == {"main": 0.99, "side_bets": {}}
    assert (tmp_path / f"rtp-{rules_fingerprint(rules)}.json").is_file()
    restarted = RtpCache(tmp_path)  # a new process: memory is empty, the file is there
    assert restarted.known(rules) == {"main": 0.99, "side_bets": {}}
    assert restarted.get(rules)["main"] == 0.99
    assert computed == ["rws-v5"]


def test_other_rules_are_other_figures(tmp_path: Path, computed: list[str]) -> None:
    cache = RtpCache(tmp_path)
    cache.get(find_rules("rws-v5"))
    cache.get(find_rules("rws-v5").replace(dealer_hits_soft_17=True))
    assert len(list(tmp_path.glob("rtp-*.json"))) == 2 and len(computed) == 2


def test_the_start_up_computes_every_rule_set_in_the_background(
    tmp_path: Path, computed: list[str]
) -> None:
    cache = RtpCache(tmp_path)
    rule_sets = [find_rules("rws-v5"), find_rules("live"), find_rules("rws-v5")]
    cache.warm(rule_sets).join(timeout=30)
    assert sorted(computed) == ["live", "rws-v5"]  # the same rules once
    assert all(cache.known(rules) is not None for rules in rule_sets)


def test_an_unwritable_or_damaged_cache_only_costs_a_computation(
    tmp_path: Path, computed: list[str]
) -> None:
    rules = find_rules("rws-v5")
    (tmp_path / f"rtp-{rules_fingerprint(rules)}.json").write_text("{not json")
    assert RtpCache(tmp_path).get(rules)["main"] == 0.99
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert RtpCache(blocked / "cache").get(rules)["main"] == 0.99
    assert RtpCache(None).get(rules)["main"] == 0.99
    assert len(computed) == 3


def test_the_lobby_weighs_under_60_kb_compressed() -> None:
    """What the lobby loads (the page, its script and its styles, no other request but
    the API's) stays under 60 kB gzipped, the table, history and limits included."""
    index = (web.STATIC / "index.html").read_text()
    assets = re.findall(r'(?:src|href)="/static/(assets/[^"]+\.(?:js|css))"', index)
    assert any(name.endswith(".js") for name in assets), index
    files = [index.encode(), *((web.STATIC / name).read_bytes() for name in assets)]
    weight = sum(len(gzip.compress(data, compresslevel=9)) for data in files)
    assert weight < 60_000, f"the lobby weighs {weight} bytes compressed"
