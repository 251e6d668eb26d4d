"""Random requests: schemathesis against the app's own OpenAPI schema, and hypothesis on ``/act``.

No request may get a 5xx; answers match the schema; a body the schema refuses is refused; and a move the
room refuses changes nothing, in memory or in the database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from werewolf.web.limits import Limits

from .conftest import auth
from .test_api import NINE

QUICK = settings(max_examples=15, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One app with a lobby and a game on, for every generated request to aim at."""
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    db = tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite"
    app = create_app(str(db), timeout=0, limits=Limits.off(), pace=(0, 0))
    with TestClient(app) as c:
        lobby = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "bots": [3, 4, 5, 6, 7, 8, 9]}).json()
        game = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "bots": [2, 3, 4, 5, 6, 7, 8, 9],
                                          "seed": 5}).json()
        player = c.post(f"/api/rooms/{game['room']}/join", json={"name": "Ann"}).json()
        assert c.post(f"/api/rooms/{game['room']}/start", headers=auth(game["host_token"])).status_code == 200
        yield {"app": app, "client": c, "db": db, "lobby": lobby, "game": game, "player": player}


@pytest.fixture(scope="module")
def api_schema(live: dict[str, Any]) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", live["app"])


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@QUICK
def test_the_api_against_its_own_schema(case: Any, live: dict[str, Any]) -> None:
    # Aim at the real rooms with their real tokens two times in three (else nearly every request is a 404).
    if "room_id" in (case.path_parameters or {}):
        pick = len(str(case.path_parameters["room_id"])) % 3  # 0: the lobby (host), 1: the game (player)
        if pick < 2:
            target = live["lobby"] if pick == 0 else live["game"]
            case.path_parameters["room_id"] = target["room"]
            token = target["host_token"] if pick == 0 else live["player"]["token"]
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
              negative_data_rejection, unsupported_method]
    response = case.call()
    if response.status_code == 413:  # a body over the size limit is refused unread: a rejection too (documented)
        checks.remove(negative_data_rejection)
    case.validate_response(response, checks=checks)


# -- hypothesis on /act --------------------------------------------------------------------------
KEYS = st.sampled_from(["act", "target", "targets", "value", "text", "seat", "card", "when", "side", "x"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 15), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=30), st.sampled_from(["vote", "kill", "check", "speak", "save", "poison",
                                                           "guard", "shoot", "run", "pass"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=4), st.lists(st.lists(st.integers(0, 12), max_size=3),
                                                                     max_size=2))
MOVES = st.one_of(st.dictionaries(KEYS, VALUES, max_size=5), VALUES, st.dictionaries(st.text(max_size=8), VALUES,
                                                                                     max_size=3))


def stored_answers(db: Path, room: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM answers WHERE room_id = ? ORDER BY 2", (room,)).fetchall()


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A game of nine people (no bots), so that every seat has something to do at some point, paced for real
    (a few tenths of a second a step): the room's timers fire between and during the requests."""
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    db = tmp_path_factory.mktemp("act") / "act.sqlite"
    app = create_app(str(db), timeout=0, limits=Limits.off(), pace=(0.2, 0.5))
    with TestClient(app) as c:
        room = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "seed": 9}).json()
        tokens = [c.post(f"/api/rooms/{room['room']}/join", json={"name": f"P{i}"}).json()["token"]
                  for i in range(1, 10)]
        assert c.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
        yield {"client": c, "db": db, "room": room["room"], "tokens": tokens, "hub": app.state.hub}


def raw_json(value: Any) -> bytes:
    import json

    return json.dumps(value, allow_nan=True).encode()  # Infinity and NaN too, as a hostile client sends them


@given(move=MOVES, who=st.integers(0, 8), legal=st.booleans())
@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_random_moves_never_break_a_room(table: dict[str, Any], move: Any, who: int, legal: bool) -> None:
    c, room, tokens = table["client"], table["room"], table["tokens"]
    live = table["hub"].rooms[room]
    token = tokens[who]
    published = live.version  # bumped by every change the room publishes (the pacer's releases too)
    views = [c.get(f"/api/rooms/{room}/view", headers=auth(t)).text for t in tokens]
    public = c.get(f"/api/rooms/{room}/public").text
    answers = stored_answers(table["db"], room)
    r = c.post(f"/api/rooms/{room}/act", content=raw_json(move),
               headers={**auth(token), "Content-Type": "application/json"})
    assert r.status_code < 500, r.text
    assert "error" in r.json() if r.status_code >= 400 else r.json() == {"ok": True}
    if r.status_code >= 400:
        after = [c.get(f"/api/rooms/{room}/view", headers=auth(t)).text for t in tokens]
        public_after = c.get(f"/api/rooms/{room}/public").text
        if live.version == published:  # nothing published meanwhile: the refusal changed no view
            assert (after, public_after) == (views, public)
        event(f"the pacer moved meanwhile: {live.version != published}")
        assert stored_answers(table["db"], room) == answers  # people only: only their answers are stored
    if legal:  # move the game on now and then, so that the moves land on many kinds of decision
        pending = c.get(f"/api/rooms/{room}/view", headers=auth(token)).json()["pending"]
        if pending:
            assert c.post(f"/api/rooms/{room}/act", json=pending[len(answers) % len(pending)],
                          headers=auth(token)).status_code == 200


# -- hypothesis on a room's options --------------------------------------------------------------
RULESETS = ["classic", "facetoface", "wechat", "onuw", "onenight"]
NOISE = st.one_of(SCALARS, st.integers(-10, 200), st.lists(SCALARS, max_size=4),
                  st.lists(st.lists(st.integers(-1, 13), max_size=7), max_size=3))


def plausible(hint: Any) -> Any:
    """Values of an option's type, near and outside its range (the type read as the engine reads it)."""
    import typing

    args = typing.get_args(hint)
    if typing.get_origin(hint) is typing.Literal:
        return st.sampled_from(list(args))
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-2, 120)
    if args and type(None) in args:
        return st.one_of(st.none(), *(plausible(a) for a in args if a is not type(None)))
    if float in args or hint is float:
        return st.one_of(st.integers(-1, 12), st.floats(-1, 12))
    return st.lists(st.sampled_from(["poison", "lover", "wolf", "good", "lovers", "bomber", "charm"]), max_size=4)


@st.composite
def room_options(draw: Any) -> tuple[str, dict[str, Any]]:
    import dataclasses
    import typing

    from werewolf.rulesets.options import option_type

    ruleset = draw(st.sampled_from(RULESETS))
    hints = typing.get_type_hints(option_type(ruleset))
    names = draw(st.lists(st.sampled_from(sorted(f.name for f in dataclasses.fields(option_type(ruleset)))),
                          max_size=3, unique=True))
    return ruleset, {n: draw(st.one_of(*[plausible(hints[n])] * 5, NOISE)) for n in names}


@pytest.fixture(scope="module")
def creator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    with TestClient(create_app(str(tmp_path_factory.mktemp("opt") / "opt.sqlite"), timeout=0,
                               limits=Limits.off(), pace=(0, 0))) as c:
        yield c


@given(drawn=room_options())
@settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def test_no_option_value_breaks_room_creation(creator: Any, drawn: tuple[str, dict[str, Any]]) -> None:
    """Any value of any option: a room (that then starts and plays to its end), or a 422 naming the option."""
    ruleset, options = drawn
    r = creator.post("/api/rooms", content=raw_json({"ruleset": ruleset, "options": options, "players": 9,
                                                     "bots": list(range(1, 10))}),
                     headers={"Content-Type": "application/json"})
    assert r.status_code in (201, 422), r.text
    event(f"status {r.status_code}")
    if r.status_code == 422:
        assert any(name in r.json()["error"] for name in options) or "players" in r.json()["error"], r.text
        return
    room = r.json()
    assert creator.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
    assert creator.get(f"/api/rooms/{room['room']}/public").status_code == 200
