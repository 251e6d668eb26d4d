"""Small holes of issue 25 (item 8): names that look blank, copy a seat label or look like another
name; emoji sequences in names; a seat that is not an integer on /act; redirects that copied Host."""

from __future__ import annotations

from typing import Any

import pytest

from .test_api import NINE, create, error, join, started, view
from .test_edge import stored
from .test_junk_text import post


@pytest.mark.parametrize("name, word", [
    ("\u3164", "U+3164"), ("\uffa0", "U+FFA0"), ("\u115f\u1160", "U+115F"), ("\u2800", "U+2800"),
    ("\u2800\u2800 \u3164", "U+2800"), ("Ann\u3164", "U+3164"), ("\u0301", "letter"), ("A\u034fnn", "U+034F"),
])
def test_a_name_that_looks_blank_or_hides_a_character_is_refused(client: Any, tmp_path: Any, name: str,
                                                                   word: str) -> None:
    room = create(client, deck=NINE)["room"]
    error(client.post(f"/api/rooms/{room}/join", json={"name": name}), 422, "name", word)
    assert stored(tmp_path / "test.sqlite")[1] == 0


@pytest.mark.parametrize("name", [
    "Seat 3 · Chen", "Seat 3", "seat3", "SEAT 12", "Ѕеаt З", "Seat ３", "3號", "3号 陳", "Chen · Lee", "Chen • Lee",
    "Chen ∙ Lee",
])
def test_a_name_that_passes_for_a_seat_label_is_refused(client: Any, name: str) -> None:
    room = create(client, deck=NINE)["room"]
    error(client.post(f"/api/rooms/{room}/join", json={"name": name}), 422, "seat label")


@pytest.mark.parametrize("first, twin", [
    ("Ann", "\u0410nn"), ("Ann", "ＡＮＮ"), ("Ann", "aNN"), ("Ian", "lan"), ("Tom", "Torn"), ("Chen", "Сhеn"),
    ("paypal", "𝔭𝒶ỿ𝕡𝕒ℓ"),
])
def test_names_that_look_alike_are_one_name_in_a_room(client: Any, first: str, twin: str) -> None:
    room = create(client, deck=NINE)["room"]
    join(client, room, first)
    error(client.post(f"/api/rooms/{room}/join", json={"name": twin}), 409, "taken")


@pytest.mark.parametrize("name", [
    "👨\u200d👩\u200d👧 family", "👩\u200d❤\ufe0f\u200d👨", "🏳\ufe0f\u200d🌈",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "👍🏽",
    "क्\u200dष", "می\u200cخواهم", "陳大文 🐺", "Seattle 3", "Zoë",
])
def test_emoji_sequences_and_joined_scripts_are_names(client: Any, name: str) -> None:
    room = create(client, deck=NINE)["room"]
    join(client, room, name)
    assert [s["name"] for s in client.get(f"/api/rooms/{room}").json()["seats"] if s["name"]] == [name]


@pytest.mark.parametrize("seat", [1.0, True, "1", [1]])
def test_a_move_s_seat_is_an_integer(client: Any, tmp_path: Any, seat: Any) -> None:
    rid, _, players = started(client, humans=9, seed=5)
    asked = next(p for p in players if view(client, rid, p["token"])["pending"])
    move = dict(view(client, rid, asked["token"])["pending"][0], seat=seat)  # (1.0 == True == 1 in Python)
    before = stored(tmp_path / "test.sqlite")
    error(post(client, f"/api/rooms/{rid}/act", move, asked["token"]), 422, "seat")
    error(post(client, f"/api/rooms/{rid}/intent", move, asked["token"]), 422, "seat")
    assert stored(tmp_path / "test.sqlite") == before
    assert client.post(f"/api/rooms/{rid}/act", json=dict(move, seat=asked["seat"]),
                       headers={"Authorization": f"Bearer {asked['token']}"}).status_code == 200


@pytest.mark.parametrize("path, where", [("/static", "/static/"), ("/api/decks/", "/api/decks"),
                                         ("/r/abc/", "/r/abc")])
def test_a_redirect_never_names_the_host_the_client_sent(client: Any, path: str, where: str) -> None:
    for host in ("evil.example", "evil.example:8080", "127.0.0.1"):
        r = client.get(path, headers={"Host": host}, follow_redirects=False)
        assert r.status_code in (301, 307, 308), r.status_code
        assert r.headers["location"] == where, r.headers["location"]


def test_own_location_keeps_the_path_and_drops_any_host() -> None:
    from werewolf.web.headers import own_location

    assert own_location(b"http://evil.example/static/?a=1") == b"/static/?a=1"
    assert own_location(b"//evil.example/x") == b"/x"
    assert own_location(b"https://h///evil.example/") == b"/evil.example/"
