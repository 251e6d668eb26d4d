"""Issue 25, item 4: a room whose night steps are shorter than anyone answers ("pace": [0, 0] from the
API) shows who is dead by the nights' timing; it is marked "instant nights" on every screen, as a fixed
deal is, never silently."""

from __future__ import annotations

from typing import Any

import pytest

from werewolf.web.pacing import MIN_HIDING, Pace

from .conftest import auth
from .test_api import NINE, create, join, view


@pytest.mark.parametrize("pace, instant", [
    ([0, 0], True), ([0, 9], True), ([1.9, 9], True), ([MIN_HIDING, MIN_HIDING], False), ([4, 9], False),
    (None, True),  # the tests' server default is [0, 0] (conftest); a real server's is 4 to 9 s
])
def test_every_view_of_the_room_says_whether_its_nights_are_instant(client: Any, pace: Any, instant: bool) -> None:
    body: dict[str, Any] = {"deck": NINE, "bots": list(range(2, 10))}
    if pace is not None:
        body["pace"] = pace
    room = create(client, **body)
    rid = room["room"]
    token = join(client, rid, "Ann")["token"]
    assert client.get(f"/api/rooms/{rid}").json()["instant_nights"] is instant  # the join screen
    assert client.post(f"/api/rooms/{rid}/start", headers=auth(room["host_token"])).status_code == 200
    assert client.get(f"/api/rooms/{rid}/public").json()["room"]["instant_nights"] is instant  # spectators
    assert view(client, rid, token)["room"]["instant_nights"] is instant  # the player
    assert view(client, rid, room["host_token"])["room"]["instant_nights"] is instant  # the moderator screen


def test_the_default_pace_hides_the_timing() -> None:
    from werewolf.web import pacing

    assert not Pace(4.0, 9.0).instant and Pace(0.0, 0.0).instant
    assert pacing.MIN_HIDING <= 4.0  # the server's default (--pace 4 9) is not marked


def test_the_page_shows_the_mark() -> None:
    from werewolf.web.app import STATIC

    assert 'id="instant"' in (STATIC / "index.html").read_text()
    script = (STATIC / "app.js").read_text()
    assert "room.instant_nights" in script
    words = (STATIC / "ui.js").read_text()
    assert words.count("instant_nights:") == 3 and words.count("instant_nights_hint:") == 3
