"""Real headless Chromium (Debian's package, driven by Playwright): phones create, join and play whole games.

Screenshots of the main screens are saved under artifacts/screenshots/.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import ARTIFACTS, Server

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
SHOTS = ARTIFACTS / "screenshots"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(str(tmp_path / "browser.sqlite")).start()
    yield s
    s.stop()


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def phone(browser: Any, lang: str = "en") -> Any:
    ctx = browser.new_context(**PHONE, locale=lang)
    ctx.add_init_script(f"localStorage.setItem('ww:lang', {json.dumps(lang)})")
    page = ctx.new_page()
    page.set_default_timeout(15000)
    return page


def play_turn(page: Any, rng: random.Random, talk: bool = True) -> bool:
    """Answer whatever this phone asks, if anything: True if something was clicked.

    ``talk=False`` leaves the one-night discussion to the caller (its turn may appear at any moment).
    """
    if page.locator("#cover").count():  # face to face: the screen is covered until its holder taps
        page.click("#cover")
        return True
    if page.locator("#decide button:enabled").count() == 0:
        return False
    if page.locator("#pack-confirm").count():  # the pack's knife with other people (pack.js): pick, confirm
        if page.locator("#pack-confirm:enabled").count() == 0:
            return False  # confirmed: the pack's other people have yet to
        if page.locator("#pack button.pick.on").count():
            page.click("#pack-confirm")
        else:
            picks = page.locator("#pack button.pick:enabled")
            picks.nth(rng.randrange(picks.count())).click()
        return True
    if page.locator("#ready-to-vote:enabled").count():  # the one-night discussion
        if not talk:
            return False
        if page.locator("#send-speech:enabled").count() and rng.random() < 0.4:
            page.fill("#speech", rng.choice(["I am a simple villager.", "Seat 2 is suspicious."]))
            page.click("#send-speech")
        else:
            page.click("#ready-to-vote")
        return True
    if page.locator("#send-speech:enabled").count():
        page.fill("#speech", rng.choice(["I am a simple villager.", "Seat 2 is suspicious.", ""]))
        page.click("#send-speech")
        return True
    if page.locator("#done-speaking:enabled").count():
        page.click("#done-speaking")
        return True
    options = page.locator("#decide button.option:enabled")
    moves = [json.loads(options.nth(i).get_attribute("data-move") or "{}") for i in range(options.count())]
    calm = [i for i, m in enumerate(moves) if m.get("act") not in ("explode", "duel")]
    picks = page.locator("#decide .seat-pick:enabled")
    if picks.count() and rng.random() < 0.7:
        for i in rng.sample(range(picks.count()), min(2, picks.count())):
            page.locator("#decide .seat-pick").nth(i).click()
        confirm = page.locator("#decide .picker button.primary:enabled")
        if confirm.count():
            confirm.click()
            return True
    if calm or moves:
        i = rng.choice(calm or list(range(len(moves))))
        options.nth(i).click()
        return True
    return False


def play_to_the_end(pages: list[Any], rng: random.Random, seconds: float = 120) -> None:
    play_until(pages, rng, lambda: all(p.locator("#result").count() for p in pages), seconds,
               "the game did not end in time")


def play_until(pages: list[Any], rng: random.Random, done: Any, seconds: float, failure: str) -> None:
    """Every page plays its turns until ``done()``; AssertionError ``failure`` after ``seconds``."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if done():
            return
        moved = False
        for p in pages:
            try:
                moved = play_turn(p, rng) or moved
            except Exception:  # noqa: BLE001 - the page re-rendered under the click: try again
                moved = True
        if not moved:
            time.sleep(0.05)
    raise AssertionError(failure)


# Known flaky (2026-12-04): three phones play a whole random game against the bots (whose habits are drawn game
# by game) and it did not always end within the test's time on a busy machine; rerun twice until scripted.
@pytest.mark.flaky(reruns=2)
def test_three_phones_create_join_and_play_a_whole_game(browser: Any, server: Server) -> None:
    rng = random.Random(1)
    host = phone(browser)
    host.goto(server.url + "/")
    host.select_option("#ruleset", "classic")
    assert not host.locator("#talk-length").is_visible()  # a day-and-night game has no timed discussion
    host.select_option("#deck", "classic9")
    host.fill("#bots", "6")
    shot(host, "01-create-room")
    host.click("#create")
    host.wait_for_selector("#share img.qr")
    room_url = host.url
    assert "/r/" in room_url
    host.fill("#name", "Host Ann")
    host.click("#join")
    host.wait_for_selector("text=Host Ann")
    shot(host, "02-lobby-host-qr")

    others = []
    for name in ("Bob", "Chen"):
        p = phone(browser, "zh-Hant" if name == "Chen" else "en")
        p.goto(room_url)
        p.wait_for_selector("#name")
        p.fill("#name", name)
        if name == "Bob":
            shot(p, "03-join")
        p.click("#join")
        p.wait_for_selector("#seats .me")
        others.append(p)
    host.wait_for_selector("text=Chen")
    shot(others[0], "04-lobby-player")
    host.click("#start")
    pages = [host, *others]
    for p in pages:
        p.wait_for_selector("#role")
    host.wait_for_selector("#role.open h2")  # online the role card is shown from the start (a tap hides it all)
    shot(host, "05-role-card")
    assert re.search("[夜天]", others[1].inner_text("#phase"))  # in Chinese (all-bot nights may pass at once)

    # Find a phone that is asked something and keep its screen.
    deadline = time.time() + 20
    while time.time() < deadline and not any(p.locator("#decide button.option").count() for p in pages):
        for p in pages:
            if p.locator("#send-speech, #done-speaking").count():
                play_turn(p, rng)
        time.sleep(0.05)
    asked = next((p for p in pages if p.locator("#decide button.option").count()), host)
    shot(asked, "06-decision")
    play_to_the_end(pages, rng)
    for p in pages:
        p.wait_for_selector("#result table.roles")
        assert p.locator("table.roles tr").count() == 9
    shot(host, "07-game-over")
    host.click("#show-replay")
    host.wait_for_selector("#replay li")
    assert host.locator("#replay li").count() > 20
    host.locator("#log").scroll_into_view_if_needed()
    shot(host, "08-log")
    for p in pages:
        p.context.close()


def test_face_to_face_moderator_speaks_the_night_in_chinese(browser: Any, server: Server) -> None:
    rng = random.Random(2)
    from .test_voice_browser import face_to_face_table

    # A synthesiser that ends each line at once (headless has no voice). The room's deal is fixed (seed 1:
    # the seer and the three wolves are bots), so that a bot has something to say in almost every game. The
    # bots' own choices are seeded by the room's random id too: in about one game in sixty (measured in
    # process, the phones' moves fixed) no bot makes a statement before the end, and often no phone does.
    table = face_to_face_table(browser, server, seed=1, bots="7", lang="zh-Hant")
    room_url = table.url
    phones = []
    for name in ("甲", "乙"):
        p = phone(browser, "zh-Hant")
        p.goto(room_url)
        p.fill("#name", name)
        p.click("#join")
        p.wait_for_selector("#seats .me")
        phones.append(p)
    table.wait_for_selector("text=乙")
    table.click("#start")
    table.wait_for_selector("#moderator #voice")
    table.click("#voice")
    table.wait_for_function("() => window.__spoken.length > 0")
    shot(table, "09-moderator-face-to-face")
    play_to_the_end(phones, rng)
    table.wait_for_selector("#result")
    roles = table.evaluate("S.view.events.find((e) => e.type === 'roles').roles")
    assert roles["5"] == "seer", roles  # the seeded deal
    spoken = table.evaluate("window.__spoken")
    assert any("請睜眼" in s or "天亮" in s or "遊戲結束" in s for s in spoken), spoken
    lines = spoken + table.evaluate("Array.from(MOD.lines.values())")  # said, or still to say
    stated = table.evaluate("S.view.events.some((e) => e.type === 'speech' && e.text)")
    if stated:  # a statement (a bot's, most often) is read out too
        assert any(s.endswith("」") and "號：「" in s for s in lines), lines
    for p in phones:
        assert p.locator("#result table.roles tr").count() == 9
    shot(phones[0], "10-face-to-face-phone-result")
    for p in [table, *phones]:
        p.context.close()


def test_two_phones_talk_with_bots_until_ready_then_vote(browser: Any, server: Server) -> None:
    rng = random.Random(3)
    host = phone(browser)
    host.goto(server.url + "/")
    host.select_option("#ruleset", "onuw")
    host.select_option("#deck", "onuw5")
    host.fill("#bots", "3")
    assert host.locator("#bot-kind").input_value() == "heuristic"
    # 003's five minutes: 004's one minute can run out on a loaded test machine before both have typed.
    host.select_option("#talk-length", "300")
    host.click("#create")
    host.wait_for_selector("#share img.qr")
    host.fill("#name", "Ann")
    host.click("#join")
    host.wait_for_selector("#seats .me")
    other = phone(browser, "zh-Hans")
    other.goto(host.url)
    other.fill("#name", "Bo")
    other.click("#join")
    other.wait_for_selector("#seats .me")
    host.wait_for_selector("text=Bo")
    host.click("#start")
    pages = [host, other]
    # The night, then the discussion: a clock on every phone, a text box and "ready to vote", no vote yet.
    deadline = time.time() + 30
    while time.time() < deadline and not all(p.locator("#talk").count() for p in pages):
        for p in pages:
            if not p.locator("#talk").count():
                play_turn(p, rng, talk=False)  # the night: the test says what is said in the discussion
        time.sleep(0.05)
    for p in pages:
        p.wait_for_selector("#talk #talk-clock")
        assert p.locator("#decide button.option").count() == 0  # no vote buttons while people talk
    assert re.search(r"\b[0-5]:[0-5]\d$", host.inner_text("#talk-clock").strip())  # counting down from 5:00
    host.fill("#speech", "Seat 2 is lying.")
    host.click("#send-speech")
    # A statement is out as soon as it is sent (issue 15): on the other phone, before it has said anything
    # this round, and on the sender's, word for word: the log names players ("Seat 2 · Bo") in the judge's
    # lines, never inside what a person typed.
    other.wait_for_selector("text=Seat 2 is lying.")
    host.wait_for_selector("text=Seat 2 is lying.")
    assert "Seat 2 · Bo is lying" not in host.inner_text("#log")
    assert other.locator("#speech").count() == 1  # the other's turn of this round is still open
    other.fill("#speech", "我是村民。")
    other.click("#send-speech")  # the round is over
    host.wait_for_selector("text=我是村民。")
    shot(other, "11-one-night-discussion")
    host.wait_for_selector("#ready-to-vote:enabled")
    host.click("#ready-to-vote")
    other.wait_for_selector("#talk .ready")
    other.click("#ready-to-vote")
    for p in pages:
        p.wait_for_selector("#decide button.option")
        assert p.locator("#talk").count() == 0
    play_to_the_end(pages, rng)
    for p in pages:
        assert p.locator("#result table.roles tr[data-seat]").count() == 5
        p.context.close()


def test_a_fixed_deal_is_marked_on_every_screen(browser: Any, server: Server) -> None:
    import httpx

    fixed = httpx.post(server.url + "/api/rooms", json={"ruleset": "classic", "deck": "classic9", "seed": 7,
                                                        "bots": list(range(2, 10))}).json()
    fair = httpx.post(server.url + "/api/rooms", json={"ruleset": "classic", "deck": "classic9"}).json()
    page = phone(browser, "zh-Hant")
    page.goto(f"{server.url}/r/{fair['room']}")
    page.wait_for_selector("#join")
    assert not page.locator("#fixed").is_visible()
    page.goto(f"{server.url}/r/{fixed['room']}")  # the join screen
    page.wait_for_selector("#fixed:visible")
    assert page.locator("#fixed").inner_text() == "指定發牌"
    page.fill("#name", "Chen")
    page.click("#join")
    page.wait_for_selector("text=Chen")  # the lobby
    assert page.locator("#fixed").is_visible()
    httpx.post(f"{server.url}/api/rooms/{fixed['room']}/start", headers={"Authorization": "Bearer "
                                                                          + fixed["host_token"]})
    page.wait_for_selector("#role")  # the game
    assert page.locator("#fixed").is_visible()
    shot(page, "fixed-deal-badge")


def test_instant_nights_are_marked_on_every_screen(browser: Any, server: Server) -> None:
    # The tests' server plays nights at once (--pace 0 0): its rooms are marked; a paced room is not.
    import httpx

    instant = httpx.post(server.url + "/api/rooms", json={"ruleset": "classic", "deck": "classic9"}).json()
    paced = httpx.post(server.url + "/api/rooms", json={"ruleset": "classic", "deck": "classic9",
                                                        "pace": [4, 9]}).json()
    page = phone(browser, "en")
    page.goto(f"{server.url}/r/{paced['room']}")
    page.wait_for_selector("#join")
    assert not page.locator("#instant").is_visible()
    page.goto(f"{server.url}/r/{instant['room']}")
    page.wait_for_selector("#instant:visible")
    assert page.locator("#instant").inner_text() == "Instant nights"
    assert "timing shows who is dead" in (page.locator("#instant").get_attribute("title") or "")
    page.fill("#name", "Chen")
    page.click("#join")
    page.wait_for_selector("text=Chen")  # the lobby
    assert page.locator("#instant").is_visible()
    httpx.post(f"{server.url}/api/rooms/{instant['room']}/start", json={"fill_with_bots": True},
               headers={"Authorization": "Bearer " + instant["host_token"]})
    page.wait_for_selector("#role")  # the game
    assert page.locator("#instant").is_visible()
