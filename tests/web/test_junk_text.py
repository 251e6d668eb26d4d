"""Every text a person sends is checked before it is stored (issue 25, item 1): every kind of junk text
through every field that takes text is a 422 that changes nothing; and a text an older version stored
unchecked is shown safely (never a 500, never a socket closed on it)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf.printable import printable, refused, scrub

from .conftest import auth
from .test_api import NINE, create, join, view
from .test_discussion import talk_room
from .test_edge import stored

# (a name for the report, the junk, the code point the error must name)
JUNK: list[tuple[str, str, str]] = [
    ("lone high surrogate", "hi \ud800 there", "U+D800"),
    ("lone low surrogate", "hi \udfff", "U+DFFF"),
    ("NUL", "a\x00b", "U+0000"),
    ("ANSI escape", "\x1b[31mred\x1b[0m", "U+001B"),
    ("DEL", "a\x7fb", "U+007F"),
    ("C1 control (CSI)", "a\x9b2Jb", "U+009B"),
    ("bidi override", "evil\u202etxt.exe", "U+202E"),
    ("bidi embedding", "a\u202ab", "U+202A"),
    ("bidi isolate", "a\u2066b\u2069", "U+2066"),
    ("zero width space", "a\u200bb", "U+200B"),
    ("byte order mark", "\ufeffab", "U+FEFF"),
    ("lone zero width joiner", "ab\u200d", "U+200D"),
    ("tag character outside a flag", "a\U000e0041b", "U+E0041"),
    ("private use", "a\ue000b", "U+E000"),
    ("unassigned", "a\u0378b", "U+0378"),
    ("noncharacter", "a\ufffeb", "U+FFFE"),
    ("interlinear annotation", "a\ufff9b", "U+FFF9"),
]
IDS = [j[0] for j in JUNK]


def post(client: Any, path: str, body: Any, token: str | None = None) -> Any:
    # json.dumps escapes lone surrogates (\ud800): the body is valid JSON, as an attacker would send it.
    headers = {"Content-Type": "application/json", **(auth(token) if token else {})}
    return client.post(path, content=json.dumps(body).encode(), headers=headers)


def refused_with(r: Any, *words: str) -> None:
    assert r.status_code == 422, (r.status_code, r.text)
    message = r.json()["error"]
    for w in words:
        # (pydantic refuses a lone surrogate in a typed string field itself, in its own words)
        assert w in message or (w in ("U+D800", "U+DFFF") and "unicode string" in message), message


def readable(client: Any, rid: str, tokens: list[str]) -> list[Any]:
    """Every view of the room, each a 200 that is valid JSON."""
    out = [client.get(f"/api/rooms/{rid}/public").json()]
    for t in tokens:
        out.append(view(client, rid, t))
        out.append(view(client, rid, t, lang="en"))
    return out


# -- every field ----------------------------------------------------------------------------------
def test_speech_text_refuses_every_kind_of_junk_and_changes_nothing(client: Any, tmp_path: Path) -> None:
    rid, host, players = talk_room(client)
    a = players[0]
    tokens = [p["token"] for p in players] + [host]
    before = readable(client, rid, tokens), stored(tmp_path / "test.sqlite")
    for name, junk, point in JUNK:
        refused_with(post(client, f"/api/rooms/{rid}/act", {"act": "speak", "text": junk}, a["token"]), point, "text")
        assert (readable(client, rid, tokens), stored(tmp_path / "test.sqlite")) == before, name
    # Newlines and tabs are folded, as in names and the pack chat; the speech is out, every view reads.
    r = post(client, f"/api/rooms/{rid}/act", {"act": "speak", "text": " two\nlines\r\n\tand a tab "}, a["token"])
    assert r.status_code == 200, r.text
    said = [e["text"] for e in client.get(f"/api/rooms/{rid}/public").json()["events"] if e["type"] == "speech"
            and e.get("seat") == 1 and e.get("text")]
    assert said == ["two lines and a tab"]
    readable(client, rid, tokens)


@pytest.mark.parametrize("name, junk, point", JUNK, ids=IDS)
def test_names_refuse_every_kind_of_junk(client: Any, tmp_path: Path, name: str, junk: str, point: str) -> None:
    room = create(client, deck=NINE)["room"]
    refused_with(post(client, f"/api/rooms/{room}/join", {"name": junk}), point, "name")
    assert stored(tmp_path / "test.sqlite")[1] == 0


@pytest.mark.parametrize("name, junk, point", JUNK, ids=IDS)
def test_room_fields_refuse_every_kind_of_junk(client: Any, tmp_path: Path, name: str, junk: str, point: str) -> None:
    # Strings in a room's options, its language, deck and ruleset ids, its bots' kinds: none is stored.
    for body, words in (({"options": {"preset": junk}}, ("options", point)),
                        ({"options": {"tie_priority": ["wolf", junk]}}, ("options", point)),
                        ({"lang": junk}, ("lang",)), ({"deck": junk}, ("deck",)), ({"deck": ["seer", junk]}, ("deck",)),
                        ({"ruleset": junk}, ("ruleset",)),
                        ({"bots": [2], "bot_kinds": {"2": "llm:" + junk}}, ("bot_kinds",))):
        refused_with(post(client, "/api/rooms", {"ruleset": "classic", **body}), *words)
    assert stored(tmp_path / "test.sqlite") == (0, 0, 0)


@pytest.mark.parametrize("name, junk, point", JUNK, ids=IDS)
def test_move_fields_refuse_every_kind_of_junk(client: Any, tmp_path: Path, name: str, junk: str, point: str) -> None:
    # Any string of a move (/act, /intent): in a field the engine reads, or one it would refuse anyway.
    room = create(client, deck=NINE, seed=3, bots=list(range(2, 10)))
    token = join(client, room["room"], "Ann")["token"]
    assert client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
    url = f"/api/rooms/{room['room']}"
    before = view(client, room["room"], token), stored(tmp_path / "test.sqlite")
    for path in ("act", "intent"):
        for body in ({"act": "vote", "target": junk}, {"act": junk}, {"act": "speak", "text": "ok", "x": [junk]}):
            refused_with(post(client, f"{url}/{path}", body, token), point)
    assert (view(client, room["room"], token), stored(tmp_path / "test.sqlite")) == before


@pytest.mark.parametrize("name, junk, point", JUNK, ids=IDS)
def test_pack_chat_refuses_every_kind_of_junk(tmp_path: Path, name: str, junk: str, point: str) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app
    from werewolf.web.limits import Limits

    from .test_pack import SEED

    with TestClient(create_app(str(tmp_path / "chat.sqlite"), timeout=0, limits=Limits.off())) as c:
        r = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic12", "seed": SEED}).json()
        rid, host = r["room"], r["host_token"]
        token = c.post(f"/api/rooms/{rid}/join", json={"name": "p2", "seat": 2}).json()["token"]
        assert c.post(f"/api/rooms/{rid}/start", json={"fill_with_bots": True}, headers=auth(host)).status_code == 200
        refused_with(post(c, f"/api/rooms/{rid}/pack_chat", {"text": junk}, token), point, "text")
        assert c.get(f"/api/rooms/{rid}/view", headers=auth(token)).json()["pack_chat"] == []


# -- any text at all ------------------------------------------------------------------------------
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_the_check_passes_only_printable_text_and_scrub_makes_any_text_pass(text: str) -> None:
    try:
        clean = printable(text, "text", 2000, empty=True)
    except ValueError as err:
        assert "U+" in str(err)
    else:
        clean.encode("utf-8")  # never a lone surrogate
        assert refused(clean) is None and printable(clean, "text", 2000, empty=True) == clean
    safe = scrub(text)
    safe.encode("utf-8")
    assert refused(safe) is None and printable(safe, "text", 2000, empty=True) == safe
    assert bool(safe) == bool(text.split()) or not safe  # a text with something in it stays non-empty


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec=None), min_size=1, max_size=20))
def test_any_name_is_refused_or_every_view_still_reads(client: Any, text: str) -> None:
    room = create(client, deck=NINE)["room"]
    r = post(client, f"/api/rooms/{room}/join", {"name": text})
    assert r.status_code in (200, 422), r.text
    assert client.get(f"/api/rooms/{room}").status_code == 200
    assert client.get(f"/api/rooms/{room}/public", params={"lang": "en"}).status_code == 200


# -- what an older version stored -----------------------------------------------------------------
def test_a_bad_speech_stored_by_an_older_version_is_shown_safely(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app
    from werewolf.web.limits import Limits

    db = tmp_path / "old.sqlite"
    with TestClient(create_app(str(db), timeout=0, limits=Limits.off())) as c:
        rid, host, players = talk_room(c)
        a = players[0]
        assert post(c, f"/api/rooms/{rid}/act", {"act": "speak", "text": "PLACEHOLDER"}, a["token"]).status_code == 200
        with sqlite3.connect(db) as conn:  # what an unchecked version stored: a lone surrogate, an override
            n = conn.execute("UPDATE answers SET value = ? WHERE value = ?",
                             (json.dumps("hi \ud800 \x1b[2J\u202e there"), json.dumps("PLACEHOLDER"))).rowcount
            conn.execute("UPDATE players SET name = ? WHERE seat = 2 AND room_id = ?", ("B\x1b[2J\u202eob", rid))
        assert n == 1
    with TestClient(create_app(str(db), timeout=0, limits=Limits.off())) as c:  # a restart reads it back
        tokens = [p["token"] for p in players] + [host]
        views = readable(c, rid, tokens)
        said = [e["text"] for e in views[0]["events"] if e["type"] == "speech" and e.get("seat") == 1 and e.get("text")]
        assert said == ["hi \ufffd [2J there"]
        assert "B[2Job" in [s["name"] for s in c.get(f"/api/rooms/{rid}").json()["seats"]]
        with c.websocket_connect(f"/api/rooms/{rid}/ws?spectator=true&delta=true") as ws:
            assert ws.receive_json()["events"]
            ws.send_text('{"full": true}')
            assert ws.receive_json()["events"]
