"""What the table hears in a live room (issue 15): a typed statement of the one-night discussion reaches
every phone when it is sent, a passed turn is logged as a pass, and bots speak the room's language."""

from __future__ import annotations

import re
import time
from typing import Any

from .conftest import auth
from .test_api import NINE, create, join, play_out, view
from .test_discussion import talk_room


def public(client: Any, rid: str, lang: str | None = None) -> dict[str, Any]:
    params = {"lang": lang} if lang else {}
    return dict(client.get(f"/api/rooms/{rid}/public", params=params).json())


def said(v: dict[str, Any]) -> list[tuple[int, str]]:
    return [(e["seat"], e["text"]) for e in v["events"] if e["type"] == "speech" and e.get("text")]


# -- the one-night discussion: a statement is out when it is sent --------------------------------------------------
def test_a_statement_reaches_every_phone_as_soon_as_it_is_sent(client: Any) -> None:
    rid, host, players = talk_room(client)
    a, b = players
    before = {"a": view(client, rid, a["token"]), "b": view(client, rid, b["token"]),
              "public": public(client, rid), "host": view(client, rid, host)}
    assert [m["act"] for m in before["b"]["pending"]] == ["speak"]  # b has not said a word this round
    r = client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": "I am the seer"}, headers=auth(a["token"]))
    assert r.status_code == 200, r.text
    after = {"a": view(client, rid, a["token"]), "b": view(client, rid, b["token"]),
             "public": public(client, rid), "host": view(client, rid, host)}
    for who in after:  # the sender, the other phone, the spectators, the moderator's device: at once
        assert (1, "I am the seer") in said(after[who]), who
        # Nothing else came with it: the statement is the one new event every view gained.
        new = after[who]["events"][len(before[who]["events"]):]
        assert [e["type"] for e in new] == ["speech"], (who, new)
    # b's turn is still open; a may speak again at once, without waiting for b (issue 26); nobody became ready.
    assert [m["act"] for m in after["b"]["pending"]] == ["speak"]
    assert [m["act"] for m in after["a"]["pending"]] == ["speak"]
    assert after["b"]["discussion"]["ready"] == before["b"]["discussion"]["ready"]
    client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": "and I checked seat 3"},
                headers=auth(a["token"]))
    client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": "so am I"}, headers=auth(b["token"]))
    # (The bots, seats 3 to 5, may say something in between: the server's worker answers for them.)
    assert [s for s in said(public(client, rid)) if s[0] in (1, 2)][-3:] == [
        (1, "I am the seer"), (1, "and I checked seat 3"), (2, "so am I")]
    assert [m["act"] for m in view(client, rid, a["token"])["pending"]] == ["speak"]
    # "Ready to vote" is still an empty turn, and a pass counts as ready too.
    client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "pass": True}, headers=auth(a["token"]))
    client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": None}, headers=auth(b["token"]))
    deadline = time.monotonic() + 10  # (the bots' last turns, as above)
    while (v := view(client, rid, a["token"]))["discussion"] is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert v["discussion"] is None and v["pending"][0]["act"] == "vote"


def test_the_discussion_reveals_no_card_while_it_goes(client: Any) -> None:
    # The statements come out one by one now: what the spectators see is still the public events only.
    rid, host, players = talk_room(client)
    for p in players:
        client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": f"hello from {p['seat']}"},
                    headers=auth(p["token"]))
        events = public(client, rid)["events"]
        assert all("to" not in e for e in events)
        assert not [e for e in events if e["type"] in ("role", "check", "peek", "rob", "swap", "wolves", "dawn")]


# -- a pass is no speech ------------------------------------------------------------------------------------------
def test_a_passed_turn_is_logged_and_narrated_as_a_pass(client: Any) -> None:
    room = create(client, deck=NINE, seed=8, lang="en")
    rid = room["room"]
    players = [join(client, rid, f"P{i}") for i in range(1, 10)]
    client.post(f"/api/rooms/{rid}/start", headers=auth(room["host_token"]))
    passed = None
    for _ in range(400):
        for p in players:
            v = view(client, rid, p["token"])
            if not v["pending"]:
                continue
            d = v["decisions"][-1]
            if d["act"] == "speak" and passed is None and d["why"].endswith("(discussion)"):
                r = client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "pass": True}, headers=auth(p["token"]))
                assert r.status_code == 200, r.text
                passed = p["seat"]
            else:
                client.post(f"/api/rooms/{rid}/act", json=v["pending"][-1], headers=auth(p["token"]))
        if passed is not None:
            break
    assert passed is not None
    pub = public(client, rid, "en")
    turns = [(i, e) for i, e in enumerate(pub["events"]) if e["type"] == "speech" and e["seat"] == passed
             and e["part"] == "discussion"]
    assert [e.get("passed") for _, e in turns] == [True]
    assert pub["text"]["events"][turns[0][0]] == f"Seat {passed} passed."
    mine = view(client, rid, players[passed - 1]["token"], lang="zh-Hant")
    i = next(i for i, e in enumerate(mine["events"]) if e["type"] == "speech" and e.get("passed"))
    assert mine["text"]["events"][i] == "你過了（放棄發言）。"
    other = players[passed % 9]
    v = view(client, rid, other["token"], lang="zh-Hans")
    i = next(i for i, e in enumerate(v["events"]) if e["type"] == "speech" and e.get("passed"))
    assert v["text"]["events"][i] == f"{passed}号过（放弃发言）。"


# -- bots speak the room's language ---------------------------------------------------------------------------------
CJK = re.compile(r"[\u4e00-\u9fff]")


def bot_texts(client: Any, lang: str, seed: int) -> list[str]:
    room = create(client, deck=NINE, bots=list(range(2, 10)), seed=seed, lang=lang)
    p = join(client, room["room"], "Ann")
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    play_out(client, room["room"], [p])
    return [e["text"] for e in public(client, room["room"])["events"]
            if e["type"] in ("speech", "last_words_text") and e["seat"] != 1 and e.get("text")]


def test_bots_speak_the_rooms_language(client: Any) -> None:
    for seed in (6, 7):
        english = bot_texts(client, "en", seed)
        assert english and not any(CJK.search(s) for s in english)
        for lang, word in (("zh-Hant", "號"), ("zh-Hans", "号")):
            texts = bot_texts(client, lang, seed)
            assert texts and all(CJK.search(s) and not re.search(r"Seat|I am|wolf", s) for s in texts), texts
            assert any(word in s for s in texts), texts
