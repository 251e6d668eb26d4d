"""The live table as friends play it (issue 26), in headless Chromium: the cover comes back by itself and
covers online too, an answer's result stays on the card, an interrupt is armed by a second tap and taken
back in plain sight, the end waits for the voice, the one-night discussion lets people speak freely and
the one-night result shows the final table.

Screenshots of a phone (390×844) in English and Chinese go to artifacts/screenshots/live-*.png.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Server
from .test_browser import phone, play_until, shot
from .test_voice_browser import STUB


@pytest.fixture
def paced(tmp_path: Path) -> Iterator[Server]:
    """A server whose night steps last 2 s each (a step answered at once still lasts them)."""
    s = Server(str(tmp_path / "live.sqlite"), pace=(2.0, 2.0)).start()
    yield s
    s.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(str(tmp_path / "browser.sqlite")).start()
    yield s
    s.stop()


def until(what: Callable[[], Any], timeout: float = 30.0, why: str = "") -> Any:
    """Poll ``what`` until it is truthy (never a fixed sleep); its value."""
    end = time.time() + timeout
    while True:
        try:
            got = what()
        except Exception:  # noqa: BLE001 - the page re-rendered or navigated under the call: ask again
            got = None
        if got:
            return got
        if time.time() > end:
            raise AssertionError(f"timed out waiting: {why}")
        time.sleep(0.1)


def asks(page: Any) -> list[str]:
    """The acts this phone is asked now (from its own view)."""
    return list(page.evaluate("S.view && S.view.pending ? S.view.pending.map((o) => o.act) : []") or [])


def room(at: Server, *, seed: int, bots: list[int], mode: str = "online", deck: str = "classic9",
         ruleset: str = "classic", lang: str = "en", **extra: Any) -> dict[str, Any]:
    r = httpx.post(at.url + "/api/rooms", json={"ruleset": ruleset, "deck": deck, "seed": seed, "bots": bots,
                                                 "mode": mode, "lang": lang, **extra})
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(page: Any, at: Server, r: dict[str, Any], name: str) -> None:
    page.goto(f"{at.url}/r/{r['room']}")
    page.fill("#name", name)
    page.click("#join")
    page.wait_for_selector("#seats .me")


def start(at: Server, r: dict[str, Any]) -> None:
    httpx.post(f"{at.url}/api/rooms/{r['room']}/start",
               headers={"Authorization": "Bearer " + r["host_token"]}).raise_for_status()


def test_face_to_face_the_seers_verdict_stays_on_the_card_and_the_cover_comes_back(browser: Any,
                                                                                 paced: Server) -> None:
    # Seed 2 deals seat 1 the seer (the wolves: 6, 8, 9); bots hold seats 2–9.
    for lang, verdict in (("en", "wolf"), ("zh-Hant", "狼")):
        page = phone(browser, lang)
        r = room(paced, seed=2, bots=list(range(2, 10)), mode="face_to_face", lang=lang)
        join(page, paced, r, "Ann")
        start(paced, r)
        page.wait_for_selector("#cover")
        until(lambda page=page: "check" in asks(page), why="the seer's check")
        # Asked, the phone stays covered (a glance shows nothing); a tap shows the decision.
        assert page.locator("#decide, #log").count() == 0
        page.click("#cover")
        page.click("#decide button.option[data-move='{\"act\":\"check\",\"target\":6}']")
        # The answer and its result are the card now, not "Nothing to do this time".
        page.wait_for_selector("#answered #told li")
        told = page.inner_text("#answered")
        assert verdict in told.lower() and ("6" in told), told
        assert page.locator("#awake").count() == 0
        shot(page, f"live-seer-result-{lang}")
        # Then the step ends ("Seer, close your eyes"): the phone covers itself, untouched.
        page.wait_for_selector("#cover", timeout=20000)
        assert page.locator("#answered, #decide, #log, #role.open").count() == 0
        shot(page, f"live-seer-covered-again-{lang}")
        page.context.close()


def test_online_hiding_the_role_card_hides_the_pack_its_chat_and_the_self_destruct(browser: Any,
                                                                                 server: Server) -> None:
    # Seed 3 deals seat 1 a werewolf (with bots 4 and 8): the pack's card, its chat and the self-destruct.
    page = phone(browser, "zh-Hans")
    r = room(server, seed=3, bots=list(range(2, 10)), lang="zh-Hans")
    join(page, server, r, "Ann")
    start(server, r)
    page.wait_for_selector("#pack-picks")
    page.wait_for_selector("#interrupts")
    assert page.locator("#pack-chat").count() == 1 and page.locator("#cover").count() == 0
    shot(page, "live-online-pack-zh-Hans")
    page.click("#role")  # hidden: everything secret goes with it
    page.wait_for_selector("#cover")
    assert page.locator("#pack, #pack-chat, #interrupts, #log, #decide").count() == 0
    assert page.locator("#role.closed").count() == 1
    shot(page, "live-online-covered-zh-Hans")
    page.click("#cover")
    page.wait_for_selector("#pack-picks")
    page.context.close()


def test_a_self_destruct_is_armed_by_a_second_tap_shown_plainly_and_taken_back(browser: Any,
                                                                            server: Server) -> None:
    page = phone(browser, "en")
    r = room(server, seed=3, bots=list(range(2, 10)))  # seat 1: a werewolf
    join(page, server, r, "Ann")
    start(server, r)
    button = "#interrupts button.interrupt"
    page.wait_for_selector(button)

    def armed() -> Any:
        view = httpx.get(f"{server.url}/api/rooms/{r['room']}/view",
                         headers={"Authorization": "Bearer " + page.evaluate("S.player")}).json()
        return view["interrupts"][0]["armed"]

    page.click(button)  # one tap arms nothing: it asks for another
    page.wait_for_selector(f"{button}.confirming")
    assert armed() is None and page.locator("#armed").count() == 0
    shot(page, "live-arm-confirm-en")
    page.wait_for_selector(f"{button}:not(.confirming)")  # left alone, the question goes away
    assert armed() is None
    page.click(button)
    page.click(f"{button}.confirming")  # the second tap arms it
    page.wait_for_selector("#armed #disarm")
    until(armed, why="the intent stored")
    # Armed, it is said in red above everything but the role card.
    order = page.evaluate("[...document.querySelectorAll('#app > section')].map((s) => s.id)")
    assert order.index("interrupts") == order.index("role") + 1, order
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "live-armed-en")
    page.click("#disarm")
    page.wait_for_selector("#armed", state="detached")
    until(lambda: armed() is None, why="the intent taken back")
    page.context.close()


RESULT_SEEN = """
window.__resultAt = null;
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => {
    if (window.__resultAt === null && document.getElementById("result")) window.__resultAt = Date.now();
  }).observe(document.body, { childList: true, subtree: true });
});
"""


def test_face_to_face_the_end_waits_for_the_voice_on_every_screen(browser: Any, server: Server) -> None:
    r = room(server, seed=4, bots=[2, 3, 4], mode="face_to_face", ruleset="onuw", deck="onuw4",
             options={"discussion_seconds": 60})
    table = phone(browser, "en")
    table.context.add_init_script(STUB)
    table.context.add_init_script(RESULT_SEEN)
    table.context.add_init_script(f"localStorage.setItem('ww:{r['room']}:host', {r['host_token']!r})")
    table.goto(f"{server.url}/r/{r['room']}")
    table.click("#moderator #voice")
    table.wait_for_selector("#moderator #voice-pause")
    ann = phone(browser, "en")
    ann.context.add_init_script(RESULT_SEEN)
    join(ann, server, r, "Ann")
    start(server, r)
    play_until([ann], random.Random(3), lambda: ann.locator("#result").count() > 0, 120, "the game did not end")
    table.wait_for_selector("#result")
    said = table.evaluate("window.__spokenLog")
    over = next(x for x in said if re.search(r"\bwins?\b|Nobody wins", x["text"]))
    exile = next(x for x in said if x["n"] < over["n"] and re.search(r"executed|exiled|Nobody is", x["text"]))
    # Neither screen showed the end before the voice began saying it (and the exile before that).
    for page in (ann, table):
        assert page.evaluate("window.__resultAt") >= exile["at"], (page.evaluate("window.__resultAt"), exile)
        assert page.evaluate("window.__resultAt") >= over["at"] - 50, (page.evaluate("window.__resultAt"), over)
    shot(ann, "live-end-after-voice-en")
    for p in (table, ann):
        p.context.close()


def test_the_one_night_result_shows_the_table_at_dawn_the_centre_and_why(browser: Any, server: Server) -> None:
    for lang, centre, why in (("en", "Centre cards", "Why"), ("zh-Hans", "中央的牌", "胜负原因")):
        page = phone(browser, lang)
        r = room(server, seed=4, bots=[2, 3, 4], ruleset="onuw", deck="onuw4", lang=lang,
                 options={"discussion_seconds": 60})
        join(page, server, r, "Ann")
        start(server, r)
        # Before the end, nothing of it: no dealt cards, no centre.
        assert page.locator("#final-table, #centre").count() == 0
        play_until([page], random.Random(5), lambda page=page: page.locator("#result").count() > 0, 120,
                   "the game did not end")
        page.wait_for_selector("#final-table")
        rows = page.locator("#final-table tr[data-seat]")
        assert rows.count() == 4
        assert page.locator("#final-table th").count() == 4  # seat, name, dealt, at dawn
        assert page.inner_text("#centre").startswith(centre)
        assert len(page.inner_text("#centre").split("·")) == 3  # the three centre cards
        assert page.inner_text("#why-won").startswith(why)
        log = httpx.get(f"{server.url}/api/rooms/{r['room']}/log").json()
        dead = {e["seat"] for e in log["events"] if e["type"] == "death"}
        for s in dead:  # the dead are marked
            assert "✝" in page.inner_text(f"#final-table tr[data-seat='{s}']")
        page.locator("#result").scroll_into_view_if_needed()
        shot(page, f"live-onenight-result-{lang}")
        page.context.close()


def test_the_one_night_discussion_lets_people_speak_freely_and_be_ready_at_any_time(browser: Any,
                                                                                  server: Server) -> None:
    r = room(server, seed=4, bots=[3, 4], ruleset="onuw", deck="onuw4", lang="en",
             options={"discussion_seconds": 300})
    ann, bo = phone(browser, "en"), phone(browser, "zh-Hant")
    join(ann, server, r, "Ann")
    join(bo, server, r, "Bo")
    start(server, r)
    def night() -> bool:  # whatever each is asked, the first option, until both are at the discussion
        for p in (ann, bo):
            if p.locator("#talk").count() == 0 and p.locator("#decide button.option:enabled").count():
                p.locator("#decide button.option:enabled").first.click()
        return all(p.locator("#talk").count() for p in (ann, bo))

    until(night, 60, "the discussion")
    for p in (ann, bo):
        p.wait_for_selector("#talk")
    # Ann speaks twice in a row while Bo has said nothing: she is not made to wait for him.
    for text in ("I am the seer.", "Seat 2 is the robber."):
        ann.wait_for_selector("#send-speech:enabled")
        ann.fill("#speech", text)
        ann.click("#send-speech")
        ann.wait_for_selector(f"#log li:has-text('{text}')")
    ann.wait_for_selector("#send-speech:enabled")
    assert ann.locator("#ready-to-vote:enabled").count() == 1  # ready may be pressed at any time
    # Every phone says who has not spoken yet: Bo (the bots had their say at once).
    for p in (ann, bo):
        p.wait_for_selector("#silent")
        silent = p.inner_text("#silent")
        assert "Bo" in silent and "Ann" not in silent, silent
    assert "(你)" in bo.inner_text("#silent") or "(you)" in bo.inner_text("#silent")
    assert "還沒發言" in bo.inner_text("#silent")
    ann.evaluate("window.scrollTo(0, 0)")
    shot(ann, "live-talk-free-en")
    shot(bo, "live-talk-free-zh-Hant")
    ann.click("#ready-to-vote")
    bo.wait_for_selector("#ready:has-text('1')")
    assert bo.locator("#send-speech:enabled").count() == 1
    bo.fill("#speech", "我是村民。")
    bo.click("#send-speech")
    bo.wait_for_selector("#log li:has-text('我是村民。')")
    bo.wait_for_selector("#ready-to-vote:enabled")
    bo.click("#ready-to-vote")
    for p in (ann, bo):  # everyone ready: the vote
        until(lambda p=p: "vote" in asks(p), 30, "the vote")
    for p in (ann, bo):
        p.context.close()


def test_a_speech_the_timer_ends_leaves_a_line_in_the_log(browser: Any, server: Server) -> None:
    page = phone(browser, "en")
    r = room(server, seed=2, bots=list(range(2, 10)), speech_time=10, timeout=60)  # seat 1: the seer
    join(page, server, r, "Ann")
    start(server, r)

    def my_speech() -> bool:  # every other decision: its first option
        if page.locator("#send-speech:enabled").count():
            return True
        options = page.locator("#decide button.option:enabled")
        if options.count():
            options.first.click()
        return False

    until(my_speech, 90, "Ann's speech")
    assert page.locator("#speech-timer").count() == 1 and page.locator("#decide .deadline").count() == 0
    page.wait_for_selector("#log li.ev-speech_timeout", timeout=30000)  # she says nothing: time!
    assert "Seat 1" in page.inner_text("#log li.ev-speech_timeout")
    # The server says so, not this page: a reload (or a late spectator) shows the same line, once.
    page.reload()
    page.wait_for_selector("#log, #cover", timeout=30000)
    if page.locator("#cover").count():
        page.click("#cover")
    page.wait_for_selector("#log li.ev-speech_timeout", timeout=30000)
    assert page.locator("#log li.ev-speech_timeout").count() == 1
    assert "Seat 1" in page.inner_text("#log li.ev-speech_timeout")
    page.context.close()


# Known flaky (2026-12-04): it plays a whole game through the browser against heuristic bots, whose habits
# are now drawn game by game (werewolf.agents.heuristic.Policy), and its path depends on when the
# person's taps land against the bots' answers; about one run in four fails on a busy machine. Rerun
# twice until its game is scripted (the closing note of 2026-12-04 says so).
@pytest.mark.flaky(reruns=2)
def test_the_witch_is_told_why_she_has_no_antidote(browser: Any, server: Server) -> None:
    # Seed 8 deals seat 1 the witch and seats 2, 4, 6 the wolves: the wolves are people played by this test
    # (they kill seat 3, then seat 5); the witch saves on night 1, and night 2 says why there is no antidote.
    page = phone(browser, "zh-Hant")
    r = room(server, seed=8, bots=[3, 5, 7, 8, 9], lang="zh-Hant")
    join(page, server, r, "Ann")
    wolves = []
    for name in ("W2", "W4", "W6"):
        j = httpx.post(f"{server.url}/api/rooms/{r['room']}/join", json={"name": name})
        assert j.status_code == 200, j.text
        wolves.append(j.json()["token"])
    start(server, r)
    state = {"saved": False}

    def wolves_play() -> None:
        for token in wolves:
            h = {"Authorization": "Bearer " + token}
            v = httpx.get(f"{server.url}/api/rooms/{r['room']}/view", headers=h).json()
            if not v["pending"]:
                continue
            move = v["pending"][-1]  # nobody, abstain, done speaking, do not run...
            move = next((m for m in v["pending"] if m["act"] == "vote" and m.get("target") == 9), move)
            if v["pending"][0]["act"] == "kill":  # seat 3 on night 1, then a living villager side seat
                targets = [m["target"] for m in v["pending"] if m.get("target") not in (None, 1, 2, 4, 6)]
                move = {"act": "kill", "target": 3 if v["phase"] == "night1" else targets[0]}
            httpx.post(f"{server.url}/api/rooms/{r['room']}/act", json=move, headers=h)

    def night_two() -> bool:
        wolves_play()
        if page.locator("#no-antidote").count():
            return True
        if page.locator("#send-speech:enabled").count():
            page.click("#send-speech")
            return False
        save = page.locator("#decide button.option[data-move*='\"save\"']:enabled")
        if save.count():
            if not state["saved"]:
                assert "3號" in save.first.inner_text()  # the antidote names tonight's victim
            state["saved"] = True
            save.first.click()
            return False
        exile = page.locator("#decide button.option[data-move*='\"target\":9'][data-move*='\"vote\"']:enabled")
        if exile.count():  # the four people vote out seat 9 (a bot): the witch lives to night 2
            exile.first.click()
            return False
        options = page.locator("#decide button.option:enabled")
        if options.count():  # poison nobody, run: the last option (nobody, do not run)
            options.last.click()
        return False

    until(night_two, 120, "the witch's second night")
    assert state["saved"]
    assert page.inner_text("#no-antidote") == "今晚沒有解藥可用：你已經用過了。"
    shot(page, "live-witch-no-antidote-zh-Hant")
    page.context.close()
