"""``uno-env serve`` in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright plays
whole games by clicks, classic, Flip and Flex, with a colour choice and a challenge decision, and checks after
every move that the page shows no card the human's seat may not see. It also replays the saved record
frame by frame, and saves the README's screenshot (docs/browser-play.png)."""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest

from uno_env import RuleSet
from uno_env.records import read_records, replay
from train.app.serve.app import build_app
from train.app.serve.session import GameSession
from paths import ROOT  # tests/paths.py

pytestmark = pytest.mark.slow  # drives a browser: left out of make test-quick

SCREENSHOT = os.path.join(ROOT, "docs", "browser-play.png")


def chromium_path() -> str:
    """Debian's chromium (Playwright's own browser download is not reachable from these machines)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("the browser tests need Debian's chromium: run `apt-get install chromium` (make test and "
                    "make test-quick install it)")
    return path


@pytest.fixture(scope="module")
def server():
    """A uvicorn server on a free port in a background thread: (base URL, its sessions)."""
    import uvicorn

    app = build_app()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the test server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", app.state.sessions
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True)
        context = browser.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)
        yield context.new_page()
        browser.close()


def choice(legal: list[int], texts: list[str]) -> int:
    """The test player's rule: challenge when asked, else the lowest legal action id."""
    return legal[texts.index("challenge")] if "challenge" in texts else min(legal)


def seed_with(variant: str, players: int, opponents: list[str], phases: set[str]) -> int:
    """Of seeds 0..59, the one whose game, played by ``choice``, asks the human (seat 0) each of ``phases``
    in the fewest decisions (a short browser test)."""
    rules = RuleSet.create(variant, players)
    found = []
    for seed in range(60):
        session = GameSession(rules, opponents, 0, seed, None)
        seen, decisions = set(), 0
        while not session.state.is_over:
            game, state = session.game, session.state
            legal = game.legal_actions(state)
            seen.add(state.phase.value)
            decisions += 1
            session.act(choice(legal, [game.action_to_string(a, state) for a in legal]), state.steps)
        if phases <= seen:
            found.append((decisions, seed))
    assert found, f"no seed in 0..59 asks for {phases}"
    return min(found)[1]


def start(page, url: str, variant: str, players: int, opponents: list[str], seed: int) -> None:
    page.goto(url + "/?delay=0")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#variant", variant)
    page.fill("#players", str(players))
    page.dispatch_event("#players", "input")
    for i, spec in enumerate(opponents):
        page.locator(".opponent").nth(i).fill(spec)
    page.fill("#seed", str(seed))
    page.click("#start")


def check_page_shows_only_what_the_seat_sees(page, session) -> None:
    """Every card on the page is the human's own, the top card, a public back face or a card shown to the human."""
    game, state, me = session.game, session.state, session.seat
    cards = page.eval_on_selector_all(".card", """nodes => nodes.map(n => ({name: n.dataset.card || null,
        where: n.closest('#hand') ? 'hand' : n.closest('#top') ? 'top' : n.closest('#reveal') ? 'reveal' :
               n.closest('#draw-top-back') ? 'pile' : n.closest('#buttons') ? 'button' :
               n.closest('.seat') ? 'seat' + n.closest('.seat').dataset.seat : 'elsewhere',
        back: n.classList.contains('back')}))""")
    where = {}
    for c in cards:
        where.setdefault(c["where"], []).append(c)
    assert [c["name"] for c in where.pop("hand", [])] == game.hand_cards(state, me)
    assert [c["name"] for c in where.pop("top")] == [game.card_name(state.discard[-1])]
    assert all(c["name"] is None for c in where.pop("button", []))  # colour buttons name no card
    shown = state.reveals[me]
    revealed = [game.card_name(k) for k, n in enumerate(shown[1]) for _ in range(n)] if shown else []
    assert [c["name"] for c in where.pop("reveal", [])] == revealed
    if game.physical is not None:
        back = game.physical.draw_top_back(state)
        assert [c["name"] for c in where.pop("pile", [])] == ([game.card_name(back)] if back >= 0 else [])
        for q in range(state.num_players):
            shown_backs = where.pop(f"seat{q}", [])
            if q != me:
                assert all(c["back"] for c in shown_backs)
                assert [c["name"] for c in shown_backs] == [game.card_name(k) for k in
                                                            sorted(game.physical.backs(state, q))]
    assert where == {}, f"cards shown where none may be: {where}"
    for q in range(state.num_players):
        if q != me:
            assert page.inner_text(f"#opponents .seat[data-seat='{q}'] .count") == f"{state.hand_size[q]} card{'' if state.hand_size[q] == 1 else 's'}"


def play_by_clicks(page, sessions, screenshot_at: int | None = None) -> tuple[set[str], object, int]:
    """Play the open game to its end by clicking, as ``choice`` decides.

    Returns the phases asked, the session, and how often a card with several modes (Flex) asked which.
    """
    sid = None
    phases, decisions, mode_choices = set(), 0, 0
    while True:
        page.wait_for_selector("body[data-state='decide'], body[data-state='over']")
        sid = sid or page.evaluate("session")
        session = sessions.get(sid)
        check_page_shows_only_what_the_seat_sees(page, session)
        if page.get_attribute("body", "data-state") == "over":
            return phases, session, mode_choices
        game, state = session.game, session.state
        assert state.current_seat == session.seat
        cards = page.eval_on_selector_all("#hand button.legal", "ns => ns.map(n => n.dataset.actions)")
        offered = sorted({int(a) for acts in cards for a in acts.split()} | {int(a) for a in page.eval_on_selector_all(
            "#buttons button[data-action]", "ns => ns.map(n => n.dataset.action)")})
        legal = game.legal_actions(state)
        assert offered == sorted(legal), "the page offers exactly the legal actions"
        phase = page.get_attribute("#decision", "data-phase")
        assert phase == state.phase.value
        phases.add(phase)
        decisions += 1
        if decisions == screenshot_at:
            page.screenshot(path=SCREENSHOT)
        action = choice(legal, [game.action_to_string(a, state) for a in legal])
        step = state.steps  # read before the click: the server advances this very state
        card = page.locator(f"#hand button.legal[data-actions~='{action}']").first
        if card.count():
            modes = card.get_attribute("data-actions").split()
            card.click()
            if len(modes) > 1:  # a card with several modes: pick one
                page.click(f"#buttons button[data-action='{action}']")
                mode_choices += 1
        else:
            page.click(f"#buttons button[data-action='{action}']")
        page.wait_for_function(f"document.body.dataset.state !== 'decide' || "
                               f"document.getElementById('decision').dataset.step !== '{step}'")


@pytest.mark.parametrize("variant, players, opponents", [("classic", 2, ["random"]),
                                                          ("flip", 3, ["random", "heuristic"]),
                                                          ("flex", 2, ["heuristic"])])
def test_whole_games_by_clicks_show_no_hidden_card(server, page, variant, players, opponents):
    url, sessions = server
    seed = seed_with(variant, players, opponents, {"CHOOSE_COLOUR", "CHALLENGE_OR_ACCEPT"})
    start(page, url, variant, players, opponents, seed)
    phases, session, mode_choices = play_by_clicks(page, sessions, screenshot_at=6 if variant == "flip" else None)
    assert {"CHOOSE_COLOUR", "CHALLENGE_OR_ACCEPT", "TURN"} <= phases
    assert (mode_choices > 0) == (variant == "flex")  # Flex: a card playable in both modes asked which
    assert page.inner_text("#result-text") == page.evaluate("view.result.text")
    assert "Game over" in page.inner_text("#result-text") and "round points" in page.inner_text("#result-points")
    log = page.inner_text("#log")
    assert "you: challenge" in log and "you: colour" in log

    with page.expect_download() as download:  # save the game as a record
        page.click("#save")
    text = open(download.value.path(), encoding="utf-8").read()
    (record,) = read_records(iter(text.splitlines(keepends=True)))
    assert record.seed == seed and record.players[0] == "human"

    hand = page.evaluate("view.hand")
    page.click("#rematch")  # a second game with a fresh deal (played through in classic)
    page.wait_for_function("view && view.game_number === 2")
    assert page.evaluate("view.hand") != hand and page.is_hidden("#result")
    if variant == "classic":
        _, second, _ = play_by_clicks(page, sessions)
        assert second.games == 2 and second.state.is_over

    page.click("#tab-replay")  # the replay viewer: the saved record, every hand, forwards and backwards
    path = download.value.path()
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-view:not([hidden])")
    frames = [(game, [game.hand_cards(state, q) for q in range(players)]) for game, state, _ in replay(record)]
    for target in (1, 2, 3, 2, 1):
        page.click("#rp-next" if target > int(page.inner_text("#rp-position").split()[0]) else "#rp-prev")
        assert page.inner_text("#rp-position").split()[0] == str(target)
        shown = page.eval_on_selector_all("#rp-seats .seat", "ss => ss.map(s => Array.from("
                                          "s.querySelectorAll('.hand .card'), c => c.dataset.card))")
        assert shown == frames[target][1]
    page.click("#rp-last")
    assert page.inner_text("#rp-result") != ""


def test_a_refused_action_shows_its_error_and_the_game_goes_on(server, page):
    url, sessions = server
    start(page, url, "classic", 2, ["random"], 3)
    page.wait_for_selector("body[data-state='decide']")
    step = page.get_attribute("#decision", "data-step")
    page.evaluate("send(100000)")  # a forged action, sent the way a click sends one
    page.wait_for_selector("#error:not([hidden])")
    assert "not one of your legal actions" in page.inner_text("#error")
    assert page.get_attribute("body", "data-state") == "decide"
    assert page.get_attribute("#decision", "data-step") == step
    _, session, _ = play_by_clicks(page, sessions)
    assert session.state.is_over and page.is_hidden("#error")
