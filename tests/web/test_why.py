"""The phones' "Why?": /api/rules/{rule} explains the rule of an event already in a player's view,
and tells that player nothing the view did not already hold."""

from __future__ import annotations

from typing import Any

from werewolf.i18n import LANGS
from werewolf.i18n.rules import explain, rule_catalogue

from .conftest import auth
from .test_api import create, error, join, view

GUARDED = ["werewolf", "werewolf", "werewolf", "seer", "witch", "guard", "villager", "villager", "villager"]
HIDDEN = ("guard_protects", "antidote_saves", "same_guard_save_lives", "same_guard_save_dies", "dream_immune",
          "elder_first_life")


def pick(pending: list[dict[str, Any]], act_targets: dict[str, int]) -> dict[str, Any]:
    """The move aimed at ``act_targets[act]``, else one that does nothing (no target), else the last."""
    for m in pending:
        if m["act"] in act_targets and m.get("target") == act_targets[m["act"]]:
            return m
    for m in pending:
        if m.get("target", 0) is None or m.get("targets") == [] or m.get("value") is False:
            return m
    return pending[-1]


def guarded_night(client: Any) -> tuple[str, list[dict[str, Any]], dict[int, str], int]:
    """Nine people; night 1: the guard protects a villager whom the pack kills, nobody else acts;
    then on to the dawn announcement."""
    room = create(client, deck=GUARDED, seed=7)
    rid = room["room"]
    players = [join(client, rid, f"P{i}") for i in range(1, 10)]
    client.post(f"/api/rooms/{rid}/start", headers=auth(room["host_token"]))
    roles = {p["seat"]: view(client, rid, p["token"])["role"] for p in players}
    victim = next(s for s, r in roles.items() if r == "villager")
    for _ in range(60):
        moved = False
        for p in players:
            v = view(client, rid, p["token"])
            if any(e["type"] == "announce" for e in v["events"]):
                return rid, players, roles, victim
            if not v["pending"]:
                continue
            move = pick(v["pending"], {"guard": victim, "kill": victim})
            r = client.post(f"/api/rooms/{rid}/act", json=move, headers=auth(p["token"]))
            assert r.status_code == 200, r.text
            moved = True
        assert moved, "nobody is asked anything before the dawn"
    raise AssertionError("no dawn announcement")


def test_why_tells_a_villager_nothing_new_about_a_guarded_night(client: Any) -> None:
    rid, players, roles, victim = guarded_night(client)
    for p in players:
        v = view(client, rid, p["token"])
        announce = next(e for e in v["events"] if e["type"] == "announce")
        assert announce["seats"] == [] and announce["rule"] == "peaceful_night"
        if roles[p["seat"]] == "werewolf":  # the pack did choose the guarded villager
            assert next(e for e in v["events"] if e["type"] == "pack_choice")["target"] == victim
        ids = {e["rule"] for e in v["events"] if "rule" in e}
        # Whatever a phone can ask "why?" about is the rule of an event in its own view; the night's
        # real reason is in nobody's view (the guard knows whom he guarded, not that it mattered).
        assert not ids & set(HIDDEN), (roles[p["seat"]], ids)
        for rule in ids:
            for lang in LANGS:
                r = client.get(f"/api/rules/{rule}", params={"lang": lang})
                assert r.status_code == 200
                # A function of the rule and the language only: the book's text, not the game's.
                assert r.json() == explain(rule, lang)
                assert str(victim) not in r.json()["text"] or str(victim) in rule_catalogue()[rule]["text"][lang]
    # "Nobody died" has several possible reasons, and says so without choosing one.
    text = client.get("/api/rules/peaceful_night", params={"lang": "en"}).json()["text"]
    assert "several possible reasons" in text and "does not say which" in text


def test_why_answers_the_same_whatever_the_night(client: Any) -> None:
    # The explanation of a peaceful night is the same for a guarded night and for any other.
    first = client.get("/api/rules/peaceful_night", params={"lang": "zh-Hant"}).json()
    guarded_night(client)
    assert client.get("/api/rules/peaceful_night", params={"lang": "zh-Hant"}).json() == first
    assert first["quote"] == rule_catalogue()["peaceful_night"]["quote"] and first["book"] == "000"


def test_why_refuses_what_is_not_a_rule(client: Any) -> None:
    error(client.get("/api/rules/no_such_rule"), 404, "no rule")
    error(client.get("/api/rules/" + "x" * 100), 404, "no rule")
    assert client.get("/api/rules/wolves_kill", params={"lang": "xx"}).json() == explain("wolves_kill", "en")


def test_why_reads_the_sentence_of_the_table(client: Any) -> None:
    """With the table's ruleset and the options its game_start announced, "Why?" gives the sentence that fits
    that table: two votes for a WeChat sheriff, 1.5 in the boxed edition, the table's own weight otherwise."""
    from werewolf.rulesets.options import in_force

    def why(rule: str, **params: Any) -> dict[str, Any]:
        r = client.get(f"/api/rules/{rule}", params={"lang": "en", **params})
        assert r.status_code == 200, r.text
        return dict(r.json())

    assert "1.5" in why("sheriff_vote_weight", ruleset="classic")["text"]
    wechat = why("sheriff_vote_weight", ruleset="wechat")
    assert "2" in wechat["text"] and "1.5" not in wechat["text"] and wechat["book"] == "002"
    custom = why("sheriff_vote_weight", ruleset="classic", options='{"sheriff_vote_weight": 3}')
    assert "3 votes" in custom["text"] and custom["book"] == "RULES.md" and custom["proposal"]
    assert custom == explain("sheriff_vote_weight", "en", "classic", in_force("classic", {"sheriff_vote_weight": 3}))
    assert "candidates too" in why("sheriff_election_vote", ruleset="wechat")["text"]
    zh = client.get("/api/rules/same_guard_save_lives",
                    params={"lang": "zh-Hant", "ruleset": "classic", "options": '{"same_guard_save_dies": false}'})
    assert "本局選項" in zh.json()["proposal"]
    error(client.get("/api/rules/wolves_kill", params={"ruleset": "nope"}), 422, "unknown ruleset")
    error(client.get("/api/rules/wolves_kill", params={"ruleset": "classic", "options": "[1]"}), 422, "options")
    error(client.get("/api/rules/wolves_kill", params={"ruleset": "classic", "options": '{"no_such": 1}'}),
          422, "unknown option")


def test_a_view_explains_a_rule_as_its_table_plays_it() -> None:
    """The words of a view (the result's and the pack's "why") choose the rule's explanation by the room's
    ruleset and options, as the replay and the phones' "Why?" do: a table whose sheriff counts 2 is not
    shown the 1.5 sentence."""
    from types import SimpleNamespace

    from werewolf.core.game import Setup
    from werewolf.rulesets.options import in_force
    from werewolf.web.text import table_why

    setup = Setup("facetoface", players=12, seed=1, options={"sheriff_vote_weight": 2})
    room: Any = SimpleNamespace(setup=setup)
    shown = table_why(room, "sheriff_vote_weight", "en")
    played = in_force("facetoface", {"sheriff_vote_weight": 2})
    assert shown == explain("sheriff_vote_weight", "en", "facetoface", played)
    assert shown["text"] != explain("sheriff_vote_weight", "en")["text"]
    assert "2" in shown["text"]
