"""``uno-env serve``'s API: games through every variant, every error path, and each safety property
(a seat sees only its own cards, sessions are apart, files only from the one allowed folder, local host names)."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request

import warnings

import pytest

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its test client; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import agents
from uno_env import VARIANTS
from uno_env.records import read_records, replay
from train.app.serve.app import build_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

LOCAL = "http://127.0.0.1"


def client(folder=None) -> TestClient:
    return TestClient(build_app(None if folder is None else str(folder)), base_url=LOCAL)


def new_game(c, **body):
    body.setdefault("seed", 1)
    body.setdefault("opponents", ["random"])
    r = c.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def session_of(c, sid):
    return c.app.state.sessions.get(sid)


def first_choice(view) -> int:
    """The lowest legal action id offered in a view's decision."""
    d = view["decision"]
    return min([a["action"] for acts in d["plays"].values() for a in acts] + [b["action"] for b in d["buttons"]])


def play_out(c, data, check=None) -> dict:
    """Play the human seat's lowest action until the end; ``check(data)`` after every response."""
    sid = data["session"]
    while data["view"]["result"] is None:
        if check:
            check(data)
        r = c.post(f"/api/games/{sid}/act", json={"action": first_choice(data["view"]), "step": data["view"]["step"]})
        assert r.status_code == 200, r.text
        data = {**r.json(), "session": sid}
    return data


def assert_only_own_cards(c, data):
    """The view and every event's view show the human's hand and public information only, equal to the truth."""
    s = session_of(c, data["session"])
    game, state, me = s.game, s.state, s.seat
    view = data["view"]
    assert [card["name"] for card in view["hand"]] == game.hand_cards(state, me)
    for seat in view["seats"]:
        assert "hand" not in seat
        assert seat["cards"] == state.hand_size[seat["seat"]]
        if game.physical is not None and seat["seat"] != me:
            names = sorted(game.physical.backs(state, seat["seat"]))
            assert [b["name"] for b in seat["backs"]] == [game.card_name(k) for k in names]
        else:
            assert "backs" not in seat
    if state.reveals[me] is not None:
        owner, counts = state.reveals[me]
        assert view["reveal"]["owner"] == owner and len(view["reveal"]["cards"]) == sum(counts)
    text = json.dumps(data)
    assert '"seed"' not in text and '"hands"' not in text and '"draw_pile"' not in text
    for event in data["events"]:
        assert all("hand" not in seat for seat in event["view"]["seats"])
        for line in event["lines"]:  # another seat's new cards are counted, never named
            if re.match(r"^  P\d", line):
                assert re.fullmatch(r"  P\d+ \+\d+ cards?", line), line


@pytest.mark.parametrize("variant", ["classic", "flex", "flip", "attack"])
def test_a_whole_game_shows_only_the_humans_cards(variant):
    c = client()
    vdef = VARIANTS[variant]
    for players, seat in ((vdef.min_players, 0), (vdef.max_players, vdef.max_players - 1)):
        data = new_game(c, variant=variant, players=players, seat=seat, opponents=["random"], seed=players)
        assert len(data["view"]["seats"]) == players and data["view"]["seat"] == seat
        end = play_out(c, data, lambda d: assert_only_own_cards(c, d))
        result = end["view"]["result"]
        assert result["steps"] == session_of(c, data["session"]).state.steps
        assert ("you win" in result["text"]) == (result["winner"] == seat)


def test_config_offers_every_variant_its_player_range_and_no_file_options():
    cfg = client().get("/api/config").json()
    assert set(cfg["variants"]) == set(VARIANTS)
    for name, spec in cfg["variants"].items():
        assert (spec["min_players"], spec["max_players"]) == (VARIANTS[name].min_players, VARIANTS[name].max_players)
        assert not any(o["key"].endswith("deck_manifest") for o in spec["options"])
    assert "heuristic" in cfg["agents"] and cfg["records"] == [] and cfg["folder"] is False


def test_rule_options_reach_the_game():
    c = client()
    data = new_game(c, variant="classic", players=3, options=["stacking=any", "jump_in=true"])
    rules = session_of(c, data["session"]).rules
    assert rules.options["stacking"] == "any" and rules.options["jump_in"] == "on"


@pytest.mark.parametrize("body, says", [
    ({"variant": "uno-deluxe"}, "unknown variant 'uno-deluxe'; available: classic"),
    ({"variant": "flex", "players": 9}, "outside flex's range 2..8"),
    ({"players": "3"}, "must be an int"),
    ({"options": ["stackign=any"]}, "stackign"),
    ({"options": ["stacking=sometimes"]}, "allowed values"),
    ({"options": "stacking=any"}, "list of KEY=VALUE"),
    ({"options": ["stacking"]}, "KEY=VALUE"),
    ({"variant": "flip", "options": ["flip.deck_manifest=/etc/passwd"]}, "reads no deck manifest files"),
    ({"opponents": ["grandmaster"]}, "unknown agent spec 'grandmaster'"),
    ({"opponents": ["pretrained:nope"]}, "no pretrained policy 'nope'"),
    ({"opponents": ["ismcts:depth=3"]}, "depth"),
    ({"opponents": [""]}, "non-empty string"),
    ({"opponents": [7]}, "non-empty string"),
    ({"opponents": ["random", "random"], "players": 2}, "2 players need 1 opponent"),
    ({"seat": 2}, "seat must be an int in 0..1"),
    ({"seed": -1}, "seed must be an int"),
    ({"seed": "x"}, "seed must be an int"),
])
def test_bad_new_game_requests_get_a_clear_error(body, says):
    c = client()
    r = c.post("/api/games", json={"opponents": ["random"], **body})
    assert r.status_code == 400 and says in r.json()["error"], r.text
    assert len(c.app.state.sessions.games) == 0


def test_no_request_loads_a_policy_or_code_from_an_arbitrary_path(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for ext in (".npz", ".json"):
        shutil.copy(os.path.join(agents.PRETRAINED_DIR, "classic" + ext), outside / ("p" + ext))
    c = client()
    for spec in (str(outside / "p"), "../outside/p", "p.json"):
        r = c.post("/api/games", json={"opponents": [spec]})
        assert r.status_code == 400 and "loads no policy files" in r.json()["error"], spec
    for spec in ("os:system", "train.agent_specs:load_agent"):  # no module:callable form: it would import code
        r = c.post("/api/games", json={"opponents": [spec]})
        assert r.status_code == 400 and "unknown agent spec" in r.json()["error"], spec
    folder = tmp_path / "allowed"
    (folder / "runs").mkdir(parents=True)
    for ext in (".npz", ".json"):
        shutil.copy(outside / ("p" + ext), folder / "runs" / ("mine" + ext))
    os.symlink(outside / "p.json", folder / "link.json")
    os.symlink(outside / "p.npz", folder / "link.npz")
    c = client(folder)
    assert new_game(c, opponents=["runs/mine"], players=2)["view"]["seats"][1]["name"] == "P1 mine"
    for spec, status, says in (("../outside/p", 403, "outside"), (str(outside / "p"), 400, "absolute"),
                               ("link", 403, "outside"), ("runs/absent", 400, "no exported policy")):
        r = c.post("/api/games", json={"opponents": [spec]})
        assert r.status_code == status and says in r.json()["error"], (spec, r.text)


def test_a_forged_action_is_refused_and_leaves_the_game_unchanged():
    c = client()
    data = new_game(c, variant="classic", players=2)
    sid, view = data["session"], data["view"]
    s = session_of(c, sid)
    legal = s.game.legal_actions(s.state)
    illegal = next(a for a in range(s.game.num_actions) if a not in legal)
    before = json.dumps(c.get(f"/api/games/{sid}").json())
    for body, status, says in (
            ({"action": illegal, "step": view["step"]}, 400, "not one of your legal actions now; allowed: "),
            ({"action": -1}, 400, "not one of your legal actions"),
            ({"action": 10**9}, 400, "not one of your legal actions"),
            ({"action": "play R7"}, 400, "not one of your legal actions"),
            ({"action": True}, 400, "not one of your legal actions"),
            ({"step": view["step"]}, 400, "JSON object"),
            ({"action": legal[0], "step": view["step"] - 1}, 409, "stale request")):
        r = c.post(f"/api/games/{sid}/act", json=body)
        assert r.status_code == status and says in r.json()["error"], (body, r.text)
    r = c.post(f"/api/games/{sid}/act", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = c.post(f"/api/games/{sid}/act", content=b"x" * (9 * 2**20))
    assert r.status_code == 413
    assert json.dumps(c.get(f"/api/games/{sid}").json()) == before
    r = c.post(f"/api/games/{sid}/act", json={"action": first_choice(view), "step": view["step"]})
    assert r.status_code == 200 and r.json()["view"]["step"] > view["step"]


def test_a_finished_game_refuses_actions_and_saves_a_record_that_replays():
    c = client()
    data = new_game(c, variant="flip", players=3, seat=1, opponents=["random", "heuristic"])
    sid = data["session"]
    r = c.get(f"/api/games/{sid}/record")
    assert r.status_code == 409 and "once it is over" in r.json()["error"]
    end = play_out(c, data)
    r = c.post(f"/api/games/{sid}/act", json={"action": 0})
    assert r.status_code == 409 and "over" in r.json()["error"]
    r = c.get(f"/api/games/{sid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    (record,) = read_records(io.StringIO(r.text))
    assert record.players == ["random", "human", "heuristic"]
    *_, (game, state, _) = replay(record)
    assert state.winner == end["view"]["result"]["winner"] and state.steps == end["view"]["result"]["steps"]


def test_sessions_are_apart_and_their_ids_unguessable():
    c = client()
    a, b = new_game(c, seed=3), new_game(c, seed=3)
    assert a["session"] != b["session"] and len(a["session"]) >= 32
    # change the last character to a different one (an id may already end in "x")
    altered = a["session"][:-1] + ("y" if a["session"].endswith("x") else "x")
    assert c.get("/api/games/" + altered).status_code == 404
    r = c.post("/api/games/not-a-session/act", json={"action": 0})
    assert r.status_code == 404 and "no such game" in r.json()["error"]
    view_b = c.get(f"/api/games/{b['session']}").json()
    c.post(f"/api/games/{a['session']}/act", json={"action": first_choice(a["view"])})
    assert c.get(f"/api/games/{b['session']}").json() == view_b
    assert c.get(f"/api/games/{a['session']}").json()["view"]["step"] > view_b["view"]["step"]


def test_same_seed_same_game_and_rematches():
    c = client()
    a, b = new_game(c, seed=9, players=3), new_game(c, seed=9, players=3)
    assert a["view"] == b["view"] and a["events"] == b["events"]
    ra = c.post(f"/api/games/{a['session']}/rematch", json={}).json()
    rb = c.post(f"/api/games/{b['session']}/rematch", json={}).json()
    assert ra["view"]["game_number"] == 2 and ra["view"] == rb["view"]
    assert ra["view"]["hand"] != a["view"]["hand"]


def test_replay_of_an_upload_shows_every_hand_frame_by_frame():
    c = client()
    data = play_out(c, new_game(c, variant="classic", players=3))
    text = c.get(f"/api/games/{data['session']}/record").text
    out = c.post("/api/replay", json={"text": text + text, "game": 1}).json()
    assert len(out["games"]) == 2 and out["game"] == 1
    (record,) = list(read_records(io.StringIO(text)))
    assert len(out["frames"]) == len(record.actions) + 1
    for frame, (game, state, _) in zip(out["frames"], replay(record)):
        assert [[card["name"] for card in s["hand"]] for s in frame["view"]["seats"]] == \
            [game.hand_cards(state, q) for q in range(3)]
    assert out["result"]["winner"] == data["view"]["result"]["winner"]


@pytest.mark.parametrize("body, says", [
    ({"text": "not json\n"}, "not a game record: line 1: not JSON"),
    ({"text": ""}, "holds no game records"),
    ({"text": 5}, "must be sent as text"),
    ({"text": json.dumps({"type": "game", "format": "uno-env-record", "version": 1, "rules": {"variant": "x"},
                          "seed": 1}) + "\n"}, "does not replay"),
])
def test_bad_records_get_a_clear_error(body, says):
    r = client().post("/api/replay", json=body)
    assert r.status_code == 400 and says in r.json()["error"], r.text


def test_the_replay_viewer_reads_files_only_under_the_folder(tmp_path):
    c = client()
    text = c.get(f"/api/games/{play_out(c, new_game(c))['session']}/record").text
    r = c.post("/api/replay", json={"path": "games.jsonl"})
    assert r.status_code == 403 and "opens no record files" in r.json()["error"]
    folder = tmp_path / "records"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "games.jsonl").write_text(text)
    (tmp_path / "secret.jsonl").write_text(text)
    os.symlink(tmp_path / "secret.jsonl", folder / "link.jsonl")
    c = client(folder)
    assert "sub/games.jsonl" in c.get("/api/config").json()["records"]
    assert c.post("/api/replay", json={"path": "sub/games.jsonl"}).status_code == 200
    for path, status, says in (("../secret.jsonl", 403, "outside"), ("sub/../../secret.jsonl", 403, "outside"),
                               ("link.jsonl", 403, "outside"), (str(tmp_path / "secret.jsonl"), 400, "absolute"),
                               ("absent.jsonl", 404, "no record file"), ("sub", 404, "no record file"),
                               (None, 400, "non-empty path")):
        r = c.post("/api/replay", json={"path": path})
        assert r.status_code == status and says in r.json()["error"], (path, r.text)


def test_requests_naming_another_host_are_refused():
    c = client()
    assert c.get("/api/config").status_code == 200
    assert c.get("/api/config", headers={"host": "attacker.example"}).status_code == 400
    assert c.get("http://localhost/api/config").status_code == 200


def test_the_page_is_served_and_fetches_nothing_from_elsewhere():
    c = client()
    page = c.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name in ("app.js", "style.css"):
        body = c.get(f"/static/{name}").text
        assert body and not re.search(r"https?://|//cdn|@import", body), name
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text)
    assert c.get("/static/../session.py").status_code == 404


def test_serve_prints_its_address_and_serves(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "train.app.cli", "serve", "--port", "0", "--folder", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        with urllib.request.urlopen(url.group(0) + "api/config", timeout=20) as r:
            assert json.load(r)["folder"] is True
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_refuses_a_missing_folder(tmp_path, capsys):
    from train.app.cli import main

    assert main(["serve", "--port", "0", "--folder", str(tmp_path / "absent")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_the_viewer_refuses_a_game_longer_than_it_shows(monkeypatch):
    import train.app.serve.replays as replays

    c = client()
    text = c.get(f"/api/games/{play_out(c, new_game(c))['session']}/record").text
    monkeypatch.setattr(replays, "MAX_FRAMES", 3)
    r = c.post("/api/replay", json={"text": text})
    assert r.status_code == 400 and "the viewer shows at most 3" in r.json()["error"]
