"""The page in a real browser: Playwright driving Debian's Chromium against a real server.

Every test starts ``croupier serve``'s app on loopback with tables whose shoes are
stacked (the cards of tests/server/test_runtime_scenarios.py, where each round is
checked at the server), signs players up through the page and plays with the mouse
and the keyboard as a player would.  Balances on the page are checked against the
server's ledger.

Skipped, with the reason, where no Chromium is installed, unless
``CROUPIER_REQUIRE_BROWSER=1`` (as in CI) makes that a failure.  The screenshots the
README shows are saved to ``CROUPIER_SCREENSHOTS`` (a folder), else to a temporary one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sqlalchemy

from croupier.server import accounts, db, ledger
from croupier.server.app import Settings, create_app
from croupier.server.runtime import TableConfig
from croupier.server.schema import users
from croupier.shoe import ShuffledShoe
from tests.server.tables import served
from tests.server.test_runtime_scenarios import LIVE_HOLE_1, LIVE_SHOE, RWS_SHOE

# Chromium drives the page: the browser tier.
pytestmark = pytest.mark.browser

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, WebSocket

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PASSWORD = "correct horse battery"
#: How long the page may take to show what the server did (a busy CI machine).
WAIT_MS = 20_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Site:
    """A running server: its address and its database."""

    url: str
    db_url: str

    def balance(self, name: str) -> Decimal:
        """A player's balance in the server's ledger."""
        engine = db.connect(self.db_url)
        try:
            with engine.begin() as conn:
                user_id = conn.execute(
                    sqlalchemy.select(users.c.id).where(users.c.name == name)
                ).scalar_one()
                return ledger.balance(conn, user_id)
        finally:
            engine.dispose()

    def books(self) -> list[str]:
        """The ledger's reconciliation problems (none when every round balances)."""
        engine = db.connect(self.db_url)
        try:
            with engine.begin() as conn:
                return ledger.check(conn)
        finally:
            engine.dispose()

    def add_dealer(self, name: str) -> None:
        """A dealer account (dealers are made by the house, never by signing up)."""
        engine = db.connect(self.db_url)
        try:
            with engine.begin() as conn:
                accounts.register(conn, name, PASSWORD, role="dealer")
        finally:
            engine.dispose()


def serve(tmp_path: Path, *tables: TableConfig, shoes: dict[str, str]) -> Iterator[Site]:
    """Run a server with ``tables`` (their first shoes stacked) until the test ends."""
    db_url = f"sqlite:///{tmp_path / 'site.db'}"
    settings = Settings(
        url=db_url,
        tables=tables,
        shoes={table: ShuffledShoe.stacked(cards) for table, cards in shoes.items()},
    )
    port = free_port()
    with served(create_app(settings), port):
        yield Site(f"http://127.0.0.1:{port}", db_url)


@pytest.fixture
def rws_site(tmp_path: Path) -> Iterator[Site]:
    """An rws-v5 table (no hole card) dealing 10S 6D 7H 9C KD first."""
    table = TableConfig(id="rws", preset="rws-v5", betting_seconds=2, offer_seconds=60)
    yield from serve(tmp_path, table, shoes={"rws": RWS_SHOE})


@pytest.fixture
def live_site(tmp_path: Path) -> Iterator[Site]:
    """A live-studio table (Perfect Pairs, 21+3, insurance) on the scenario's shoe."""
    table = TableConfig(
        id="live",
        preset="live",
        betting_seconds=5,
        offer_seconds=60,
        decision_seconds=60,
        pause_seconds=2,
    )
    yield from serve(tmp_path, table, shoes={"live": LIVE_SHOE})


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        if os.environ.get("CROUPIER_REQUIRE_BROWSER") == "1":
            pytest.fail("no Chromium installed (apt-get install chromium)")
        pytest.skip("no Chromium installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update"],
        )
        yield launched
        launched.close()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where the screenshots go: ``CROUPIER_SCREENSHOTS`` (the README's) or a temporary folder."""
    folder = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Player:
    """A person at the site: a browser context of his own, one page, its errors kept."""

    def __init__(self, browser: Browser, site: Site, **options: object) -> None:
        settings: dict[str, object] = {"viewport": {"width": 1280, "height": 860}, **options}
        self.context: BrowserContext = browser.new_context(**settings)  # type: ignore[arg-type]
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.site = site
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.frames: list[str] = []
        self.name = ""

    def record_frames(self) -> None:
        """Keep every WebSocket frame the server sends this page, in order."""

        def on_socket(socket: WebSocket) -> None:
            socket.on("framereceived", lambda payload: self.frames.append(str(payload)))

        self.page.on("websocket", on_socket)

    def sign_up(self, name: str) -> None:
        self.name = name
        page = self.page
        page.goto(f"{self.site.url}/#/login")
        page.fill("#name", name)
        page.fill("#password", PASSWORD)
        page.click("text=Sign up")
        expect_text(page.locator("#balance"), "1000.00")
        page.wait_for_url(lambda url: "#/login" not in url)

    def sit_at(self, table: str) -> None:
        self.page.click(f"[data-table='{table}'] a:text('Play')")
        self.page.wait_for_selector("[data-spot='1:main']:not([disabled])")

    def chip(self, value: str) -> None:
        self.page.click(f".chip[data-value='{value}']")

    def close(self) -> None:
        assert self.errors == [], f"errors in the page: {self.errors}"
        self.context.close()


def assert_balances(site: Site, expected: dict[Player, str]) -> None:
    """Each player's balance on his page, then in the server's ledger, is the one given."""
    for player, balance in expected.items():
        expect_text(player.page.locator("#balance"), balance)
        assert site.balance(player.name) == Decimal(balance)


def expect_text(locator: object, text: str | re.Pattern[str] | list[str]) -> None:
    from playwright.sync_api import Locator, expect

    assert isinstance(locator, Locator)
    expect(locator).to_have_text(text, timeout=WAIT_MS)


def expect_contains(locator: object, text: str | re.Pattern[str]) -> None:
    from playwright.sync_api import Locator, expect

    assert isinstance(locator, Locator)
    expect(locator).to_contain_text(text, timeout=WAIT_MS)


def settle_animations(page: Page) -> None:
    """Wait until the cards dealt last have landed (for a screenshot).

    An animation cancelled meanwhile (its element re-rendered or removed: a dialog
    opened over the table before its last card landed, on a slow machine) is done too:
    its ``finished`` rejects with AbortError, which ``allSettled`` takes as settled."""
    page.evaluate(
        """async () => {
            for (let round = 0; round < 50; round++) {
                const running = document.getAnimations().filter((a) => a.playState === "running");
                if (!running.length) return;
                await Promise.allSettled(running.map((a) => a.finished));
            }
        }"""
    )


def assert_hole_card_sent_only_when_revealed(frames: list[str], hole: str) -> None:
    """The first frame that carries ``hole`` is the dealer's turn: the card turned over."""
    carrying = [json.loads(frame) for frame in frames if hole in frame]
    assert carrying, f"the watcher never saw {hole}"
    first = carrying[0]
    if first["type"] == "events":
        assert {"type": "hole_card_revealed", "card": hole}.items() <= next(
            e for e in first["events"] if e["type"] == "hole_card_revealed"
        ).items()
    else:
        assert first["type"] == "state", first
        assert first["state"]["dealer"]["hidden_cards"] == 0
        assert first["state"]["phase"] in ("dealer-turn", "settled"), first["state"]["phase"]


def test_two_players_play_whole_rounds_with_a_split_a_double_insurance_and_a_side_bet(
    live_site: Site, browser: Browser, screenshots: Path
) -> None:
    """Two players in two browsers at one live table, and a watcher in a third.

    Round 1 (Live Blackjack Game Rules: The Play, Insurance, Splitting Pairs, Doubling
    Down, Perfect Pairs): ann bets 25 and 5 on Perfect Pairs and is dealt a perfect
    pair of 8S (paid 25 to 1); the up card is an Ace, so both are offered insurance;
    ann insures, bob declines; ann splits, bob doubles his 11; the dealer's soft 17
    stands.  Round 2: both repeat their bets with Rebet and stand.  After each round
    the balances on both pages equal the ledger's.
    """
    ann = Player(browser, live_site)
    bob = Player(browser, live_site)
    watcher = Player(browser, live_site)
    watcher.record_frames()
    watcher.page.goto(f"{live_site.url}/#/table/live")  # nobody signed in: watching
    expect_contains(watcher.page.locator(".controls"), "You are watching")
    ann.sign_up("ann")
    bob.sign_up("bob")
    lobby = ann.page.locator("[data-table='live']")
    expect_contains(lobby, "Perfect Pairs, 21+3")
    expect_contains(lobby, re.compile(r"RTP 9\d\.\d\d%"))  # the exact math
    ann.page.screenshot(path=str(screenshots / "lobby.png"))
    ann.sit_at("live")
    bob.sit_at("live")

    # Bets: each chip is a bet as it lands; the money leaves the balance at once.
    ann.chip("25.00")
    ann.page.click("[data-spot='1:main']")
    ann.chip("5.00")
    ann.page.click("[data-spot='1:perfect_pairs']")
    expect_text(ann.page.locator("#balance"), "970.00")
    bob.chip("25.00")
    bob.page.click("[data-spot='2:main']")
    bob.page.click("[data-spot='2:main']")
    expect_text(bob.page.locator("#balance"), "950.00")
    # Both confirm: the deal starts once the last of them has.
    ann.page.click("text=Place bets")
    expect_contains(ann.page.locator(".notice"), "Bets accepted: 30.00")
    bob.page.keyboard.press("Enter")  # Place bets

    # The deal: an Ace up; insurance is offered to each player; the hole card face down.
    expect_contains(ann.page.locator(".offer"), "Insure")
    expect_contains(bob.page.locator(".offer"), "Insure")
    for person in (ann, bob, watcher):
        dealer = person.page.locator(".dealer")
        expect_contains(dealer, "A")
        assert dealer.locator(".card.back").count() == 1
        assert person.page.locator(f"[data-card='{LIVE_HOLE_1}']").count() == 0
    # Perfect Pairs is settled on the deal: 5 at 25 to 1.
    expect_contains(ann.page.locator("[data-box='1']"), "Perfect Pairs (ann): perfect pair +125.00")
    ann.page.keyboard.press("i")  # insurance: half the bet, 12.50
    expect_text(ann.page.locator("#balance"), "957.50")
    bob.page.click("text=No thanks")

    # ann's turn: she splits her 8s and stands on both hands; bob cannot act for her.
    expect_contains(ann.page.locator(".actions"), "Split")
    # bob's page has ann's turn too (its own socket may bring it a moment after hers).
    expect_contains(bob.page.locator(".timer[data-kind='decision']"), "(box 1)")
    bob.page.keyboard.press("h")
    expect_contains(bob.page.locator(".notice"), "It is not your turn: box 1 is playing")
    ann.page.keyboard.press("p")
    expect_text(ann.page.locator("#balance"), "932.50")
    expect_contains(ann.page.locator("[data-box='1'] [data-hand='1'] .total"), "18")
    settle_animations(ann.page)
    ann.page.screenshot(path=str(screenshots / "table-mid-round.png"))
    ann.page.keyboard.press("s")
    expect_contains(ann.page.locator("[data-box='1'] [data-hand='2'] .total"), "17")
    ann.page.keyboard.press("s")

    # bob doubles his 11 and draws a 9; the dealer turns over his card and stands.
    bob.page.click("button:text('Double (D)')")
    expect_contains(bob.page.locator("[data-box='2'] .total"), "20 · doubled")
    expect_contains(watcher.page.locator(".dealer .total"), "17")
    assert_balances(live_site, {ann: "1137.50", bob: "1100.00"})
    expect_text(ann.page.locator("#net"), "+137.50")  # the session's net with its sign

    # The watcher was never sent the hole card before the dealer turned it over.
    assert_hole_card_sent_only_when_revealed(watcher.frames, LIVE_HOLE_1)

    # Round 2: Rebet puts last round's bets back (25 and 5 on Perfect Pairs; bob 50).
    ann.page.wait_for_selector("[data-spot='1:main']:not([disabled])")
    ann.page.keyboard.press("b")
    bob.page.wait_for_selector("[data-spot='2:main']:not([disabled])")
    bob.page.click("text=Rebet")
    expect_text(ann.page.locator("#balance"), "1107.50")
    expect_text(bob.page.locator("#balance"), "1050.00")
    ann.page.click("text=Place bets")
    bob.page.click("text=Place bets")
    expect_contains(ann.page.locator(".actions"), "Stand")
    ann.page.keyboard.press("s")
    expect_contains(bob.page.locator(".actions"), "Stand")
    bob.page.keyboard.press("s")
    # ann's 19 beats the dealer's 18; her Perfect Pairs loses; bob's 17 loses.
    assert_balances(live_site, {ann: "1157.50", bob: "1050.00"})
    expect_contains(bob.page.locator(".log"), "Dealer has 18")
    assert live_site.books() == []

    # History: both rounds, the first opening to its recall.
    ann.page.click("text=History")
    rows = ann.page.locator(".history tbody tr")
    expect_text(rows.nth(0).locator("td").nth(0), "#2")
    ann.page.locator(".history tbody tr", has_text="#1").locator("text=Recall").click()
    recall = ann.page.locator(".recall")
    expect_contains(recall, "Balance before 1000.00, after 1137.50")
    expect_contains(recall, "split")
    assert recall.locator(".cards .card").count() == 9
    ann.page.screenshot(path=str(screenshots / "recall.png"), full_page=True)
    for person in (ann, bob, watcher):
        person.close()
    for name in ("lobby.png", "table-mid-round.png", "recall.png"):
        assert (screenshots / name).read_bytes().startswith(b"\x89PNG")


def test_a_network_gone_silent_is_noticed_and_the_round_found_again(
    tmp_path: Path, browser: Browser
) -> None:
    """A network that goes silent closes nothing: no frame comes, none goes (once the
    countdown sat at "Decide in 0s" for 46 s, the buttons enabled).  The page pings
    the server when it hears nothing and, with no answer well within the decision
    clock, says "Reconnecting…" and disables the decisions; the network back, it
    reconnects, shows the round where it stands, and her decision plays."""
    table = TableConfig(
        id="rws", preset="rws-v5", betting_seconds=2, offer_seconds=60, decision_seconds=60
    )
    for site in serve(tmp_path, table, shoes={"rws": RWS_SHOE}):
        ann = Player(browser, site)
        page = ann.page
        silent = threading.Event()

        def route(socket: Any, silent: threading.Event = silent) -> None:
            if silent.is_set():  # no network: nothing gets through
                socket.close()
                return
            server = socket.connect_to_server()
            socket.on_message(lambda message: None if silent.is_set() else server.send(message))
            server.on_message(lambda message: None if silent.is_set() else socket.send(message))

        page.route_web_socket(re.compile(r".*/ws/tables/.*"), route)
        ann.sign_up("ann")
        ann.sit_at("rws")
        page.click("[data-spot='1:main']")
        page.keyboard.press("Enter")
        expect_contains(page.locator(".actions"), "Surrender (R)")
        silent.set()
        expect_contains(page.locator(".link"), "Reconnecting")
        assert page.locator(".actions button:not([disabled])").count() == 0
        silent.clear()
        expect_text(page.locator(".link"), "")  # connected again
        page.wait_for_selector(".actions button[data-key='s']:not([disabled])")
        expect_contains(page.locator("[data-box='1'] .total"), "17")
        page.click(".actions button[data-key='s']")  # plays on: declines surrender, stands
        expect_text(page.locator("#balance"), "1025.00")  # the dealer busts
        assert site.balance("ann") == Decimal("1025.00")
        ann.close()


def test_a_newcomer_plays_with_the_keyboard_and_reloads_in_the_middle_of_a_round(
    rws_site: Site, browser: Browser
) -> None:
    """RWS v5 3.16 (surrender offered first), answered with the keyboard; a reload in
    the middle of the round brings back the same cards, offer, turn and session."""
    ann = Player(browser, rws_site)
    ann.sign_up("ann")
    page = ann.page
    expect_contains(page.locator("[data-table='rws']"), "RTP 99.81%")  # the exact math, rws-v5
    ann.sit_at("rws")
    page.click("[data-spot='1:main']")  # the smallest chip is picked to start: 25.00
    page.click("[data-spot='1:main']")
    page.keyboard.press("u")  # undo the second chip
    expect_contains(page.locator("[data-spot='1:main']"), "25.00")
    expect_text(page.locator("#balance"), "975.00")  # the chip is a bet as it lands
    page.keyboard.press("Enter")
    expect_contains(page.locator(".notice"), "Bets accepted: 25.00")
    # Surrender is offered before any third card (RWS v5 3.16), beside Hit and Stand.
    expect_contains(page.locator(".actions"), "Surrender (R)")
    assert page.locator(".dealer .card").count() == 1  # no hole card is dealt

    page.reload()
    expect_contains(page.locator(".actions"), "Surrender (R)")
    expect_text(page.locator("#balance"), "975.00")
    expect_text(page.locator("#net"), "-25.00")  # the session survives the reload
    expect_contains(page.locator(".log"), "Box 1: 7H")  # and so does the table's log
    expect_contains(page.locator("[data-box='1'] .total"), "17")
    assert page.locator("[data-box='1'] .card").count() == 2
    page.keyboard.press("s")  # plays on: declines the surrender and stands
    expect_text(page.locator("#balance"), "1025.00")  # the dealer busts
    expect_text(page.locator("#net"), "+25.00")
    assert rws_site.balance("ann") == Decimal("1025.00")
    ann.close()


def test_bad_input_on_the_page_gets_a_clear_message_and_changes_nothing(
    live_site: Site, browser: Browser
) -> None:
    """A bet over the table's limit (the live rules' side-bet maximum), a bet on a box
    another player holds, an action key out of turn, placing no bets: each gets a
    message that says what is wrong, and no money moves."""
    ann = Player(browser, live_site)
    bob = Player(browser, live_site)
    ann.sign_up("ann")
    bob.sign_up("bob")
    ann.sit_at("live")
    bob.sit_at("live")
    page = ann.page

    page.keyboard.press("Enter")  # Place bets, with nothing on the layout
    expect_contains(page.locator(".notice"), "Put chips on a betting spot first")
    page.keyboard.press("h")
    expect_contains(page.locator(".notice"), "There is no hand to play now.")

    # bob holds box 3; the server refuses ann's chip there and says why.
    bob.page.locator("[data-box='3']").get_by_role("button", name="Sit").click()
    expect_contains(page.locator("[data-box='3'] .holder"), "bob")
    ann.chip("5.00")
    page.click("[data-spot='3:main']")
    expect_contains(page.locator(".notice"), "box 3 is taken by bob")
    # live has no standing players: nobody is told to bet behind him.
    assert "behind" not in page.locator(".notice").inner_text()

    ann.chip("500.00")
    page.click("[data-spot='1:perfect_pairs']")
    expect_contains(page.locator("[data-spot='1:perfect_pairs']"), "500.00")
    page.click("[data-spot='1:perfect_pairs']")
    expect_contains(
        page.locator(".notice"),
        "Box 1: a Perfect Pairs bet of 1000.00 is over the table's maximum of 500.00.",
    )
    page.keyboard.press("c")  # clear: the chips come back off the layout
    expect_text(page.locator("#balance"), "1000.00")

    ann.chip("1000.00")
    page.click("[data-spot='1:main']")
    expect_text(page.locator("#balance"), "0.00")
    page.click("[data-spot='2:main']")
    expect_contains(page.locator(".notice"), "Your balance of 0.00 does not cover 1000.00")
    page.keyboard.press("c")
    expect_text(page.locator("#balance"), "1000.00")
    assert live_site.balance("ann") == Decimal("1000.00")
    assert live_site.books() == []
    ann.close()
    bob.close()


def test_the_hourly_reality_check_shows_time_played_and_amount_wagered(
    rws_site: Site, browser: Browser
) -> None:
    """Online tables: every hour of play the page stops for a reminder of the time
    played and the amount wagered, which the player acknowledges."""
    ann = Player(browser, rws_site)
    ann.context.clock.install()
    ann.sign_up("ann")
    ann.sit_at("rws")
    ann.page.click("[data-spot='1:main']")
    ann.page.click("text=Place bets")
    expect_text(ann.page.locator("#balance"), "975.00")
    dialog = ann.page.locator("#reminder")
    assert not dialog.is_visible()
    ann.context.clock.fast_forward("59:00")
    ann.page.wait_for_timeout(1500)
    assert not dialog.is_visible()
    ann.context.clock.fast_forward("01:05")
    expect_contains(dialog, "You have played for 1 hour and wagered 25.00.")
    expect_contains(dialog, "net result this session is -25.00")
    dialog.get_by_role("button", name="I understand").click()
    ann.page.wait_for_timeout(500)
    assert not dialog.is_visible()
    ann.close()


def test_the_rules_the_strategy_chart_and_the_hint(live_site: Site, browser: Browser) -> None:
    """The rules one click away, written from the preset with every side bet's pay
    table (live rules: Perfect Pairs 25/12/6, 21+3 100/40/30/10/5), the basic strategy
    chart for the table's rules, and the hint of the basic strategy's choice."""
    ann = Player(browser, live_site)
    asked: list[str] = []
    ann.page.on("request", lambda request: asked.append(request.url))
    ann.sign_up("ann")
    ann.sit_at("live")
    page = ann.page
    expect_contains(page.locator(".timer"), "Place your bets")
    # The chart (the page's largest read) is fetched only when it is opened.
    assert not [url for url in asked if url.endswith("/strategy")]
    page.click("text=Rules")
    panel = page.locator("dialog.rules-panel")
    expect_contains(panel, "Live Blackjack Game Rules")
    perfect = panel.locator(".paytable[data-side-bet='perfect_pairs']")
    expect_contains(perfect, "25 to 1")
    expect_contains(perfect, "12 to 1")
    expect_contains(perfect, "6 to 1")
    three = panel.locator(".paytable[data-side-bet='21+3']")
    for pays in ("100 to 1", "40 to 1", "30 to 1", "10 to 1", "5 to 1"):
        expect_contains(three, pays)
    expect_contains(panel, re.compile(r"Return to player with basic strategy: 9\d\.\d\d%"))
    page.keyboard.press("Escape")
    page.click("text=Strategy chart")
    chart = page.locator("dialog.strategy-panel svg")
    chart.wait_for()
    assert chart.count() == 1
    assert len([url for url in asked if url.endswith("/strategy")]) == 1
    page.keyboard.press("Escape")

    page.check("text=Show hint")
    page.click("[data-spot='1:main']")
    page.click("text=Place bets")
    # Alone at the table ann is dealt 8S and AH against the 7D: soft 19 stands.
    expect_contains(page.locator(".hint"), "Basic strategy: stand")
    ann.close()


def test_the_dealer_console_is_for_dealers_and_deals_a_physical_shoe(
    tmp_path: Path, browser: Browser
) -> None:
    """RWS v5 5.17 (a void round returns every bet) at a table dealt by hand: the
    dealer enters the cards on his console; a bad card is refused with a message; a
    player cannot open the console."""
    table = TableConfig(id="pit", preset="rws-v5", dealt="dealer", betting_seconds=2)
    for site in serve(tmp_path, table, shoes={}):
        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.page.goto(f"{site.url}/#/dealer/pit")
        expect_contains(ann.page.locator("main"), "for dealer accounts only")
        ann.page.goto(f"{site.url}/#/table/pit")
        ann.page.click("[data-spot='1:main']")
        ann.page.click("text=Place bets")
        expect_text(ann.page.locator("#balance"), "975.00")

        site.add_dealer("dee")
        dealer = Player(browser, site)
        page = dealer.page
        page.goto(f"{site.url}/#/login")
        page.fill("#name", "dee")
        page.fill("#password", PASSWORD)
        page.click("button:text('Log in')")
        expect_contains(page.locator("main"), "Tables")  # signed in, back at the lobby
        page.goto(f"{site.url}/#/dealer/pit")
        # The console says whose card is next (RWS v5: box by box, then the dealer).
        console = page.locator(".dealer-console")
        expect_contains(console, "The table waits for the next card: box 1.")
        page.fill("#card", "ZZ")
        page.click("text=Enter card")
        expect_contains(page.locator(".notice"), "ZZ")
        page.fill("#card", "10S")
        page.keyboard.press("Enter")
        expect_contains(ann.page.locator("[data-box='1']"), "10")
        expect_contains(page.locator(".dealer-console"), "next card: the dealer.")
        expect_contains(page.get_by_label("Next card, for the dealer"), "")

        # A technical interruption and the cut card are asked to be confirmed first.
        page.click("text=Technical interruption")
        confirm = page.locator("dialog.confirm")
        expect_contains(confirm, "Record a technical interruption?")
        confirm.get_by_role("button", name="Cancel").click()
        expect_contains(page.locator(".dealer-console"), "next card: the dealer.")  # untouched
        page.click("text=Cut card out")
        expect_contains(confirm, "The shoe is shuffled after this round.")
        confirm.get_by_role("button", name="Cut card is out").click()
        assert confirm.count() == 0
        assert "Technical interruption" not in ann.page.locator(".log").inner_text()
        page.fill("#reason", "card exposed")
        page.click("text=Void round")
        expect_contains(ann.page.locator(".log"), "Round void: card exposed")
        expect_text(ann.page.locator("#balance"), "1000.00")  # the bet is returned
        assert site.balance("ann") == Decimal("1000.00")
        assert site.books() == []
        ann.close()
        dealer.close()


@pytest.mark.parametrize(
    ("name", "width", "height"),
    [("phone", 390, 844), ("desktop", 1280, 800), ("large", 2560, 1440)],
)
def test_the_table_fits_a_phone_and_a_large_screen(
    rws_site: Site, browser: Browser, screenshots: Path, name: str, width: int, height: int
) -> None:
    """The felt, the chips and the actions fit the screen without sideways scrolling,
    and at each step of a round what the player needs is on one screen, never scrolled
    off or under the session bar: at betting his spots, the chips and Place bets; at his
    decision the dealer's cards, his own, the clock and the buttons; at the result the
    dealer's final hand and the banner."""
    touch = {"has_touch": True, "is_mobile": True} if name == "phone" else {}
    player = Player(browser, rws_site, viewport={"width": width, "height": height}, **touch)
    player.context.set_default_timeout(WAIT_MS)
    player.sign_up("ann")
    player.sit_at("rws")
    page = player.page
    expect_contains(page.locator(".controls"), "Place bets")
    settle_animations(page)
    page.screenshot(path=str(screenshots / f"table-{name}-betting.png"))
    assert_on_screen(page, height, "[data-spot='1:main']", ".chips", "button[data-key='enter']")
    page.click("[data-spot='1:main']")
    page.click("text=Place bets")
    expect_contains(page.locator(".actions"), "Surrender")
    expect_contains(page.locator(".actions"), "Stand")
    settle_animations(page)
    page.screenshot(path=str(screenshots / f"table-{name}.png"))
    assert_on_screen(page, height, ".dealer .card", ".box.yours .card", ".timer", ".actions")
    overflow = page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow == 0
    for selector in (".felt", ".actions", "#balance"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    if name == "phone":
        # WCAG 2.2 2.5.5 (AAA; the page's own floor): every control at least 44 px.
        small = page.evaluate(TOO_SMALL_TO_TOUCH)
        assert small == [], f"controls under 44 px on a phone: {small}"
    page.keyboard.press("s")  # stand on 17 against the dealer's 6: he draws 9 and K, bust
    expect_contains(page.locator(".banner"), "25.00")
    expect_text(page.locator(".dealer .total"), "Dealer 25 bust")
    settle_animations(page)
    page.screenshot(path=str(screenshots / f"table-{name}-result.png"))
    assert_on_screen(page, height, ".dealer .card", ".banner")
    player.close()


def assert_on_screen(page: Page, height: int, *selectors: str) -> None:
    """Every element of each of ``selectors`` lies wholly on the screen: below the
    session bar (where it stays at the top) and above the bottom edge."""
    bar = page.locator("header.bar").bounding_box()
    top = 0.0
    sticky = "getComputedStyle(document.querySelector('header.bar')).position"
    if bar is not None and page.evaluate(sticky) == "sticky":
        top = bar["y"] + bar["height"]
    for selector in selectors:
        found = page.locator(selector)
        boxes = [found.nth(i).bounding_box() for i in range(found.count())]
        assert boxes, f"{selector}: not on the page"
        for box in boxes:
            assert box is not None
            assert top - 1 <= box["y"] and box["y"] + box["height"] <= height + 1, (
                f"{selector} spans y = {box['y']:.0f} to {box['y'] + box['height']:.0f}, "
                f"off the screen (visible from {top:.0f} to {height})"
            )


#: The visible buttons, links styled as buttons and spots under 44 px either way.
TOO_SMALL_TO_TOUCH = """() => [...document.querySelectorAll("button, a.button, .spot")]
  .filter((element) => element.getClientRects().length > 0)
  .map((element) => {
    const box = element.getBoundingClientRect();
    return { text: element.textContent.trim().slice(0, 30), width: box.width, height: box.height };
  })
  .filter((box) => box.width < 44 || box.height < 44)"""

#: Each visible text on the felt with its contrast ratio (WCAG 2.2 1.4.3), against the
#: backgrounds it lies on composited over the felt's given colour; disabled controls are
#: exempt (1.4.3's inactive components).
CONTRASTS = r"""(feltColour) => {
  const parse = (text) => {
    const hex = text.trim().match(/^#([0-9a-f]{6})$/i);
    if (hex) return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)).concat([1]);
    const parts = text.match(/rgba?\(([^)]+)\)/);
    if (!parts) return null;
    const values = parts[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [values[0], values[1], values[2], values.length > 3 ? values[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3]));
  const luminance = (rgb) => {
    const linear = (value) => {
      const x = value / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2]);
  };
  const felt = document.querySelector(".felt");
  const base = parse(getComputedStyle(document.documentElement).getPropertyValue(feltColour));
  const found = [];
  for (const element of felt.querySelectorAll("*")) {
    const own = [...element.childNodes].some(
      (node) => node.nodeType === 3 && node.textContent.trim());
    if (!own || element.getClientRects().length === 0 || element.closest(":disabled")) continue;
    const chain = [];
    for (let node = element; node && node !== felt; node = node.parentElement) chain.unshift(node);
    let background = base.slice(0, 3);
    let opacity = 1;
    for (const node of chain) {
      const style = getComputedStyle(node);
      opacity *= Number(style.opacity);
      const colour = parse(style.backgroundColor);
      if (colour && colour[3] > 0) background = over(colour, background);
    }
    const ink = parse(getComputedStyle(element).color);
    const colour = over([ink[0], ink[1], ink[2], ink[3] * opacity], background);
    const [a, b] = [luminance(colour), luminance(background)];
    found.push({
      text: element.textContent.trim().slice(0, 40),
      ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
    });
  }
  return found;
}"""


def test_a_box_taken_with_sit_is_given_back_with_leave(rws_site: Site, browser: Browser) -> None:
    """A box reserved with Sit is held for its player until he bets (docs/protocol.md);
    until then Leave gives it back, to him and to every other player at once."""
    ann, bob = Player(browser, rws_site), Player(browser, rws_site)
    for player, name in ((ann, "ann"), (bob, "bob")):
        player.context.set_default_timeout(WAIT_MS)
        player.sign_up(name)
        player.sit_at("rws")
    ann.page.click("[aria-label='Sit at box 3']")
    expect_text(bob.page.locator("[data-box='3'] .holder"), "ann")
    expect_text(bob.page.locator("[aria-label='Sit at box 3']"), [])  # held for ann
    ann.page.click("[aria-label='Leave box 3']")
    expect_text(bob.page.locator("[data-box='3'] .holder"), "free")
    expect_text(ann.page.locator("[data-box='3'] .holder"), "free")
    expect_text(ann.page.locator("[aria-label='Leave box 3']"), [])
    bob.page.click("[aria-label='Sit at box 3']")  # anyone may take it now
    expect_text(ann.page.locator("[data-box='3'] .holder"), "bob")
    ann.close()
    bob.close()


def test_text_on_the_felt_has_a_contrast_of_at_least_4_5(rws_site: Site, browser: Browser) -> None:
    """WCAG 2.2 1.4.3 (AA): every text on the felt, measured on the rendered page against
    both ends of the felt's gradient: the table's print, the timers, the stakes, the
    offers and actions' surroundings, the totals and the result lines."""
    ann = Player(browser, rws_site)
    ann.sign_up("ann")
    ann.sit_at("rws")
    page = ann.page
    page.click("[data-spot='1:main']")
    page.click("text=Place bets")
    expect_contains(page.locator(".actions"), "Stand (S)")
    settle_animations(page)
    measured = []
    for colour in ("--felt", "--felt-light"):
        measured += page.evaluate(CONTRASTS, colour)
    page.keyboard.press("s")
    expect_contains(page.locator("[data-box='1'] .result"), "ann")
    settle_animations(page)
    for colour in ("--felt", "--felt-light"):
        measured += page.evaluate(CONTRASTS, colour)
    assert len(measured) > 10
    low = [(item["text"], round(item["ratio"], 2)) for item in measured if item["ratio"] < 4.5]
    assert low == [], f"text under 4.5:1 on the felt: {low}"
    ann.close()


def test_a_box_with_another_players_bet_is_taken_where_nobody_bets_behind(
    live_site: Site, browser: Browser
) -> None:
    """live has no standing players ("The Bet": one player to a box; only RWS v5 1.26
    has bets behind): once ann has bet on box 1, bob's spot there says Taken and takes
    no chip."""
    ann = Player(browser, live_site)
    bob = Player(browser, live_site)
    ann.sign_up("ann")
    bob.sign_up("bob")
    ann.sit_at("live")
    bob.sit_at("live")
    ann.chip("5.00")
    ann.page.click("[data-spot='1:main']")
    taken = bob.page.locator("[data-spot='1:main']")
    expect_contains(taken, "Taken")
    assert taken.is_disabled()
    ann.close()
    bob.close()


def test_a_player_bets_behind_and_follows_the_split(tmp_path: Path, browser: Browser) -> None:
    """RWS v5: bob bets behind ann's box (1.26: the box's decisions are hers), is
    offered to follow her split (3.21) and follows it; both split hands win when the
    dealer busts (8S 6D 8H, then K and 9 on the split hands, the dealer Q and J).  The
    table shows ann's stake by name and bob's as the total behind her hand; bob's own
    page shows his by name."""
    table = TableConfig(id="rws", preset="rws-v5", betting_seconds=4, offer_seconds=60)
    for site in serve(tmp_path, table, shoes={"rws": "8S 6D 8H KC 9C QD JD"}):
        ann = Player(browser, site)
        bob = Player(browser, site)
        ann.sign_up("ann")
        bob.sign_up("bob")
        ann.sit_at("rws")
        bob.sit_at("rws")
        ann.page.click("[data-spot='1:main']")
        behind = bob.page.locator("[data-spot='1:main']")
        expect_contains(behind, "Bet behind")
        behind.click()
        expect_text(bob.page.locator("#balance"), "975.00")
        bob.page.click("text=Place bets")
        ann.page.click("text=Place bets")
        expect_contains(ann.page.locator(".actions"), "Surrender (R)")
        assert bob.page.locator(".actions").count() == 0  # the box's decisions are ann's
        expect_contains(ann.page.locator(".actions"), "Split (P)")
        ann.page.keyboard.press("p")  # declines the surrender and splits
        expect_contains(bob.page.locator(".offer"), "follow")
        bob.page.keyboard.press("f")
        expect_text(bob.page.locator("#balance"), "950.00")
        # Each sees his own stake by name; ann sees bob's as the total behind her hand.
        stakes = ann.page.locator("[data-box='1'] [data-hand='2'] .stakes")
        expect_contains(stakes, "ann 25.00")
        expect_contains(stakes, "1 behind 25.00")
        own = bob.page.locator("[data-box='1'] [data-hand='2'] .stakes")
        expect_contains(own, "ann 25.00")
        expect_contains(own, "bob 25.00")
        ann.page.keyboard.press("s")
        expect_contains(ann.page.locator("[data-box='1'] [data-hand='2'] .total"), "17")
        ann.page.keyboard.press("s")
        assert_balances(site, {ann: "1050.00", bob: "1050.00"})
        assert site.books() == []
        ann.close()
        bob.close()


def test_a_new_tab_keeps_the_session_and_the_server_refuses_a_bet_over_the_loss_limit(
    rws_site: Site, browser: Browser, screenshots: Path
) -> None:
    """The login is the server's cookie and the session of play is the server's: a tab
    closed and a new one opened shows the same player, balance and session net.  The
    loss limit the player set is the server's to enforce: of two bets, the one that
    would take his loss past it is refused with the server's message."""
    ann = Player(browser, rws_site)
    ann.sign_up("ann")
    page = ann.page
    page.click("nav >> text=Limits")
    page.fill("#loss-limit", "30")
    page.click("#save-limits")
    expect_contains(page.locator("#limits-now"), "a loss limit of 30.00")
    page.screenshot(path=str(screenshots / "limits.png"))
    page.goto(f"{rws_site.url}/#/")
    ann.sit_at("rws")
    page.click("[data-spot='1:main']")  # each chip is a bet as it lands
    page.click("[data-spot='2:main']")
    expect_contains(
        page.locator(".notice"),
        "bet of 25.00 refused: it would take your loss this session to 50.00, past your "
        "loss limit of 30.00; you may stake up to 5.00 more this session",
    )
    page.click("text=Place bets")
    expect_contains(page.locator(".notice"), "Bets accepted: 25.00")
    expect_text(page.locator("#balance"), "975.00")
    expect_text(page.locator("#net"), "-25.00")
    assert rws_site.balance("ann") == Decimal("975.00")

    page.close()  # the tab goes; the browser (and its cookie) stays
    tab = ann.context.new_page()
    tab.set_default_timeout(WAIT_MS)
    tab.on("pageerror", lambda error: ann.errors.append(str(error)))
    tab.goto(f"{rws_site.url}/#/table/rws")
    expect_text(tab.locator("#balance"), "975.00")
    expect_text(tab.locator("#net"), "-25.00")
    expect_contains(tab.locator("[data-box='1']"), "ann")  # seated: the socket knows her
    tab.locator("#logout").click()
    expect_contains(tab.locator("header.bar"), "Log in")
    tab.goto(f"{rws_site.url}/#/history")
    expect_contains(tab.locator("main"), "Take a seat")  # logged out in every tab
    assert rws_site.books() == []
    ann.context.close()
    assert ann.errors == []


#: Four rounds at RWS v5 (no hole card), ann alone on box 1 with 25.00 each time: a win
#: (17 against the dealer's 6 9 K), a blackjack (A K against a 9: paid 3 to 2 at once),
#: a loss (16 against 10 8) and a push (17 against 7 Q).
FOUR_ROUNDS = "10S 6D 7H 9C KD  AS 9S KS  10C 10H 6S 8D  10D 7H 7D QH"


def test_bets_confirmed_with_enter_deal_at_once_and_each_result_is_shown(
    tmp_path: Path, browser: Browser, screenshots: Path
) -> None:
    """RWS v5 5.8: with the betting clock at 60 s, each round is dealt as soon as ann
    (alone at the table) confirms her bets, with Enter wherever the focus is on the
    layout.  Each round ends with a banner of her net across her bets; the recent
    results and the session's figures add up; a blackjack and a win are highlighted, a
    push is neutral (RWS v5 3.19: blackjack pays 3 to 2)."""
    table = TableConfig(id="rws", preset="rws-v5", betting_seconds=60, offer_seconds=60)
    for site in serve(tmp_path, table, shoes={"rws": FOUR_ROUNDS}):
        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.sit_at("rws")
        page = ann.page
        spot = page.locator("[data-spot='1:main']")
        banner = page.locator(".banner")

        # Round 1: a chip on the spot is a bet at once; Enter on the focused spot
        # confirms (it does not add a chip) and the deal starts.
        spot.click()
        expect_contains(page.locator(".layout-total"), "Your bets on the layout: 25.00")
        expect_text(page.locator("#balance"), "975.00")
        spot.focus()
        page.keyboard.press("Enter")
        expect_contains(page.locator(".notice"), "Bets accepted: 25.00")
        expect_contains(page.locator(".actions"), "Surrender (R)")  # dealt long before 60 s
        expect_text(page.locator("#balance"), "975.00")  # Enter added no chip
        page.keyboard.press("s")
        expect_contains(banner, "You win")
        expect_contains(banner.locator(".banner-net"), "+25.00")
        expect_contains(page.locator("[data-box='1'] .hand.won .result"), "ann: Win +25.00")

        # Round 2: the chip 25 clicked after the spot keeps the focus; Enter still
        # confirms.  A blackjack against a 9 is paid at once.
        spot.wait_for(state="visible")
        expect_text(spot, re.compile(r"^Bet$"))
        spot.click()
        ann.chip("25.00")
        page.keyboard.press("Enter")
        expect_contains(banner, "Blackjack!")
        expect_contains(banner.locator(".banner-net"), "+37.50")
        expect_contains(page.locator("[data-box='1'] .hand.blackjack"), "Blackjack")
        settle_animations(page)
        page.screenshot(path=str(screenshots / "table-banner.png"))

        # Round 3: lost.  Round 4: a push, in a neutral colour.
        for result, net in (("You lose", "-25.00"), ("Push", "0.00")):
            expect_text(spot, re.compile(r"^Bet$"))
            spot.click()
            page.click("text=Place bets")
            expect_contains(page.locator(".actions"), "Stand (S)")
            page.keyboard.press("s")
            expect_contains(banner, result)
            expect_contains(banner.locator(".banner-net"), net)
        assert page.locator(".banner.push").count() == 1
        assert page.locator("[data-box='1'] .result.push").count() == 1

        recent = page.locator(".recent")
        expect_text(recent.locator(".bead"), ["W", "BJ", "L", "P"])
        expect_text(recent.locator("[data-stat='rounds']"), "4")
        expect_text(recent.locator("[data-stat='won']"), "2")
        expect_text(recent.locator("[data-stat='blackjacks']"), "1")
        expect_text(recent.locator("[data-stat='best']"), "37.50")
        expect_text(recent.locator("[data-stat='net']"), "+37.50")
        assert_balances(site, {ann: "1037.50"})
        expect_text(page.locator("#net"), "+37.50")
        recent.screenshot(path=str(screenshots / "recent-results.png"))

        # Sound is off until turned on; the choice is kept.
        sound = page.get_by_role("button", name=re.compile("^Sound"))
        expect_text(sound, "Sound off")
        sound.click()
        expect_text(sound, "Sound on")

        # A reload keeps the recent results, the sound and the table's log.
        page.reload()
        expect_text(page.locator(".recent .bead"), ["W", "BJ", "L", "P"])
        assert sound.get_attribute("aria-pressed") == "true"
        expect_contains(page.locator(".log"), "Dealer has 17")
        assert site.books() == []
        ann.close()


def test_chips_left_on_the_layout_at_no_more_bets_are_the_bet(
    rws_site: Site, browser: Browser
) -> None:
    """RWS v5 5.8: ann puts two chips down and never presses Place bets; at "No more
    bets" both are her bet (50.00), played and paid."""
    ann = Player(browser, rws_site)
    ann.sign_up("ann")
    ann.sit_at("rws")
    page = ann.page
    page.click("[data-spot='1:main']")
    page.click("[data-spot='1:main']")
    expect_contains(page.locator(".actions"), "Stand (S)")  # the betting clock ran out
    expect_contains(page.locator("[data-box='1'] .stakes"), "ann 50.00")
    page.keyboard.press("s")
    expect_contains(page.locator(".banner"), "+50.00")
    assert_balances(rws_site, {ann: "1050.00"})
    ann.close()


def test_time_running_out_is_told_with_the_tables_rule(tmp_path: Path, browser: Browser) -> None:
    """RWS v5 5.3: ann does not act; the offer is declined for her and her 17 stands.
    The timer cites the table's own rulebook, and she is told what became of her hand."""
    table = TableConfig(
        id="rws", preset="rws-v5", betting_seconds=1, offer_seconds=2, decision_seconds=2
    )
    for site in serve(tmp_path, table, shoes={"rws": RWS_SHOE}):
        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.sit_at("rws")
        page = ann.page
        page.click("[data-spot='1:main']")
        expect_contains(page.locator(".timer"), "draw to 12 or more, then stand (RWS v5 5.3)")
        expect_contains(page.locator(".banner"), "Time ran out: your hand stood on 17, +25.00.")
        assert_balances(site, {ann: "1025.00"})
        ann.close()


def test_an_insured_blackjack_is_offered_as_even_money(tmp_path: Path, browser: Browser) -> None:
    """Live Blackjack Game Rules, Insurance ("You may obtain insurance even if you have
    Blackjack"): against an Ace, ann's blackjack is offered even money; taking it
    insures for half her bet, and she is paid 1 to 1 whatever the dealer has."""
    table = TableConfig(id="live", preset="live", betting_seconds=60, offer_seconds=60)
    for site in serve(tmp_path, table, shoes={"live": "AS AD KH 9C"}):
        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.sit_at("live")
        page = ann.page
        ann.chip("10.00")
        page.click("[data-spot='1:main']")
        page.keyboard.press("Enter")
        offer = page.locator(".offer")
        expect_contains(offer, "Even money: your blackjack paid 1 to 1 now")
        assert "Insure" not in offer.inner_text() and "Insurance (I)" not in offer.inner_text()
        page.keyboard.press("e")
        expect_contains(page.locator(".banner"), "Blackjack!")
        expect_contains(page.locator(".banner .banner-net"), "+10.00")  # 1 to 1 in all
        assert_balances(site, {ann: "1010.00"})
        assert site.books() == []
        ann.close()


def test_sign_up_errors_are_said_in_words(rws_site: Site, browser: Browser) -> None:
    visitor = Player(browser, rws_site)
    page = visitor.page
    page.goto(f"{rws_site.url}/#/login")
    page.fill("#name", "a b")
    page.fill("#password", PASSWORD)
    page.click("text=Sign up")
    expect_text(
        page.locator(".login .error"),
        'A name may use only letters, digits and _ . - (not "a b").',
    )
    page.fill("#name", "ann")
    page.fill("#password", "short")
    page.click("text=Sign up")
    expect_text(
        page.locator(".login .error"), "A password has at least 8 characters; this one has 5."
    )
    visitor.close()


def test_after_the_server_is_killed_the_player_is_told_what_became_of_his_round(
    tmp_path: Path, browser: Browser
) -> None:
    """RWS v5 5.4.2: a real ``croupier serve`` is killed (SIGKILL) while ann's round waits
    for her; on restart the round is void (no outcome was established) and her stake
    returned.  Her page reconnects and tells her so, and the table's log shows it."""
    from tests.server.test_crash import start

    tables = tmp_path / "tables.toml"
    tables.write_text(
        '[[table]]\nid = "rws"\npreset = "rws-v5"\n'
        "betting_seconds = 60\noffer_seconds = 300\ndecision_seconds = 300\n"
    )
    db_url = f"sqlite:///{tmp_path / 'site.db'}"
    port = free_port()
    process = start(db_url, port, tables)
    try:
        site = Site(f"http://127.0.0.1:{port}", db_url)
        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.sit_at("rws")
        page = ann.page
        spot = page.locator("[data-spot='1:main']")
        # A shuffled shoe: a round that ends on the deal (a blackjack) is played again.
        for _ in range(5):
            expect_text(spot, re.compile(r"^Bet$"))
            spot.click()
            page.keyboard.press("Enter")
            # Dealt first: the open betting spot goes (the banner of a round that ended
            # on the deal is still up then, and says nothing of this one).
            page.wait_for_selector("[data-spot='1:main']:not([disabled])", state="detached")
            page.wait_for_selector(".actions, .offer, .banner")
            if page.locator(".actions, .offer").count():
                break
            page.wait_for_selector(".actions, .offer, [data-spot='1:main']:not([disabled])")
        else:
            pytest.fail("five blackjacks in a row")
        heading = page.locator("h1").inner_text()
        number = int(re.search(r"round #(\d+)", heading).group(1))  # type: ignore[union-attr]
        staked = site.balance("ann")

        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process = start(db_url, port, tables)

        expect_contains(
            page.locator(".banner"),
            f"Round {number} was void: technical interruption before any outcome was "
            "established (RWS v5 5.4.2); your 25.00 was returned.",
        )
        expect_contains(page.locator(".log"), "Technical interruption")
        assert_balances(site, {ann: str(staked + Decimal("25.00"))})
        assert site.books() == []
        ann.close()
    finally:
        process.kill()
        process.wait()


#: What has the keyboard's focus, as a person hears it: the control's name ("body" for none).
FOCUSED = """() => {
  const element = document.activeElement;
  if (!element || element === document.body) return "body";
  return (element.getAttribute("aria-label") || element.textContent || element.tagName)
    .trim().replace(/\\s+/g, " ").slice(0, 40);
}"""


def tab_until(page: Page, name: str, most: int = 60) -> list[str]:
    """Press Tab until the control named ``name`` has the focus: each control passed."""
    passed: list[str] = []
    for _ in range(most):
        page.keyboard.press("Tab")
        passed.append(page.evaluate(FOCUSED))
        if passed[-1].startswith(name):
            return passed
    pytest.fail(f"{name} not reached in {most} presses of Tab: {passed}")


def wait_for_focus(page: Page, name: str) -> None:
    """The control named ``name`` gets the focus (the page moves it itself)."""
    page.wait_for_function(f"(name) => ({FOCUSED})().startsWith(name)", arg=name, timeout=WAIT_MS)


def test_the_keyboard_reaches_the_bets_in_a_few_tabs_and_the_focus_follows_the_round(
    tmp_path: Path, browser: Browser
) -> None:
    """WCAG 2.2 2.1.1 (keyboard), 2.4.1 (bypass blocks) and 2.4.3 (focus order) at a
    7-box live table with two side bets a box (28 spots and 7 Sit buttons): from the top
    of the page, Tab reaches the player's betting spot, the chips and Place bets in at
    most 10 presses (40 before the felt and the chips each became one tab stop), 3 after
    the skip link.  The arrow keys move within the felt's spots and the chips (a chip
    picked as the arrow reaches it) and within the bet buttons.  After Place bets and
    after each decision the focus goes to the next thing to do, never to the page's body
    nor to a decision's button (Enter pressed twice once hit the hand just dealt): the
    insurance offer's group, then her move's group, then the controls."""
    table = TableConfig(
        id="live", preset="live", betting_seconds=60, offer_seconds=60, decision_seconds=60
    )
    # ann alone on box 1: 8S 8D against the dealer's Ace (insurance offered), hole 6H.
    for site in serve(tmp_path, table, shoes={"live": "8S AH 8D 6H"}):
        ann = Player(browser, site)
        ann.sign_up("ann")
        ann.sit_at("live")
        page = ann.page
        page.reload()
        page.wait_for_selector("[data-spot='1:main']:not([disabled])")
        assert page.evaluate(FOCUSED) == "body"

        # Tab after Tab from the top of the page: the session bar, then one stop for the
        # felt (the first free box's spot), one for the chips, then Place bets.
        path = tab_until(page, "Place bets")
        assert path == [
            "Skip to main content",
            "croupier",
            "Lobby",
            "History",
            "Limits",
            "Log out",
            "Bet on box 1",
            "5",
            "Place bets (Enter)",
        ]
        assert len(path) <= 10

        # The skip link goes past the session bar.
        page.reload()
        page.wait_for_selector("[data-spot='1:main']:not([disabled])")
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "Skip to main content"
        page.keyboard.press("Enter")
        assert tab_until(page, "Place bets") == ["Bet on box 1", "5", "Place bets (Enter)"]

        # Arrow keys within the felt: down the box's spots, left to box 2 (first base,
        # box 1, is on the dealer's left: the right of the screen), up to Sit.
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(FOCUSED) == "Bet on box 1"
        for key, name in (
            ("ArrowDown", "Perfect Pairs on box 1"),
            ("ArrowLeft", "Perfect Pairs on box 2"),
            ("ArrowRight", "Perfect Pairs on box 1"),
            ("ArrowUp", "Bet on box 1"),
            ("ArrowUp", "Sit at box 1"),
            ("ArrowDown", "Bet on box 1"),
        ):
            page.keyboard.press(key)
            assert page.evaluate(FOCUSED) == name, key
        page.keyboard.press("Space")  # a 5 chip on box 1
        expect_text(page.locator("#balance"), "995.00")
        # The chips: the arrow picks the next one.
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "5"
        page.keyboard.press("ArrowRight")
        assert page.evaluate(FOCUSED) == "10"
        assert page.locator(".chip[data-value='10.00']").get_attribute("aria-checked") == "true"
        page.keyboard.press("Shift+Tab")  # back to the felt's stop: box 1's spot
        assert page.evaluate(FOCUSED).startswith("Bet on box 1")
        page.keyboard.press("Space")
        expect_text(page.locator("#balance"), "985.00")
        # Undo and Clear are usable now; Tab still lands on Place bets, the arrows on them.
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "Place bets (Enter)"
        page.keyboard.press("ArrowLeft")
        assert page.evaluate(FOCUSED) == "Clear (C)"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        expect_contains(page.locator(".notice"), "Bets accepted: 15.00")

        # Dealt at once: the focus goes to the offer, then to her turn, never to the body,
        # and never to a decision's button: Enter pressed again (as after Place bets, held
        # or twice) answers nothing.  Tab reaches the buttons.
        expect_contains(page.locator(".offer"), "Insure")
        wait_for_focus(page, "Insurance offer, box 1")
        page.keyboard.press("Enter")
        page.keyboard.down("Enter")  # held: its repeats play nothing either
        page.keyboard.up("Enter")
        assert page.locator(".offer").count() == 1
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "Insurance (I)"
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "No thanks (N)"
        page.keyboard.press("Enter")
        expect_contains(page.locator(".actions"), "Stand (S)")
        wait_for_focus(page, "your move")
        page.keyboard.press("Enter")
        page.wait_for_timeout(500)  # a hit would have come back by now
        assert page.locator("[data-box='1'] .card").count() == 2  # no card drawn on her 16
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "Hit (H)"
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED) == "Stand (S)"
        page.keyboard.press("Enter")
        expect_contains(page.locator(".banner"), "You lose")  # 16 against the dealer's 17
        assert page.locator(".actions").count() == 0
        assert page.evaluate("document.activeElement !== document.body")
        assert page.evaluate("document.activeElement.matches('section.controls')")
        assert_balances(site, {ann: "985.00"})
        ann.close()


#: Every line the table's live region is given, in order, kept by the page from its start.
RECORD_ANNOUNCEMENTS = """
window.announced = [];
new MutationObserver(() => {
  const region = document.getElementById("announcer");
  if (!region) return;
  for (const line of region.children) {
    if (line.dataset.recorded) continue;
    line.dataset.recorded = "1";
    window.announced.push(line.textContent);
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""

#: The page's polite live regions.
LIVE_REGIONS = """() => [...document.querySelectorAll(
  '[aria-live="polite"], [role="status"]:not([aria-live="off"]), [role="log"]'
)].map((element) => element.id || element.className || element.tagName)"""


def test_the_live_region_says_the_players_own_turns_and_results_and_nothing_of_others(
    tmp_path: Path, browser: Browser
) -> None:
    """WCAG 2.2 4.1.3 (status messages): one polite live region on the table page tells
    the player his bets, his turn and his hand after each card he draws, and his
    result; never bob's box, cards or result, nor each card as it is dealt (the table's
    log, which has them all, is not a live region).  Live rules: ann on box 1 has 10S 5C
    (hard 15) against the dealer's 10D; bob on box 2 has 9H 8S; ann hits a 4H and
    stands on 19; the dealer's 10D 7C stands on 17: ann wins, bob pushes."""
    table = TableConfig(
        id="live", preset="live", betting_seconds=60, offer_seconds=60, decision_seconds=60
    )
    for site in serve(tmp_path, table, shoes={"live": "10S 9H 10D 5C 8S 7C 4H"}):
        ann = Player(browser, site)
        bob = Player(browser, site)
        for person in (ann, bob):
            person.context.add_init_script(RECORD_ANNOUNCEMENTS)
        ann.sign_up("ann")
        bob.sign_up("bob")
        ann.sit_at("live")
        bob.sit_at("live")
        assert ann.page.evaluate(LIVE_REGIONS) == ["announcer"]
        region = ann.page.locator("#announcer")
        assert region.get_attribute("role") == "status"
        assert region.get_attribute("aria-live") == "polite"
        assert ann.page.locator(".log ol").get_attribute("aria-live") == "off"
        ann.chip("25.00")
        ann.page.click("[data-spot='1:main']")
        bob.chip("25.00")
        bob.page.click("[data-spot='2:main']")
        expect_contains(ann.page.locator("[data-spot='2:main']"), "25.00")
        ann.page.keyboard.press("Enter")
        expect_contains(ann.page.locator(".notice"), "Bets accepted: 25.00")
        bob.page.keyboard.press("Enter")  # the last to confirm: dealt at once

        expect_contains(ann.page.locator(".actions"), "Hit (H)")
        ann.page.keyboard.press("h")
        expect_contains(ann.page.locator("[data-box='1'] .total"), "19")
        ann.page.keyboard.press("s")
        expect_contains(bob.page.locator(".actions"), "Stand (S)")
        bob.page.keyboard.press("s")
        expect_contains(ann.page.locator(".banner"), "You win")
        expect_contains(bob.page.locator(".banner"), "Push")
        expect_contains(ann.page.locator(".log"), "Box 2: 8S")  # the log has bob's cards

        said = "Dealer has 17. Box 1: you won +25.00."
        expect_contains(region, said)
        assert ann.page.evaluate("window.announced") == [
            "Your bets on the layout: 25.00",
            "Bets accepted: 25.00",
            "Your turn, box 1: hard 15 against a 10",
            "Your turn, box 1: hard 19 against a 10",
            said,
        ]
        expect_contains(bob.page.locator("#announcer"), "Box 2: push")
        heard = bob.page.evaluate("window.announced")
        assert "Your turn, box 2: hard 17 against a 10" in heard
        assert not [line for line in heard if "box 1" in line.lower() or "ann" in line]
        assert_balances(site, {ann: "1025.00", bob: "1000.00"})
        ann.close()
        bob.close()


@pytest.mark.parametrize(("name", "width", "height"), [("phone", 390, 844), ("desktop", 1280, 800)])
def test_the_tables_history_is_the_servers_and_a_new_device_sees_it(
    rws_site: Site, browser: Browser, screenshots: Path, name: str, width: int, height: int
) -> None:
    """The table's last results are kept on the server, for everyone at the table: after
    ann's round (the dealer's 6+9+K busts), a watcher on another device, who never saw
    the round, finds it in the table's history with the dealer's bust rate."""
    touch = {"has_touch": True, "is_mobile": True} if name == "phone" else {}
    viewport = {"width": width, "height": height}
    ann = Player(browser, rws_site, viewport=viewport, **touch)
    ann.sign_up("ann")
    ann.sit_at("rws")
    page = ann.page
    expect_contains(page.locator(".table-history"), "No round finished at this table yet.")
    page.click("[data-spot='1:main']")
    page.click("text=Place bets")
    expect_contains(page.locator(".actions"), "Stand")
    page.keyboard.press("s")
    expect_contains(page.locator(".banner"), "You win")
    history = page.locator(".table-history")
    expect_text(history.locator(".bead [aria-hidden]"), ["B"])
    expect_contains(history.locator(".bead"), "Round 1: dealer 25 bust (6D 9C KD)")
    expect_contains(history, "Dealer busted 1 of his last 1 hand played out (100.0%).")

    watcher = Player(browser, rws_site, viewport=viewport, **touch)
    watcher.page.goto(f"{rws_site.url}/#/table/rws")
    seen = watcher.page.locator(".table-history")
    expect_text(seen.locator(".bead.bust [aria-hidden]"), ["B"])
    expect_contains(seen, "Dealer busted 1 of his last 1 hand played out (100.0%).")
    overflow = watcher.page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow == 0
    box = seen.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    seen.screenshot(path=str(screenshots / f"table-history-{name}.png"))
    watcher.close()
    ann.close()


def test_a_player_gone_mid_round_is_said_with_how_long_the_table_waits(
    tmp_path: Path, browser: Browser
) -> None:
    """ann's tab closes at her turn: bob, on a phone, is told she disconnected and how
    long the table waits for her hand (the decision clock, then the rulebook's rule),
    instead of an unexplained pause; when she is back the notice goes."""
    table = TableConfig(
        id="live", preset="live", betting_seconds=60, offer_seconds=60, decision_seconds=90
    )
    for site in serve(tmp_path, table, shoes={"live": "10C KS 5S 9S 7S 10D 2C 3C 4C"}):
        ann = Player(browser, site)
        bob = Player(
            browser, site, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
        )
        for player, name in ((ann, "ann"), (bob, "bob")):
            player.sign_up(name)
            player.sit_at("live")
        for player, box in ((ann, 1), (bob, 2)):
            player.page.click(f"[data-spot='{box}:main']")
        for player in (ann, bob):
            player.page.click("text=Place bets")
        expect_contains(ann.page.locator(".actions"), "Stand")
        ann.page.close()  # her only tab at the table: her last connection
        notice = bob.page.locator(".away-notice")
        expect_contains(notice, "ann disconnected.")
        expect_contains(notice, re.compile(r"The table waits \d+s for his hand, then plays it"))
        expect_contains(notice, "draw to 12 or more, then stand")
        shown = notice.bounding_box()
        assert shown is not None and shown["x"] >= 0 and shown["x"] + shown["width"] <= 390
        back = ann.context.new_page()
        back.goto(f"{site.url}/#/table/live")
        expect_contains(back.locator(".actions"), "Stand")
        expect_text(bob.page.locator(".away-notice"), [])
        back.keyboard.press("s")
        expect_contains(bob.page.locator(".actions"), "Stand")
        assert ann.errors == []
        ann.context.close()
        bob.close()


def test_a_break_is_confirmed_with_its_end_and_every_tab_is_logged_out(
    rws_site: Site, browser: Browser
) -> None:
    """After "Take a break" the player sees the break's end date (not the login form),
    in every tab of the site; a logout in one tab logs every tab out."""
    ann = Player(browser, rws_site, viewport={"width": 390, "height": 844}, has_touch=True)
    ann.sign_up("ann")
    other = ann.context.new_page()
    other.goto(f"{rws_site.url}/#/table/rws")
    expect_contains(other.locator("header.bar"), "ann")
    page = ann.page
    page.click("nav >> text=Limits")
    page.click("text=Take a break…")
    page.click("#start-break")
    expect_contains(page.locator("#farewell-text"), re.compile(r"Your break lasts until \S"))
    expect_contains(page.locator("#farewell-text"), "You have been logged out.")
    assert page.locator("#password").count() == 0  # not the login form
    expect_contains(other.locator("#farewell-text"), "Your break lasts until")
    expect_contains(other.locator("header.bar"), "Log in")
    page.reload()  # the confirmation stays
    expect_contains(page.locator("#farewell-text"), "Your break lasts until")
    ann.close()

    bob = Player(browser, rws_site)
    bob.sign_up("bob")
    second = bob.context.new_page()
    second.goto(f"{rws_site.url}/#/history")
    expect_contains(second.locator("header.bar"), "bob")
    bob.page.click("#logout")
    expect_contains(second.locator("header.bar"), "Log in")
    expect_text(second.locator("#balance"), [])
    bob.close()


def test_the_reality_check_leads_to_history_limits_and_logout_and_the_time_limit_is_said(
    rws_site: Site, browser: Browser
) -> None:
    """The reality check links to the player's history, his limits and logout; his own
    session-time limit is said the moment it is reached, not at the next bet refused."""
    ann = Player(browser, rws_site)
    ann.context.clock.install()
    ann.sign_up("ann")
    page = ann.page
    page.click("nav >> text=Limits")
    page.fill("#session-minutes", "30")
    page.click("#save-limits")
    expect_contains(page.locator("#limits-now"), "a time limit of 30 minutes")
    limit = page.locator("#time-limit")
    ann.context.clock.fast_forward("29:00")
    page.wait_for_timeout(1500)
    assert not limit.is_visible()
    ann.context.clock.fast_forward("01:05")
    expect_contains(limit, "Time limit reached")
    expect_contains(limit, "You have played for 30 minutes, your own session-time limit.")
    limit.get_by_role("button", name="I understand").click()
    expect_text(page.locator("#time-limit[open]"), [])

    reminder = page.locator("#reminder")
    ann.context.clock.fast_forward("31:00")
    expect_contains(reminder, "Reality check")
    links = reminder.get_by_role("navigation")
    expect_text(links.locator("a, button"), ["Your history", "Your limits", "Log out"])
    links.get_by_role("link", name="Your history").click()
    page.wait_for_url(re.compile(r"#/history$"))
    expect_text(page.locator("#reminder[open]"), [])
    ann.close()


def test_a_dealer_is_offered_deal_and_watch_and_the_wait_for_a_card_is_timed(
    tmp_path: Path, browser: Browser
) -> None:
    """A dealer account holds no chips: the lobby offers it Deal and Watch, never Play.
    A table dealt by hand waiting for a card shows, to the dealer and the players, for
    how long it has waited."""
    table = TableConfig(id="pit", preset="rws-v5", dealt="dealer", betting_seconds=2)
    for site in serve(tmp_path, table, shoes={}):
        site.add_dealer("dee")
        dealer = Player(browser, site)
        page = dealer.page
        page.goto(f"{site.url}/#/login")
        page.fill("#name", "dee")
        page.fill("#password", PASSWORD)
        page.click("button:text('Log in')")
        card = page.locator("[data-table='pit']")
        expect_text(card.locator("a.button"), ["Watch", "Deal"])

        ann = Player(browser, site)
        ann.sign_up("ann")
        expect_text(ann.page.locator("[data-table='pit'] a.button"), ["Play"])
        ann.page.click("[data-table='pit'] a:text('Play')")
        ann.page.click("[data-spot='1:main']")
        ann.page.click("text=Place bets")
        timer = ann.page.locator(".timer")
        expect_contains(timer, "Waiting for the dealer's card")
        expect_contains(timer, re.compile(r"waited \d+:\d\d"))
        page.goto(f"{site.url}/#/dealer/pit")
        waited = page.locator(".dealer-console .waited")
        expect_contains(waited, re.compile(r"^Waiting \d+:\d\d$"))
        page.fill("#card", "10S")
        page.keyboard.press("Enter")
        expect_contains(ann.page.locator("[data-box='1']"), "10")
        ann.close()
        dealer.close()


@pytest.mark.parametrize(("name", "width", "height"), [("phone", 390, 844), ("desktop", 1280, 800)])
def test_how_to_play_says_the_tables_own_rules_in_a_few_steps(
    rws_site: Site, browser: Browser, screenshots: Path, name: str, width: int, height: int
) -> None:
    """A short "how to play" panel for the table's rules (RWS v5: no hole card, 3 to 2
    for a blackjack, surrender before any third card), on one screen on a phone."""
    touch = {"has_touch": True, "is_mobile": True} if name == "phone" else {}
    watcher = Player(browser, rws_site, viewport={"width": width, "height": height}, **touch)
    page = watcher.page
    page.goto(f"{rws_site.url}/#/table/rws")
    page.get_by_role("button", name="How to play").click()
    panel = page.get_by_role("dialog", name="How to play")
    expect_text(
        panel.locator(".steps strong"),
        ["Bet.", "The deal.", "Your move.", "The dealer.", "Payouts."],
    )
    expect_contains(panel, "a bet is 25.00 to 5000.00 a box")
    expect_contains(panel, "his second comes after every player has played")
    expect_contains(panel, "a blackjack (an Ace and a ten in your first two cards) 3 to 2")
    box = panel.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    page.screenshot(path=str(screenshots / f"how-to-play-{name}.png"))
    panel.get_by_role("button", name="close").click()
    expect_text(page.locator("dialog.how-to-play"), [])
    watcher.close()


#: axe-core, from the page's own npm packages (``npm ci`` in frontend/).
AXE = Path(__file__).resolve().parents[2] / "frontend" / "node_modules" / "axe-core" / "axe.min.js"

#: Each violation axe finds on the page: its rule, impact and the elements it names.
AXE_RUN = """async () => {
  const rules = { "label-content-name-mismatch": { enabled: true } };
  const found = await axe.run(document, { rules });
  return found.violations.map((v) => ({
    rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
  }));
}"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """What axe-core finds wrong on ``page`` as it is now: every rule it runs by default
    (WCAG 2.x A and AA, and its best practices) and the experimental
    label-content-name-mismatch (a control's name says what it shows, WCAG 2.5.3)."""
    if not AXE.is_file():
        if os.environ.get("CROUPIER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"no axe-core at {AXE} (npm ci in frontend/)")
        pytest.skip(f"no axe-core at {AXE} (npm ci in frontend/)")
    settle_animations(page)  # a card half dealt is half transparent
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    violations: list[dict[str, Any]] = page.evaluate(AXE_RUN)
    return violations


@pytest.mark.parametrize(("name", "width", "height"), [("phone", 390, 844), ("desktop", 1280, 800)])
def test_axe_finds_nothing_on_the_lobby_table_history_and_limits(
    rws_site: Site, browser: Browser, name: str, width: int, height: int
) -> None:
    """axe-core on each page a player uses, at each moment of a round: no violation."""
    touch = {"has_touch": True, "is_mobile": True} if name == "phone" else {}
    ann = Player(browser, rws_site, viewport={"width": width, "height": height}, **touch)
    page = ann.page
    page.goto(f"{rws_site.url}/#/")
    expect_contains(page.locator(".lobby"), "rws")
    found = {"lobby (watching)": axe_violations(page)}
    ann.sign_up("ann")
    found["lobby"] = axe_violations(page)
    ann.sit_at("rws")
    expect_contains(page.locator(".controls"), "Place bets")
    found["table, betting"] = axe_violations(page)
    page.click("[data-spot='1:main']")
    page.click("text=Place bets")
    expect_contains(page.locator(".actions"), "Stand")
    found["table, decision"] = axe_violations(page)
    page.keyboard.press("s")
    expect_contains(page.locator(".banner"), "You win")
    expect_contains(page.locator(".table-history"), "Dealer busted")
    found["table, result"] = axe_violations(page)
    page.get_by_role("button", name="How to play").click()
    found["how to play"] = axe_violations(page)
    page.keyboard.press("Escape")
    page.click("nav >> text=History")
    expect_contains(page.locator("main"), "rws")
    found["history"] = axe_violations(page)
    page.click("nav >> text=Limits")
    expect_contains(page.locator("#limits-now"), "Now:")
    found["limits"] = axe_violations(page)
    assert {where: problems for where, problems in found.items() if problems} == {}
    ann.close()


def test_a_new_tab_is_told_what_became_of_the_players_last_round_from_the_server(
    rws_site: Site, browser: Browser
) -> None:
    """Coming back in a new tab (nothing of the table kept in it), the player is told
    what became of his last round at the table, read from the server; a reload of a tab
    that saw it does not tell it again."""
    ann = Player(browser, rws_site)
    ann.sign_up("ann")
    ann.sit_at("rws")
    page = ann.page
    page.click("[data-spot='1:main']")
    page.click("text=Place bets")
    expect_contains(page.locator(".actions"), "Stand")
    page.keyboard.press("s")  # 17 against the dealer's 6+9+K: he busts
    expect_contains(page.locator(".banner"), "You win")
    page.wait_for_selector("[data-spot='1:main']:not([disabled])")  # the next round
    page.close()
    again = ann.context.new_page()
    again.goto(f"{rws_site.url}/#/table/rws")
    notice = again.locator(".notice")
    expect_contains(notice, "Your last round here, round 1: You win +25.00")
    expect_text(again.locator(".recent .bead"), ["W"])
    again.reload()
    expect_text(again.locator(".recent .bead"), ["W"])
    expect_text(again.locator(".notice"), re.compile(r"^\s*$"))
    ann.page = again
    ann.close()
