"""What a table needs from the phones (issue 15), in headless Chromium: the privacy cover, "yourself",
the sheriff on the seat list, names in the log, the buzz on your turn, who is speaking, a bad link's
page, the favicon and the decision time chosen on the create page.

Screenshots of a phone (390×844) in English and 繁體中文 go to artifacts/screenshots/.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from .conftest import Server
from .test_browser import phone, server, shot  # noqa: F401  (server: a fixture)


def _room(at: Server, mode: str = "online", seed: int = 1, lang: str = "en") -> dict[str, Any]:
    """A classic 9-player room with bots in seats 2–9: the page joins seat 1."""
    room = httpx.post(at.url + "/api/rooms", json={"ruleset": "classic", "deck": "classic9", "seed": seed,
                                                        "bots": list(range(2, 10)), "mode": mode, "lang": lang})
    assert room.status_code == 201, room.text
    return dict(room.json())


def _join_and_start(page: Any, at: Server, room: dict[str, Any], name: str = "Ann") -> None:
    page.goto(f"{at.url}/r/{room['room']}")
    page.fill("#name", name)
    page.click("#join")
    page.wait_for_selector("#seats .me")
    httpx.post(f"{at.url}/api/rooms/{room['room']}/start",
               headers={"Authorization": "Bearer " + room["host_token"]}).raise_for_status()
    page.wait_for_selector("#role")


def _answer(page: Any) -> list[str]:
    """Answer this phone's decision, if it has one: a statement, or the first option naming another seat
    (else the last option). Returns the options' labels."""
    if page.locator("#send-speech:enabled").count():
        page.fill("#speech", "I trust Seat 3.")
        page.click("#send-speech")
        return []
    buttons = page.locator("#decide button.option:enabled")
    labels = [buttons.nth(i).inner_text() for i in range(buttons.count())]
    if not labels:
        return []
    moves = [json.loads(buttons.nth(i).get_attribute("data-move") or "{}") for i in range(buttons.count())]
    others = [i for i, m in enumerate(moves) if isinstance(m.get("target"), int) and m["target"] != 1]
    buttons.nth(others[0] if others else len(labels) - 1).click()
    return labels


def test_a_bad_room_link_shows_a_page_and_nothing_is_missing(browser: Any, server: Server) -> None:  # noqa: F811
    for lang, title in (("en", "No such room"), ("zh-Hant", "沒有這個房間")):
        page = phone(browser, lang)
        failed: list[tuple[int, str]] = []
        page.on("response", lambda r, failed=failed: failed.append((r.status, r.url)) if r.status >= 400 else None)
        page.goto(server.url + "/")
        page.wait_for_selector("#create")
        page.goto(server.url + "/r/nosuchroom")
        page.wait_for_selector("#no-room")
        assert page.inner_text("#no-room h1") == title
        assert page.locator("#no-room a[href='/']").count() == 1  # a way on
        # The only failure is the room's own lookup: no favicon 404, nothing else missing.
        assert [u.rsplit("/", 2)[-2:] for _, u in failed] == [["rooms", "nosuchroom"]], failed
        icon = page.get_attribute("link[rel=icon]", "href")
        got = httpx.get(server.url + icon)
        assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")
        shot(page, f"table-no-room-{lang}")
        page.context.close()


def test_a_face_to_face_phone_is_covered_until_tapped(browser: Any, server: Server) -> None:  # noqa: F811
    for lang in ("en", "zh-Hant"):
        page = phone(browser, lang)
        _join_and_start(page, server, _room(server, "face_to_face", lang=lang))
        page.wait_for_selector("#cover")
        # Covered: no role, nothing to do, no log, whatever the seat holds or is asked.
        assert page.locator("#role.closed").count() == 1
        assert page.locator("#decide, #log, #awake").count() == 0
        shot(page, f"table-covered-{lang}")
        page.click("#cover")
        page.wait_for_selector("#log")
        assert page.locator("#role.open h2").count() == 1 and page.locator("#cover").count() == 0
        shot(page, f"table-uncovered-{lang}")
        page.click("#role")  # one tap hides it all again
        page.wait_for_selector("#cover")
        assert page.locator("#log, #decide").count() == 0
        page.context.close()
    page = phone(browser)  # online, the player is alone with the phone: actions and log are shown
    _join_and_start(page, server, _room(server, "online"))
    page.wait_for_selector("#log")
    assert page.locator("#cover").count() == 0
    page.context.close()


# Known flaky (2026-12-04): it plays a whole game through the browser against heuristic bots, whose habits
# are now drawn game by game (werewolf.agents.heuristic.Policy), and its path depends on when the
# person's taps land against the bots' answers; about one run in four fails on a busy machine. Rerun
# twice until its game is scripted (the closing note of 2026-12-04 says so).
@pytest.mark.flaky(reruns=2)
def test_the_seat_list_the_log_and_the_options_name_players(browser: Any, server: Server) -> None:  # noqa: F811
    for lang, yourself, named in (("en", "Seat 1 (yourself)", "Seat 1 · Ann"), ("zh-Hant", "1號（自己）", "1號 · Ann")):
        page = phone(browser, lang)
        _join_and_start(page, server, _room(server, "online", lang=lang))
        seen: list[str] = []
        deadline = time.time() + 60
        while time.time() < deadline and yourself not in seen and not page.locator("#result").count():
            try:
                seen += _answer(page)
            except Exception:  # noqa: BLE001 - the page re-rendered under the click: try again
                pass
            time.sleep(0.1)
        # The exile vote offers one's own seat as "yourself", without the name again.
        assert yourself in seen, seen
        assert not any(s.startswith(yourself) and "Ann" in s for s in seen)
        # Each decision buzzed (once per new ask), the toggle being on by default.
        assert page.evaluate("window.__buzzes") >= 2
        # The sheriff (seed 1: elected on day 1) is marked on the seat list.
        page.wait_for_selector("#seats li.sheriff")
        sheriff = page.evaluate("sheriffSeat(S.view.events)")
        assert isinstance(sheriff, int)
        assert page.inner_text("#seats li.sheriff b") == str(sheriff)
        assert page.locator("#seats li.sheriff .badge-mark").count() == 1
        # The log names the players who have a name: Ann's own ballot, "Seat 1 · Ann → …".
        # (Polled from here: the page's CSP forbids the eval a page-side wait_for_function polls with.)
        end = time.time() + 15
        while named not in page.inner_text("#log"):
            assert time.time() < end, f"the log never named {named!r}"
            time.sleep(0.05)
        shot(page, f"table-named-log-{lang}")
        page.locator("#seats").scroll_into_view_if_needed()
        shot(page, f"table-seats-sheriff-{lang}")
        page.context.close()


def test_the_buzz_toggle_is_remembered(browser: Any, server: Server) -> None:  # noqa: F811
    page = phone(browser)
    _join_and_start(page, server, _room(server, "online"))
    assert page.get_attribute("#buzz", "aria-pressed") == "true"
    page.click("#buzz")
    assert page.evaluate("localStorage.getItem('ww:buzz')") == "off"
    assert page.get_attribute("#buzz", "aria-pressed") == "false"
    page.reload()
    page.wait_for_selector("#role")
    assert page.get_attribute("#buzz", "aria-pressed") == "false"
    assert "off" in (page.get_attribute("#buzz", "title") or "")
    # Off: new decisions come and go without a beep or a vibration.
    deadline = time.time() + 20
    asked = 0
    while time.time() < deadline and asked < 3:
        asked += bool(_answer(page))
        time.sleep(0.1)
    assert asked >= 2 and page.evaluate("window.__buzzes") == 0
    page.context.close()


def test_a_face_to_face_night_buzzes_without_a_sound(browser: Any, server: Server) -> None:  # noqa: F811
    page = phone(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    ask = "(v) => { buzzOnMyTurn(v); return [window.__buzzes, window.__beeps]; }"
    night = {"seat": 4, "phase": "night1", "room": {"mode": "face_to_face"}, "text": {"decisions": [{"act": "kill"}]}}
    assert page.evaluate(ask, night) == [1, 0]  # vibration only: a beep would show whose role was called
    assert page.evaluate(ask, night) == [1, 0]  # the same ask buzzes once
    day = {**night, "phase": "day1", "text": {"decisions": [{"act": "vote"}]}}
    assert page.evaluate(ask, day) == [2, 1]
    online = {**night, "phase": "night2", "room": {"mode": "online"}}
    assert page.evaluate(ask, online) == [3, 2]
    interrupt = {**day, "phase": "day2", "text": {"decisions": [{"act": "explode", "interrupt": True}]}}
    assert page.evaluate(ask, interrupt) == [3, 2]  # an offer that stands all day is no turn
    page.context.close()


def test_who_speaks_and_a_lone_choice_are_told(browser: Any, server: Server) -> None:  # noqa: F811
    for lang, want, order in (("en", "Seat 3 · Chen", "alternate"), ("zh-Hant", "3號 · Chen", "相反")):
        page = phone(browser, lang)
        page.goto(server.url + "/")
        page.wait_for_selector("#create")
        room = {"seats": [{"seat": 3, "name": "Chen"}, {"seat": 5, "name": None, "bot": True}]}
        card = page.evaluate("(room) => speakingCard({ seat: 1, speaking: [3], room }).textContent", room)
        assert want in card
        assert page.evaluate("(room) => speakingCard({ seat: 3, speaking: [3], room })", room) is None  # my own turn
        # The one-night discussion: everyone may talk at once, nobody "has the floor".
        talk = "(room) => speakingCard({ seat: 1, speaking: [1, 3], discussion: {}, room })"
        assert page.evaluate(talk, room) is None
        # Names go into the log's lines, only where a seat has a name, never inside a longer number.
        line = page.evaluate("(room) => withNames(UI[LANG].seat_fmt.replace('{n}', '3') + ' / ' + "
                             "UI[LANG].seat_fmt.replace('{n}', '13') + ' / ' + UI[LANG].seat_fmt.replace('{n}', '5'),"
                             " room)", room)
        bare = [want.replace("3", n).split(" · ")[0] for n in ("13", "5")]
        assert line.split(" / ") == [want, *bare]
        note = page.evaluate("onlyChoice({ act: 'order', interrupt: false, options: [{}] }).textContent")
        assert order in note
        assert page.evaluate("onlyChoice({ act: 'order', interrupt: false, options: [{}, {}] })") is None
        page.context.close()


def test_the_host_sets_the_decision_time(browser: Any, server: Server) -> None:  # noqa: F811
    for lang in ("en", "zh-Hant"):
        page = phone(browser, lang)
        page.goto(server.url + "/")
        page.select_option("#ruleset", "classic")
        assert page.input_value("#timeout") == "180"  # online day-and-night: time for a speech
        page.select_option("#mode", "face_to_face")
        assert page.input_value("#timeout") == "300"
        page.select_option("#ruleset", "onuw")
        assert page.input_value("#timeout") == "120"
        page.select_option("#mode", "online")
        assert page.input_value("#timeout") == "60"
        recommended = page.locator("#timeout option:checked").inner_text()
        assert ("recommended" if lang == "en" else "建議") in recommended
        shot(page, f"table-create-{lang}")
        page.select_option("#ruleset", "classic")
        page.select_option("#timeout", "90")  # the host's choice stays when the rules change
        page.select_option("#deck", "classic9")
        assert page.input_value("#timeout") == "90"
        page.click("#create")
        page.wait_for_selector("#share img.qr")
        room = page.url.rsplit("/", 1)[1]
        assert httpx.get(f"{server.url}/api/rooms/{room}").json()["timeout"] == 90
        page.context.close()
