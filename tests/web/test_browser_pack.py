"""Headless Chromium (tests/web/conftest.py): a 12-player classic room with three people in the pack and a bot
wolf reaches one kill through the pack's card (issue 15, point 1), and a villager's phone shows nothing of it.

Classic 12 with seed 5 deals the wolves to seats 2, 5, 6 and 8; the people take seats 2, 5, 6 and the seer's 11.
"""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import Server
from .test_browser import phone, server, shot  # noqa: F401 (the fixture)

SEED = 5
PEOPLE = [2, 5, 6, 11]


def button(target: int) -> str:
    return f"#pack button.pick[data-move='{{\"act\":\"kill\",\"target\":{target}}}']"


def pick_of(page: Any, seat: int) -> str | None:
    return page.get_attribute(f"#pack-picks li[data-seat='{seat}']", "data-target")


def test_three_people_and_a_bot_wolf_reach_the_same_kill_through_the_pack(browser: Any,
                                                                         server: Server) -> None:  # noqa: F811
    bots = [s for s in range(1, 13) if s not in PEOPLE]
    room = httpx.post(f"{server.url}/api/rooms", json={"ruleset": "classic", "deck": "classic12", "seed": SEED,
                                                        "bots": bots}).json()
    pages = []
    for name in ("Ann", "Bob", "Chen", "Dee"):  # each takes the first free seat: 2, 5, 6, then 11
        p = phone(browser, "zh-Hant" if name == "Chen" else "en")
        p.goto(f"{server.url}/r/{room['room']}")
        p.fill("#name", name)
        p.click("#join")
        p.wait_for_selector("#seats .me")
        pages.append(p)
    ann, bob, chen, dee = pages
    httpx.post(f"{server.url}/api/rooms/{room['room']}/start",
               headers={"Authorization": "Bearer " + room["host_token"]}).raise_for_status()
    wolves = [ann, bob, chen]
    for p in wolves:
        p.wait_for_selector("#pack-picks li[data-seat='8']")
        assert p.locator("#pack-picks li").count() == 4
        assert pick_of(p, 8), "the bot wolf shows its own choice while no person has picked"
    assert "狼" in chen.inner_text("#pack h2")

    ann.click(button(1))
    for p in (bob, chen):  # Ann's pick reaches her packmates at once, and the bot follows it
        p.wait_for_selector("#pack-picks li[data-seat='2'][data-target='1']")
        p.wait_for_selector("#pack-picks li[data-seat='8'][data-target='1']")
    bob.fill("#pack-say", "Seat 1 talks like a seer.")
    bob.click("#pack-send")
    for p in (ann, chen):
        p.wait_for_selector("#pack-chat li:has-text('Seat 1 talks like a seer.')")
    chen.click(button(3))
    ann.wait_for_selector("#pack-picks li[data-seat='6'][data-target='3']")
    shot(ann, "20-pack-disagrees")
    chen.click(button(1))  # Chen changes her mind
    bob.click(button(1))
    for p in wolves:
        p.wait_for_selector("#pack-picks li[data-seat='6'][data-target='1']")
        p.wait_for_selector("#pack-picks li[data-seat='5'][data-target='1']")
        p.click("#pack-confirm")
    for p in wolves:  # the knife: the pack's one victim, told to the pack
        p.wait_for_selector("#log li.ev-pack_choice")
        assert "1" in p.inner_text("#log li.ev-pack_choice")
        assert p.locator("#pack").count() == 0  # the step is over
    shot(bob, "21-pack-agreed")
    # The self-destruct button is on each wolf's phone from the start, and waits for no offer: pressed, it
    # is armed (used at the next moment the rules allow) by a second tap; pressed again, taken back.
    ann.click("#interrupts button.interrupt")
    ann.click("#interrupts button.interrupt.confirming")
    ann.wait_for_selector("#interrupts .armed")
    ann.wait_for_selector("#interrupts button.interrupt.on")
    ann.click("#interrupts button.interrupt.on")
    ann.wait_for_selector("#interrupts button.interrupt:not(.on)")
    assert ann.locator("#interrupts .armed").count() == 0
    assert dee.locator("#interrupts").count() == 0
    log = httpx.get(f"{server.url}/api/rooms/{room['room']}/view",
                    headers={"Authorization": "Bearer " + room["host_token"]}).json()
    assert log["pack"] is None and log["pack_chat"] is None
    # The seer's phone never showed the pack's card or its chat.
    assert dee.locator("#pack, #pack-chat, #pack-picks").count() == 0
    assert "talks like a seer" not in dee.content()
    for p in pages:
        p.context.close()
