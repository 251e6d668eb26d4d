"""The replay page in real headless Chromium (Debian's, driven by Playwright, as tests/web/test_browser.py):
stepping through a finished game, and "as seat N saw it" showing only what that seat was shown.

Screenshots go to artifacts/screenshots/ (replay-*.png).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from werewolf.i18n import narrate, role_name
from werewolf.i18n.rules import explain

from .conftest import ARTIFACTS, Server

SHOTS = ARTIFACTS / "screenshots"
NINE = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(str(tmp_path / "replay.sqlite")).start()
    yield s
    s.stop()


def finished_game(server: Server) -> tuple[str, list[dict[str, Any]]]:
    room = httpx.post(server.url + "/api/rooms", json={"ruleset": "classic", "deck": NINE, "seed": 11,
                                                       "bots": list(range(1, 10))}).json()
    httpx.post(f"{server.url}/api/rooms/{room['room']}/start",
               headers={"Authorization": f"Bearer {room['host_token']}"})
    log = httpx.get(f"{server.url}/api/rooms/{room['room']}/log").json()
    assert any(e["type"] == "game_over" for e in log["events"])
    return room["room"], log["events"]


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def counter(page: Any) -> tuple[int, int]:
    text = page.inner_text("#counter")  # "Step k / n"
    k, n = text.split()[-3], text.split()[-1]
    return int(k), int(n)


def test_stepping_through_a_finished_game(browser: Any, server: Server) -> None:
    rid, events = finished_game(server)
    page = browser.new_page(viewport={"width": 900, "height": 1100})
    page.set_default_timeout(15000)
    page.goto(f"{server.url}/replay/{rid}?lang=en")
    page.wait_for_selector("#step-text")
    k, n = counter(page)
    assert k == 1 and n > 30
    first = page.inner_text("#step-text")
    page.click("#next")
    assert counter(page)[0] == 2 and page.inner_text("#step-text") != first
    page.click("#next")
    page.click("#prev")
    assert counter(page)[0] == 2
    page.keyboard.press("ArrowRight")
    assert counter(page)[0] == 3
    # The timeline shows what happened up to now, not after.
    assert page.locator("#timeline li.step:visible").count() == 3
    # A night phase's button jumps to its first step; the moderator's view shows whom each step was for.
    page.locator("#phases button", has_text="Night 1").click()
    night = counter(page)[0]
    assert night > 3 and "Night 1" in page.inner_text("#phase")
    # Step on to a ruling with its rule: the rule's text, the book's source and its sentence.
    for _ in range(n):
        if page.locator("#rule").count():
            break
        page.click("#next")
    assert page.locator("#rule .source").count() and "「" in page.inner_text("#rule .quote")
    shot(page, "replay-01-moderator")
    page.click("#last")
    assert counter(page) == (n, n)
    assert page.locator("#next").is_disabled()
    over = next(e for e in reversed(events) if e["type"] in ("game_over", "roles"))
    assert page.inner_text("#step-text") == narrate({k: v for k, v in over.items() if k != "to"}, "en", None)
    # Every role in the seat table at the end.
    roles = next(e for e in events if e["type"] == "roles")["roles"]
    assert [page.inner_text(f'#table tr[data-seat="{s}"] td.role') for s in range(1, 10)] == [
        role_name(roles[str(s)], "en") for s in range(1, 10)]
    shot(page, "replay-02-end")
    page.close()


def test_as_seat_n_saw_it_shows_only_what_that_seat_was_shown(browser: Any, server: Server) -> None:
    rid, events = finished_game(server)
    roles = next(e for e in events if e["type"] == "roles")["roles"]
    seat = next(int(s) for s, r in roles.items() if r == "villager")
    wolf = next(int(s) for s, r in roles.items() if r == "werewolf")
    page = browser.new_page(viewport={"width": 900, "height": 1100})
    page.set_default_timeout(15000)
    page.goto(f"{server.url}/replay/{rid}?lang=en")
    page.wait_for_selector("#step-text")
    everything = page.locator("#timeline li.step").count()
    # What the browser receives for the seat: only its events (the server cuts the log, the page hides nothing).
    with page.expect_response(lambda r: "/replay?" in r.url) as answer:
        page.select_option("#view", str(seat))
    data = answer.value.json()
    page.wait_for_selector(f"#title:has-text('seat {seat}')")
    assert all("to" not in events[s["i"]] or seat in events[s["i"]]["to"] for s in data["steps"])
    mine = page.locator("#timeline li.step").count()
    assert mine == len(data["steps"]) and mine < everything
    # The same moment of the game: the switch kept the first step, and shows nothing later yet.
    assert counter(page)[0] == 1 and page.locator("#timeline li.step:visible").count() == 1
    page.click("#last")
    text = page.inner_text("#timeline")
    # The seat does not see another's card, the pack's choice, the witch's potions or the seer's check.
    assert f"Seat {wolf} is the Werewolf" not in text
    for e in events:
        if e["type"] in ("pack_choice", "potions", "check", "victim", "guarded") and seat not in e.get("to", [0]):
            line = narrate({k: v for k, v in e.items() if k != "to"}, "en", None)
            assert line is None or line not in text, line
    assert "You are the Villager." in text
    # Its seat table at the start knows its own card and nobody else's.
    page.click("#first")
    page.click("#next")
    cells = {s: page.inner_text(f'#table tr[data-seat="{s}"] td.role') for s in range(1, 10)}
    assert cells[seat] == "Villager" and all(cells[s] == "?" for s in cells if s != seat)
    shot(page, "replay-03-as-seat")
    # A wolf's view of the same game holds the pack's night, which the villager's does not.
    page.select_option("#view", str(wolf))
    page.wait_for_selector(f"#title:has-text('seat {wolf}')")
    assert page.locator("#timeline li.step").count() > mine
    page.close()


def test_the_game_over_screen_links_to_the_replay(browser: Any, server: Server) -> None:
    rid, _ = finished_game(server)
    # A spectator's screen of the finished room shows the result, with the link.
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(15000)
    page.goto(f"{server.url}/r/{rid}")
    watch = page.locator("#watch")
    if watch.count():
        watch.click()
    page.wait_for_selector("#replay-link")
    # "Why?" beside an outcome of the log: the rule and the book's sentence, in the page's language.
    why = page.locator("#log .why-button").first
    rule = why.locator("xpath=following-sibling::div[1]").get_attribute("data-rule")
    why.click()
    page.wait_for_selector(f'#log .why[data-rule="{rule}"] div')
    shown = page.locator(f'#log .why[data-rule="{rule}"]').first.inner_text()
    assert explain(rule, "en")["text"] in shown and "「" in shown
    page.click("#replay-link")
    page.wait_for_selector("#step-text")
    assert f"/replay/{rid}" in page.url
    page.close()


# Known flaky (2026-12-04): the rules it finds depend on the path of a random game played through the browser
# against the bots (whose habits are drawn game by game); rerun twice until its game is scripted.
@pytest.mark.flaky(reruns=2)
def test_why_on_a_phone_reads_the_sentence_of_its_table(browser: Any, server: Server) -> None:
    """A WeChat table's "Why?" gives WeChat's sentence (its ruleset and the options its game_start announced
    go with the question), not the boxed edition's."""
    from werewolf.rulesets.options import in_force

    room = httpx.post(server.url + "/api/rooms", json={"ruleset": "wechat", "deck": "wechat12", "seed": 4,
                                                       "bots": list(range(1, 13))}).json()
    rid = room["room"]
    httpx.post(f"{server.url}/api/rooms/{rid}/start", headers={"Authorization": f"Bearer {room['host_token']}"})
    events = httpx.get(f"{server.url}/api/rooms/{rid}/log").json()["events"]
    start = next(e for e in events if e["type"] == "game_start")
    options = in_force("wechat", start.get("options"))
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(15000)
    page.goto(f"{server.url}/r/{rid}")
    watch = page.locator("#watch")
    if watch.count():
        watch.click()
    page.wait_for_selector("#log .why-button")
    public = {e["rule"] for e in events if "rule" in e and "to" not in e}
    differs = [r for r in sorted(public)
               if explain(r, "en", "wechat", options)["text"] != explain(r, "en")["text"]]
    assert differs, public  # a WeChat game names rules that read otherwise at a boxed-edition table
    rule = differs[0]
    box = page.locator(f'#log .why[data-rule="{rule}"]').first
    box.locator("xpath=preceding-sibling::button[1]").click()
    page.wait_for_selector(f'#log .why[data-rule="{rule}"] div')
    shown = box.inner_text()
    assert explain(rule, "en", "wechat", options)["text"] in shown, (rule, shown)
    assert explain(rule, "en")["text"] not in shown
    page.close()
