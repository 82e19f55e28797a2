"""The back office in the browser: an admin reads the report, a player is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from croupier import shoe as shoes
from croupier.server import accounts, db
from croupier.server.runtime import TableConfig
from tests.server.report_play import SeededShuffles, flat, play, scattered
from tests.server.tables import PASSWORD, act, make_users, table
from tests.server.test_browser import Player, browser, expect_contains, serve

__all__ = ["browser"]  # the browser fixture, shared with the table's browser tests


@pytest.fixture(autouse=True)
def repeatable_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's shoes shuffled from a seed: the same rounds every run."""
    monkeypatch.setattr(shoes, "secrets", SeededShuffles(4))


def test_an_admin_reads_the_back_office_and_a_player_cannot(
    tmp_path: Path, browser: Browser
) -> None:
    rws = TableConfig(id="rws", preset="rws-v5", betting_seconds=2)
    for site in serve(tmp_path, rws, shoes={}):
        engine = db.connect(site.db_url)
        ids = make_users(engine, "kim", "lee", chips="10000.00")
        runtime = table(engine, ids, "live")
        now = play(runtime, {"kim": flat("10"), "lee": scattered("10", "20")}, 5)
        act(runtime, "bet", "kim", {"box": 1, "amount": "30"}, now=now)
        runtime.tick(now + runtime.config.betting_seconds)
        act(runtime, "void", None, {"reason": "card exposed"}, now=now + 30)
        with engine.begin() as conn:
            accounts.register(conn, "boss", PASSWORD, role="admin")
        engine.dispose()

        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.page.goto(f"{site.url}/#/admin")
        expect_contains(ann.page.locator("main"), "for admin accounts only")

        boss = Player(browser, site)
        page = boss.page
        page.goto(f"{site.url}/#/login")
        page.fill("#name", "boss")
        page.fill("#password", PASSWORD)
        page.click("button:text('Log in')")
        page.click("text=Back office")
        main = page.locator("main")
        expect_contains(main, "live-test")
        expect_contains(page.locator(".admin-section", has_text="Players"), "lee")
        irregular = page.locator(".admin-section", has_text="Irregularities")
        expect_contains(irregular, "card exposed")
        page.wait_for_selector(".admin-hold svg")  # the hold by stretch, read apart
        assert page.locator(".admin-hold svg").count() == 1
        irregular.locator("a").first.click()
        expect_contains(main, "Round #6 at live-test")
        ann.close()
        boss.close()
