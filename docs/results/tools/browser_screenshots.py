"""The browser page's screenshots for the docs: a seeded game at a Wild Draw Four challenge, desktop and phone.

It starts ``uno-env serve``'s application on a free local port, opens a game against agents in headless
Chromium (Debian's ``chromium``, driven by Playwright, as tests/apps/test_serve_browser.py does), plays the
human seat by clicks (the lowest legal action) up to the first decision that asks it to challenge or accept
a Wild Draw Four, and saves the page there at 1280x900 (``browser-play-desktop.png``) and at 390x844, a
phone drawn at twice the pixels (``browser-play-phone.png``), both in 256 colours. The seed is the first of
``--seeds`` whose game reaches that decision after at least ``--min-decisions`` of the human's decisions (so
the table and the log have something in them)::

    apt-get install -y chromium        # once, if `command -v chromium` finds nothing
    .venv/bin/python docs/results/tools/browser_screenshots.py                 # writes docs/browser-play-*.png
    .venv/bin/python docs/results/tools/browser_screenshots.py --out /tmp/shots --players 4 --opponents greedy

It prints the seed, the decision's prompt and the status line the page showed.
"""
from __future__ import annotations

import argparse
import io
import os
import shutil
import socket
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, ROOT)  # run from anywhere in a checkout

from uno_env import RuleSet, UnoError  # noqa: E402

from train.app.serve.app import build_app  # noqa: E402
from train.app.serve.session import GameSession, RequestError  # noqa: E402

PHASE = "CHALLENGE_OR_ACCEPT"
SIZES = {"desktop": ({"width": 1280, "height": 900}, 1), "phone": ({"width": 390, "height": 844}, 2)}
"""Viewport and device pixel ratio of each screenshot (the phone's at 2x, as a phone draws it)."""


def find_seed(variant: str, players: int, opponents: list[str], seeds: int, min_decisions: int) -> tuple[int, int]:
    """The first seed (and the human's decisions before it) whose game asks seat 0 ``PHASE`` when it plays the
    lowest legal action, after at least ``min_decisions`` decisions."""
    rules = RuleSet.create(variant, players)
    for seed in range(seeds):
        session = GameSession(rules, opponents, 0, seed, None)
        decisions = 0
        while not session.state.is_over:
            state = session.state
            if state.phase.value == PHASE and decisions >= min_decisions:
                return seed, decisions
            decisions += 1
            session.act(min(session.game.legal_actions(state)), state.steps)
    raise SystemExit(f"no seed in 0..{seeds - 1} asks the human to {PHASE} after {min_decisions} decisions; "
                     "try more --seeds or fewer --min-decisions")


def serve():
    """The application on a free port in a background thread: (base URL, stop function)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(build_app(), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise SystemExit("the server did not start")
        time.sleep(0.05)

    def stop():
        server.should_exit = True
        thread.join(timeout=10)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", stop


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"), help="folder of the two PNGs (default docs/)")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--opponents", nargs="+", default=["heuristic"], help="agent specs, one for all or one each")
    parser.add_argument("--seeds", type=int, default=200, help="seeds tried, from 0 (default 200)")
    parser.add_argument("--min-decisions", type=int, default=4, help="the human's decisions before it (default 4)")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("needs Debian's chromium: apt-get install -y chromium")
    try:
        seed, decisions = find_seed(args.variant, args.players, args.opponents, args.seeds, args.min_decisions)
    except (UnoError, RequestError) as exc:  # a variant, player count or agent spec the server would refuse
        raise SystemExit(f"browser_screenshots.py: {exc}") from None
    os.makedirs(args.out, exist_ok=True)
    from playwright.sync_api import sync_playwright

    url, stop = serve()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True)
            for name, (size, scale) in SIZES.items():  # the same game, replayed at each size
                page = browser.new_page(viewport=size, device_scale_factor=scale)
                reach_decision(page, url, args, seed, decisions)
                path = os.path.join(args.out, f"browser-play-{name}.png")
                save_small_png(page.screenshot(), path)
                print(f"{name}: seed {seed}, {decisions} decisions before it; prompt {page.inner_text('#prompt')!r}; "
                      f"status {page.inner_text('#turn')!r}; wrote {path}")
                page.close()
            browser.close()
    finally:
        stop()
    return 0


def save_small_png(png: bytes, path: str) -> None:
    """The screenshot in 256 colours: a tenth of the bytes (the page's flat colours survive; the felt's gradient
    shows faint bands)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(path, optimize=True)


def reach_decision(page, url: str, args, seed: int, decisions: int) -> None:
    """Open the seeded game and click the lowest legal action ``decisions`` times; the page then asks ``PHASE``."""
    page.goto(url + "/?delay=0")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#variant", args.variant)
    page.fill("#players", str(args.players))
    page.dispatch_event("#players", "input")
    opponents = args.opponents * (args.players - 1) if len(args.opponents) == 1 else args.opponents
    for i, spec in enumerate(opponents):
        set_opponent(page, i, spec)
    page.fill("#seed", str(seed))
    page.click("#start")
    for _ in range(decisions):
        page.wait_for_selector("body[data-state='decide']")
        step = page.get_attribute("#decision", "data-step")
        action = page.evaluate("Math.min(...Object.values(view.decision.plays).flat().map((a) => a.action), "
                               "...view.decision.buttons.map((b) => b.action))")
        card = page.locator(f"#hand button.legal[data-actions~='{action}']").first
        modes = card.get_attribute("data-actions").split() if card.count() else []
        if modes:
            card.click()
        if len(modes) != 1:  # a button, or the mode of a card playable in several
            page.click(f"#buttons button[data-action='{action}']")
        page.wait_for_function(f"document.body.dataset.state !== 'decide' || "
                               f"document.getElementById('decision').dataset.step !== '{step}'")
    page.wait_for_selector("body[data-state='decide']")
    phase = page.get_attribute("#decision", "data-phase")
    if phase != PHASE:
        raise SystemExit(f"the page asks {phase}, not {PHASE}: the game went another way than in find_seed")


def set_opponent(page, i: int, spec: str) -> None:
    """Opponent ``i``'s agent: chosen from the drop-down, or typed as a custom spec after choosing "other..."."""
    select = page.locator(".opponent").nth(i)
    if spec in select.evaluate("s => Array.from(s.options, (o) => o.value)"):
        select.select_option(spec)
    else:
        select.select_option("other")
        page.locator(".opponent-custom").nth(i).fill(spec)


if __name__ == "__main__":
    sys.exit(main())
