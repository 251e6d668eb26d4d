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
from hypothesis import HealthCheck, given, settings
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
    app = create_app(str(db), timeout=0, limits=Limits.off())
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
    # Aim at real rooms with real tokens half the time (else nearly every request is a 404 or a 403).
    if "room_id" in (case.path_parameters or {}) and len(str(case.path_parameters["room_id"])) % 2 == 0:
        target = live["game"] if case.path_parameters["room_id"] else live["lobby"]
        case.path_parameters["room_id"] = target["room"]
        token = live["player"]["token"] if target is live["game"] else target["host_token"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                   response_schema_conformance, negative_data_rejection, unsupported_method])


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
    """A game of nine people (no bots), so that every seat has something to do at some point."""
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    db = tmp_path_factory.mktemp("act") / "act.sqlite"
    with TestClient(create_app(str(db), timeout=0, limits=Limits.off())) as c:
        room = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "seed": 9}).json()
        tokens = [c.post(f"/api/rooms/{room['room']}/join", json={"name": f"P{i}"}).json()["token"]
                  for i in range(1, 10)]
        assert c.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
        yield {"client": c, "db": db, "room": room["room"], "tokens": tokens}


def raw_json(value: Any) -> bytes:
    import json

    return json.dumps(value, allow_nan=True).encode()  # Infinity and NaN too, as a hostile client sends them


@given(move=MOVES, who=st.integers(0, 8), legal=st.booleans())
@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_random_moves_never_break_a_room(table: dict[str, Any], move: Any, who: int, legal: bool) -> None:
    c, room, tokens = table["client"], table["room"], table["tokens"]
    token = tokens[who]
    views = [c.get(f"/api/rooms/{room}/view", headers=auth(t)).text for t in tokens]
    public = c.get(f"/api/rooms/{room}/public").text
    answers = stored_answers(table["db"], room)
    r = c.post(f"/api/rooms/{room}/act", content=raw_json(move),
               headers={**auth(token), "Content-Type": "application/json"})
    assert r.status_code < 500, r.text
    assert "error" in r.json() if r.status_code >= 400 else r.json() == {"ok": True}
    if r.status_code >= 400:
        assert [c.get(f"/api/rooms/{room}/view", headers=auth(t)).text for t in tokens] == views
        assert c.get(f"/api/rooms/{room}/public").text == public
        assert stored_answers(table["db"], room) == answers
    if legal:  # move the game on now and then, so that the moves land on many kinds of decision
        pending = c.get(f"/api/rooms/{room}/view", headers=auth(token)).json()["pending"]
        if pending:
            assert c.post(f"/api/rooms/{room}/act", json=pending[len(answers) % len(pending)],
                          headers=auth(token)).status_code == 200
