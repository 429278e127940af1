"""Property-based fuzzing of every parser that reads untrusted text: the web server's request API, agent specs,
search options, rule options, scenario specs and action strings.

The properties are the hardening contract (docs/browser-play.md, "Threat model"): random and mutated inputs never
give a 5xx, never an exception other than the documented error types, and never an answer larger than a bound.
"""
from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its test client; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import agents
from agents import AgentSpecError, PolicyFileError, SearchOptionError
from uno_env import Game, UnoError
from train.errors import UsageError
from train.rule_args import parse_options
from train.app.serve.app import build_app

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

#: An error answer repeats at most a short prefix of what it was sent; this bounds it with room for the allowed lists.
MAX_ERROR_BYTES = 4096

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# JSON values: scalars of every kind (huge ints, long strings) nested a few levels
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-2**200, max_value=2**200),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40),
                    st.sampled_from(["classic", "flip", "flex", "attack", "heuristic", "random", "ismcts",
                                     "ismcts:iterations=5", "pretrained", "../../etc/passwd", "/etc/passwd",
                                     "stacking=any", "stacking=[1, 2]", "uno_call=decide", "&a [1]", "*a"]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=5), max_leaves=20)

GAME_KEYS = ["variant", "players", "options", "opponents", "seat", "seed"]
game_bodies = st.fixed_dictionaries({}, optional={
    "variant": st.one_of(st.sampled_from(["classic", "flip", "flex", "attack", "alphabet", "xiangqi"]), json_values),
    "players": st.one_of(st.integers(min_value=1, max_value=11), json_values),
    "options": st.one_of(st.lists(st.sampled_from(["stacking=any", "stacking=none", "jump_in=on",
                                                   "uno_call=decide", "stacking=[&a [1], *a]", "x=1", "=",
                                                   "stacking=" + "[" * 50])), json_values),
    "opponents": st.one_of(st.lists(st.sampled_from(["random", "greedy", "heuristic", "ismcts:iterations=3",
                                                     "ismcts:prior=/etc/passwd", "pretrained", "nope"]),
                                    min_size=1, max_size=3), json_values),
    "seat": st.one_of(st.integers(min_value=-1, max_value=4), json_values),
    "seed": st.one_of(st.integers(min_value=-1, max_value=2**32), json_values)})


def local_client() -> TestClient:
    """A client of a server with no folder, as the page on the same origin talks to it."""
    return TestClient(build_app(None), base_url="http://127.0.0.1", raise_server_exceptions=False)


def assert_refused_or_served(response) -> None:
    """The contract on any answer: no 5xx, errors as short JSON ``{"error": ...}``."""
    assert response.status_code < 500, response.text[:500]
    if response.status_code >= 400:
        assert len(response.content) <= MAX_ERROR_BYTES, response.content[:300]
        assert set(response.json()) == {"error"}, response.text[:300]


@pytest.fixture(scope="module")
def client():
    with local_client() as c:
        yield c


@FUZZ
@given(body=st.one_of(game_bodies, json_values))
def test_new_game_requests_never_fail_the_server(client, body):
    """Any JSON body to POST /api/games: a game or a 4xx naming what was wrong."""
    if isinstance(body, dict) and isinstance(body.get("opponents"), list):
        body["opponents"] = [o for o in body["opponents"] if not (isinstance(o, str) and o.startswith("ismcts"))] \
            or ["random"]  # keep each example cheap: search agents are fuzzed by their options parser below
    assert_refused_or_served(client.post("/api/games", json=body))


@FUZZ
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode),
                     st.integers(min_value=1, max_value=3000).map(lambda n: b"[" * n + b"]" * (n // 2)),
                     st.integers(min_value=4000, max_value=6000).map(lambda n: b'{"seed": ' + b"9" * n + b"}")))
def test_raw_bodies_never_fail_the_server(client, raw):
    """Damaged bytes, deep nesting and huge numbers as a body: always a 4xx (or a game), never a 5xx."""
    for path in ("/api/games", "/api/replay"):
        assert_refused_or_served(client.post(path, content=raw, headers={"Content-Type": "application/json"}))


@FUZZ
@given(action=json_values, step=json_values)
def test_actions_never_fail_the_server(client, action, step):
    """Any action and step sent to a live game: applied if legal, else a 4xx; the game is never broken."""
    r = client.post("/api/games", json={"seed": 3, "opponents": ["random"]})
    assert r.status_code == 200, r.text
    sid = r.json()["session"]
    before = client.get(f"/api/games/{sid}").json()["view"]
    answer = client.post(f"/api/games/{sid}/act", json={"action": action, "step": step})
    assert_refused_or_served(answer)
    after = client.get(f"/api/games/{sid}").json()["view"]
    if answer.status_code >= 400:
        assert after == before  # a refused request changes nothing


@FUZZ
@given(text=st.one_of(st.text(max_size=400), st.lists(json_values, max_size=4).map(
    lambda rows: "\n".join(json.dumps(r) for r in rows))), game=json_values)
def test_replay_requests_never_fail_the_server(client, text, game):
    """Any text offered to the replay viewer: frames of a real record or a 4xx."""
    assert_refused_or_served(client.post("/api/replay", json={"text": text, "game": game}))


@FUZZ
@given(spec=st.one_of(st.text(max_size=60), st.sampled_from(["ismcts:", "ismcts:iterations=", "pretrained:",
                                                             "ismcts:prior=none,iterations=2", "ismcts:c=nan",
                                                             "ismcts:time=1e400", "ismcts:,,,", "pretrained:../x"])))
def test_agent_specs_raise_only_their_errors(spec):
    """Any spec string: an agent or one of the loader's documented errors."""
    game = Game("classic", num_players=2)
    if spec.startswith("ismcts") and "iterations=" not in spec:
        spec += ",iterations=2" if ":" in spec else ":iterations=2"
    try:
        agents.load(spec, game, seed=0)
    except (AgentSpecError, PolicyFileError, SearchOptionError, UnoError) as exc:
        assert len(str(exc)) <= MAX_ERROR_BYTES


@FUZZ
@given(text=st.text(max_size=120))
def test_search_options_raise_only_their_error(text):
    """Any text after ``ismcts:``: typed options or a SearchOptionError."""
    try:
        agents.parse_options(text)
    except SearchOptionError as exc:
        assert len(str(exc)) <= MAX_ERROR_BYTES


@FUZZ
@given(pairs=st.lists(st.one_of(st.text(max_size=60), st.builds(lambda k, v: f"{k}={v}", st.sampled_from(
    ["stacking", "uno_call", "attack.burst_distribution", "jump_in", "x"]), st.text(max_size=60))), max_size=4))
def test_rule_options_raise_only_their_errors(pairs):
    """Any ``--option`` strings: a rule set or a one-line UsageError/RuleError, short whatever the value's size."""
    try:
        from uno_env import RuleSet
        RuleSet.create("attack", 2, parse_options(pairs))
    except (UsageError, UnoError) as exc:
        assert len(str(exc)) <= MAX_ERROR_BYTES and "\n" not in str(exc)


@FUZZ
@given(spec=st.dictionaries(st.sampled_from(["variant", "players", "seed", "current", "direction", "discard",
                                             "colour", "draw_pile", "hands", "scores", "unplaced", "dealer",
                                             "start", "power", "side", "launcher", "options", "bogus"]),
                            json_values, max_size=6),
       variant=st.sampled_from(["classic", "flex", "flip", "attack"]))
def test_scenario_specs_raise_only_spec_errors(spec, variant):
    """Any mapping as a scenario spec: a state or a UnoError naming the key."""
    game = Game(variant, num_players=2)
    try:
        game.state_from_spec(spec)
    except UnoError as exc:
        assert len(str(exc)) <= MAX_ERROR_BYTES


@FUZZ
@given(text=st.text(max_size=40), seed=st.integers(min_value=0, max_value=50))
def test_action_strings_raise_only_parse_errors(text, seed):
    """Any action string against a live state: an action id or an IllegalActionError."""
    game = Game("flip", num_players=3)
    state = game.new_state(seed)
    try:
        action = game.action_from_string(text, state)
    except UnoError as exc:
        assert len(str(exc)) <= MAX_ERROR_BYTES
    else:
        assert 0 <= action < game.num_actions


yaml_texts = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(["a: 1\n", "- x\n", "&a [1, 2]\n", "b: *a\n", "[" * 40, "{k: v}\n", "! !python/object {}\n",
                              "  - - - 1\n", "9" * 60 + "\n", "c: &z {d: *z}\n", "? [x]\n: y\n", "%YAML 1.1\n---\n"]),
             max_size=8).map("".join))


@FUZZ
@given(text=yaml_texts)
def test_yaml_texts_give_plain_data_or_one_line(text):
    """Any text as a YAML file: plain data (no anchors or aliases behind it) or one YamlFileError line."""
    from uno_env.safe_yaml import YamlFileError, load_text

    try:
        data = load_text(text, "fuzz.yaml", allow_empty=True)
    except YamlFileError as exc:
        assert "\n" not in str(exc) and len(str(exc)) <= MAX_ERROR_BYTES
    else:
        seen: set[int] = set()  # an alias would put one list or mapping in two places: none may be shared

        def walk(value) -> None:
            if isinstance(value, (list, dict)):
                assert id(value) not in seen, "an aliased value was accepted"
                seen.add(id(value))
                for item in (value.values() if isinstance(value, dict) else value):
                    walk(item)
            else:
                assert value is None or isinstance(value, (str, int, float, bool, bytes)) or \
                    type(value).__module__ == "datetime", f"not plain data: {type(value)}"

        walk(data)
