"""``uno-env serve`` in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright plays
whole games by clicks, classic, Flip and Flex, with a colour choice and a challenge decision, and checks after
every move that the page shows no card the human's seat may not see and names and lights up the deciding seat
(the human's, also when it is another seat's turn). It also replays the saved record frame by frame. The docs'
screenshots come from docs/results/tools/browser_screenshots.py."""
from __future__ import annotations

import re
import shutil
import socket
import threading
import time

import pytest

from uno_env import RuleSet
from uno_env.records import read_records, replay
from train.app.serve.app import build_app
from train.app.serve.session import GameSession

pytestmark = pytest.mark.slow  # drives a browser: left out of make test-quick


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
        page.locator(".opponent").nth(i).select_option(spec)  # a drop-down of the server's agents
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


def check_page_names_the_deciding_seat(page, session) -> None:
    """At the human's decision the status says so (and whose turn it is when another seat's), the human's own
    area is lit up and no opponent is; the seat whose turn it is, if another, is marked as such."""
    state, me = session.state, session.seat
    status = page.inner_text("#turn")
    assert status == page.evaluate("view.status")
    if state.turn_seat == me:
        assert status == "your turn"
    else:
        assert status == f"your decision (P{state.turn_seat}'s turn)"
        assert page.locator(f"#opponents .seat[data-seat='{state.turn_seat}'].turn").count() == 1
    assert page.locator("#me-box.deciding").count() == 1 and page.locator("#opponents .seat.deciding").count() == 0


REVERSE_PLAY = re.compile(r"(you|P\d): play [RGBY]R")  # a classic Reverse (a Flex one's name differs)


def check_reverse_notes(lines: list[str], players: int) -> int:
    """Two players: the log says that every Reverse played (but a game's last card) acts as a Skip, right after
    its line; more players: never. Returns how many Reverses were checked."""
    reverses = [i for i, line in enumerate(lines[:-1]) if REVERSE_PLAY.fullmatch(line.strip())]
    notes = [i for i, line in enumerate(lines) if "acts as a Skip" in line]
    if players != 2:
        assert notes == []
        return 0
    assert [i + 1 for i in reverses] == notes
    who = {i + 1: lines[i].split(":")[0] for i in reverses}
    assert all(lines[i].strip().endswith("so you play again" if who[i] == "you" else f"so {who[i]} plays again")
               for i in notes)
    return len(reverses)


def play_by_clicks(page, sessions) -> tuple[set[str], object, int]:
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
        check_page_names_the_deciding_seat(page, session)
        cards = page.eval_on_selector_all("#hand button.legal", "ns => ns.map(n => n.dataset.actions)")
        offered = sorted({int(a) for acts in cards for a in acts.split()} | {int(a) for a in page.eval_on_selector_all(
            "#buttons button[data-action]", "ns => ns.map(n => n.dataset.action)")})
        legal = game.legal_actions(state)
        assert offered == sorted(legal), "the page offers exactly the legal actions"
        phase = page.get_attribute("#decision", "data-phase")
        assert phase == state.phase.value
        phases.add(phase)
        decisions += 1
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
    phases, session, mode_choices = play_by_clicks(page, sessions)
    assert {"CHOOSE_COLOUR", "CHALLENGE_OR_ACCEPT", "TURN"} <= phases
    assert (mode_choices > 0) == (variant == "flex")  # Flex: a card playable in both modes asked which
    assert page.inner_text("#result-text") == page.evaluate("view.result.text")
    assert "Game over" in page.inner_text("#result-text") and "round points" in page.inner_text("#result-points")
    log = page.inner_text("#log")
    assert "you: challenge" in log and "you: colour" in log
    check_reverse_notes(log.splitlines(), players)

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


def test_a_two_player_reverse_is_said_to_act_as_a_skip(server, page):
    url, sessions = server
    seed = next(seed for seed in range(60) if reverse_before_the_end(seed))
    start(page, url, "classic", 2, ["random"], seed)
    play_by_clicks(page, sessions)
    assert check_reverse_notes(page.inner_text("#log").splitlines(), 2) > 0


def reverse_before_the_end(seed: int) -> bool:
    """Whether the classic two-player game of ``seed`` against ``random``, played by ``choice``, has a Reverse
    that is not its last card."""
    session = GameSession(RuleSet.create("classic", 2), ["random"], 0, seed, None)
    lines = [line for event in session.events for line in event["lines"]]
    while not session.state.is_over:
        game, state = session.game, session.state
        legal = game.legal_actions(state)
        events = session.act(choice(legal, [game.action_to_string(a, state) for a in legal]), state.steps)
        lines += [line for event in events for line in event["lines"]]
    return any(REVERSE_PLAY.fullmatch(line) for line in lines[:-1])


def test_opponents_are_chosen_from_the_servers_agents_or_typed(server, page):
    """Each opponent is a drop-down of /api/config's agents; "other..." shows a field for any other spec."""
    url, sessions = server
    page.goto(url + "/?delay=0")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#players", "3")
    page.dispatch_event("#players", "input")
    offered = page.eval_on_selector_all(".opponent", "ss => ss.map(s => Array.from(s.options, o => o.value))")
    assert offered == [[*page.evaluate("config.agents"), "other"]] * 2
    assert page.locator(".opponent-custom:visible").count() == 0
    page.locator(".opponent").nth(0).select_option("greedy")
    page.locator(".opponent").nth(1).select_option("other")
    custom = page.locator(".opponent-custom").nth(1)
    assert custom.is_visible()
    custom.fill("no-such-agent")  # refused with the server's message; the setup stays
    page.click("#start")
    page.wait_for_selector("#error:not([hidden])")
    assert "unknown agent spec 'no-such-agent'" in page.inner_text("#error") and page.is_visible("#setup")
    custom.fill("ismcts:iterations=20")
    page.click("#start")
    page.wait_for_selector("body[data-state='decide'], body[data-state='over']")
    session = sessions.get(page.evaluate("session"))
    assert session.spec_of == {1: "greedy", 2: "ismcts:iterations=20"}
    assert page.inner_text("#opponents .seat[data-seat='2'] .name").startswith("P2 ismcts:iterations=20")


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
