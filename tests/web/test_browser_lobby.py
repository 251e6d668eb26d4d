"""Headless Chromium (issue 15): players choose their seats and the host moves them; play again with the same
seats, the phones following to the new game; the speaker's timer on every phone."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx
import pytest

from .conftest import Server
from .test_browser import phone, play_to_the_end, play_turn, server, shot

__all__ = ["server"]  # the fixture, imported for this module's tests


def evaluated(page: Any, expression: str) -> Any:
    """``expression`` on the page, or None while the page is between two documents (it navigates)."""
    try:
        return page.evaluate(expression)
    except Exception as err:  # noqa: BLE001 - playwright's Error: the old document is gone, the new not yet there
        if "context was destroyed" in str(err) or "navigat" in str(err):
            return None
        raise


def seats_of(server: Server, room: str) -> dict[int, str | None]:
    info = httpx.get(f"{server.url}/api/rooms/{room}").json()
    return {s["seat"]: s["name"] or ("bot" if s["bot"] else None) for s in info["seats"]}


def create(host: Any, server: Server, bots: int) -> str:
    host.goto(server.url + "/")
    host.select_option("#ruleset", "classic")
    host.select_option("#deck", "classic9")
    host.fill("#bots", str(bots))
    assert host.locator("#speech-time").input_value() == "120"  # the ruleset's default speech time
    host.click("#create")
    host.wait_for_selector("#share img.qr")
    return str(host.url.rsplit("/", 1)[1])


def joined(browser: Any, url: str, name: str) -> Any:
    p = phone(browser)
    p.goto(url)
    p.wait_for_selector("#name")
    p.fill("#name", name)
    p.click("#join")
    p.wait_for_selector("#seats li.me")
    return p


def test_players_tap_their_seats_and_the_host_moves_and_removes(browser: Any, server: Server) -> None:
    host = phone(browser)
    room = create(host, server, bots=3)  # bots in seats 7 to 9
    ann = joined(browser, host.url, "Ann")
    bob = joined(browser, host.url, "Bob")
    assert seats_of(server, room)[1] == "Ann" and seats_of(server, room)[2] == "Bob"
    # Ann sits in seat 5 of the table: she taps it.
    ann.click("#sit-5")
    ann.wait_for_selector('#seats li.me[data-seat="5"]')
    bob.wait_for_selector('#seats li[data-seat="5"] >> text=Ann')
    assert not bob.locator("#sit-2").count()  # no button on a taken seat
    shot(ann, "lobby-01-seat-chosen")
    # The host moves Bob to seat 4, then swaps Ann (5) and Bob (4), moves a bot and removes another.
    host.wait_for_selector("#move-2")
    host.select_option("#move-2", "4")
    bob.wait_for_selector('#seats li.me[data-seat="4"]')
    host.wait_for_selector("#move-5")
    host.select_option("#move-5", "4")
    ann.wait_for_selector('#seats li.me[data-seat="4"]')
    bob.wait_for_selector('#seats li.me[data-seat="5"]')
    host.wait_for_selector("#move-9")
    host.select_option("#move-9", "1")
    host.wait_for_selector("#remove-8")
    host.click("#remove-8")
    host.wait_for_selector('#seats li.free[data-seat="8"]')
    shot(host, "lobby-02-host-moved")
    assert seats_of(server, room) == {1: "bot", 2: None, 3: None, 4: "Ann", 5: "Bob", 6: None, 7: "bot", 8: None,
                                      9: None}
    # A bad move is refused with its reason, and nothing changes.
    bob.evaluate("api('POST', `/api/rooms/${S.room}/seat`, {to: 4}, S.player).catch((e) => toast(e.message))")
    bob.wait_for_selector("#toast:has-text('seat 4 is taken')")
    assert seats_of(server, room)[4] == "Ann"
    host.click("#start")
    for p, seat in ((ann, 4), (bob, 5)):
        p.wait_for_selector("#role")
        assert p.evaluate("S.view.seat") == seat
    for p in (host, ann, bob):
        p.context.close()


def test_a_removed_player_is_told_why_and_may_join_again(browser: Any, server: Server) -> None:
    host = phone(browser)
    create(host, server, bots=0)
    ann = joined(browser, host.url, "Ann")
    host.wait_for_selector("#remove-1")
    host.click("#remove-1")
    ann.wait_for_selector("#toast:has-text('removed Ann')")
    ann.wait_for_selector("#join")  # the join page again, with a new token to come
    ann.fill("#name", "Ann")
    ann.click("#join")
    ann.wait_for_selector("#seats li.me")
    for p in (host, ann):
        p.context.close()


# Known flaky (2026-12-04): it plays a whole game through the browser against heuristic bots, whose habits
# are now drawn game by game (werewolf.agents.heuristic.Policy), and its path depends on when the
# person's taps land against the bots' answers; about one run in four fails on a busy machine. Rerun
# twice until its game is scripted (the closing note of 2026-12-04 says so).
@pytest.mark.flaky(reruns=2)
def test_play_again_keeps_the_seats_and_the_phones_follow(browser: Any, server: Server) -> None:
    rng = random.Random(4)
    host = phone(browser)
    room = create(host, server, bots=6)  # bots in seats 4 to 9; seat 1 gets one at the start
    host.fill("#name", "Host Ann")
    host.click("#join")
    host.wait_for_selector("#seats li.me")
    bob = joined(browser, host.url, "Bob")
    host.click("#sit-3")  # the host's phone holds a seat too: it moves to seat 3
    host.wait_for_selector('#seats li.me[data-seat="3"]')
    host.click("#start")
    pages = [host, bob]
    seats = {}
    for p in pages:
        p.wait_for_selector("#role")
        seats[id(p)] = p.evaluate("S.view.seat")
    assert sorted(seats.values()) == [2, 3]
    # While a person speaks, every phone shows the speaker's time, the same deadline everywhere.
    deadline = time.time() + 60
    shown = False
    while time.time() < deadline and not shown and not all(p.locator("#result").count() for p in pages):
        for p in pages:
            if p.locator("#speech-timer").count() and p.evaluate("S.view.speaker_deadline"):
                others = [q for q in pages if q is not p]
                for q in others:
                    q.wait_for_selector("#speech-timer")
                ends = {q.evaluate("S.view.speaker_deadline") for q in pages}
                assert len(ends) == 1 and ends.pop() > time.time()
                shot(p, "lobby-03-speech-timer")
                shown = True
                break
        if not shown:
            for p in pages:
                try:
                    play_turn(p, rng)
                except Exception:  # noqa: BLE001 - the page re-rendered under the click: try again
                    pass
            time.sleep(0.05)
    assert shown, "no person spoke in the whole game"
    play_to_the_end(pages, rng)
    host.wait_for_selector("#play-again")
    assert host.locator("#again-lobby").count() == 1  # the lobby first (change seats) is offered too
    assert not bob.locator("#play-again, #again-lobby").count()  # the host's alone
    shot(host, "lobby-04-play-again")
    host.click("#play-again")
    for p in pages:
        # (Polled from here: the page's CSP forbids the eval a page-side wait_for_function polls with.)
        # (The new document's scripts may not have run yet: no ``S`` at all for a moment.)
        followed = (f"location.pathname !== '/r/{room}' && typeof S !== 'undefined' && !!S.view "
                    f"&& S.view.room.prev === '{room}'")
        end = time.time() + 15
        while not evaluated(p, followed):
            assert time.time() < end, "the phone did not follow to the next game"
            time.sleep(0.05)
        p.wait_for_selector("#role")
        assert p.evaluate("S.view.seat") == seats[id(p)]  # the same seat, no joining again
        assert p.evaluate("S.view.room.game") == 2
    new = host.evaluate("S.room")
    assert seats_of(server, new) == seats_of(server, room)
    games = httpx.get(f"{server.url}/api/rooms/{new}/games").json()["games"]
    assert [(g["room"], g["game"], g["replay"]) for g in games] == [(room, 1, f"/replay/{room}"), (new, 2, None)]
    play_to_the_end(pages, rng)
    host.wait_for_selector("#games li a")  # the room's games, the first replayable
    shot(host, "lobby-05-games")
    host.click(f"#games a[href^='/replay/{room}']")
    host.wait_for_url(f"**/replay/{room}*")
    for p in pages:
        p.context.close()
