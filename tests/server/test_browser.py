"""The page in a real browser (Playwright driving Debian's Chromium).

Skipped, with the reason, where no Chromium is installed, unless
``CROUPIER_REQUIRE_BROWSER=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from croupier.server.app import Settings, create_app
from croupier.server.runtime import ServerShoe, TableConfig

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """A server on loopback whose rws-v5 table deals 10S 6D 7H 9C KD first."""
    tables = (TableConfig(id="rws", preset="rws-v5", betting_seconds=2, offer_seconds=30),)
    settings = Settings(
        url=f"sqlite:///{tmp_path / 'site.db'}",
        tables=tables,
        shoes={"rws": ServerShoe.stacked("10S 6D 7H 9C KD")},
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def browser() -> Iterator[object]:
    if CHROMIUM is None:
        if os.environ.get("CROUPIER_REQUIRE_BROWSER") == "1":
            pytest.fail("no Chromium installed (apt-get install chromium)")
        pytest.skip("no Chromium installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def test_a_newcomer_signs_up_bets_with_chips_and_plays_with_the_keyboard(
    site: str, browser: object
) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site)
    page.fill("#name", "ann")
    page.fill("#password", "correct horse")
    page.click("text=Sign up")
    expect(page.locator("#balance")).to_have_text("1000.00")
    card = page.locator(".table-card").first
    expect(card).to_contain_text("5000.00")
    expect(card).to_contain_text("RTP 99.81%", timeout=60_000)  # the exact math, rws-v5
    page.click("a[href='#/table/rws']")
    page.locator(".chip").first.click()  # 25.00
    page.click("[data-spot='1:main']")
    page.click("[data-spot='1:main']")
    page.click("text=Undo")
    page.click("text=Place bets")
    expect(page.locator("#balance")).to_have_text("975.00")
    # RWS v5 3.16: surrender is offered first; N declines it, S stands on 17.
    expect(page.locator(".offer")).to_contain_text("surrender", timeout=15_000)
    expect(page.locator(".dealer .cards .card")).to_have_count(1)  # no hole card dealt
    page.keyboard.press("n")
    expect(page.locator("button[data-key='s']")).to_be_visible()
    page.keyboard.press("s")
    expect(page.locator("#balance")).to_have_text("1025.00")  # the dealer busts
    expect(page.locator("#net")).to_have_text("25.00")
    page.click("text=History")
    expect(page.locator(".history tbody tr")).to_have_count(1)
    page.click("text=Recall")
    expect(page.locator("main")).to_contain_text("Balance before 1000.00, after 1025.00")
    assert errors == []
