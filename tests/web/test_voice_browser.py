"""Face to face in headless Chromium: the moderator device's voice leads the phones (issue 15, point 3).

The table's speech synthesis is a stub that records each line and when it was begun and ended, and ends
each line after a short delay; the phones record when they are first offered each night decision."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from .conftest import Server
from .test_browser import phone, play_until, server, shot

__all__ = ["server"]  # the fixture

STUB = """
(() => {
  const log = [];
  window.__synthLog = log;
  class Utterance { constructor(text) { this.text = text; this.lang = ""; this.onend = null; this.onerror = null; } }
  const synth = {
    paused: false,
    getVoices: () => [],
    speak(u) {
      const entry = { text: u.text, start: Date.now(), end: null };
      log.push(entry);
      setTimeout(() => { entry.end = Date.now(); if (u.onend) u.onend({ type: "end" }); }, 40 + 2 * u.text.length);
    },
    cancel() {}, pause() { this.paused = true; }, resume() { this.paused = false; },
  };
  window.SpeechSynthesisUtterance = Utterance;
  Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true });
})();
"""

OFFERS = """
window.__offers = [];
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => {
    if (typeof S === "undefined" || !S.view || !S.view.pending || !/^night/.test(S.view.phase)) return;
    const key = S.view.phase + ":" + S.view.pending.map((o) => o.act).join(",");
    if (!window.__offers.some((o) => o.key === key))
      window.__offers.push({ key, phase: S.view.phase, role: S.view.role, at: Date.now() });
  }).observe(document.body, { childList: true, subtree: true });
});
"""

CALLS = {"seer": "Seer, open your eyes", "witch": "Witch, open your eyes", "werewolf": "Werewolves, open your eyes"}


def face_to_face_table(browser: Any, server: Server, *, seed: int, bots: str, lang: str = "en") -> Any:
    """The moderator device (its speech synthesis stubbed) creates a classic-9 face-to-face room with a fixed
    deal and ``bots`` (the create page's field); returns its page, on the room's lobby."""
    table = phone(browser, lang)
    table.context.add_init_script(STUB)
    table.route("**/api/rooms", lambda route: route.continue_(
        post_data=json.dumps({**json.loads(route.request.post_data or "{}"), "seed": seed})))
    table.goto(server.url + "/")
    table.select_option("#ruleset", "classic")
    table.select_option("#deck", "classic9")
    table.select_option("#mode", "face_to_face")
    table.fill("#bots", bots)
    table.click("#create")
    table.wait_for_selector("#share img.qr")
    return table


def test_the_voice_calls_each_role_before_its_phone_asks_and_says_each_line_once(browser: Any,
                                                                                   server: Server) -> None:
    rng = random.Random(6)
    # A fixed deal (seed 156): seat 1 is the seer, seat 2 the witch, seat 3 a werewolf: all three are phones.
    table = face_to_face_table(browser, server, seed=156, bots="6")
    room_url = table.url
    phones = []
    for name in ("Ann", "Bo", "Cy"):
        p = phone(browser)
        p.context.add_init_script(OFFERS)
        p.goto(room_url)
        p.fill("#name", name)
        p.click("#join")
        p.wait_for_selector("#seats .me")
        phones.append(p)
    table.wait_for_selector("text=Cy")
    # The host switches the voice on in the lobby (a browser speaks only after a tap): it leads from the start.
    table.click("#moderator #voice")
    table.wait_for_selector("#moderator #voice-pause")
    table.click("#start")
    table.wait_for_function("() => window.__spoken.length > 0")
    table.wait_for_selector("#moderator .instruction")
    shot(table, "voice-01-moderator")
    play_until(phones, rng, lambda: bool(table.locator("#result").count()) or any(
        re.match(r"Day 3 breaks", s) for s in table.evaluate("window.__spoken")), 150,
        "the game did not reach its third day")
    assert table.locator("#moderator #instruction").inner_text().strip()
    # Both logs read at one moment of the page: the voice goes on between two reads (the bots still play).
    said, synth = table.evaluate("[window.__spokenLog, window.__synthLog]")
    # Each line once, in the script's order, and the synthesiser got exactly those lines.
    assert [x["n"] for x in said] == list(range(said[0]["n"], said[0]["n"] + len(said)))
    assert [x["text"] for x in said] == [x["text"] for x in synth if x["text"]]
    texts = [x["text"] for x in said]
    for night in ("Night 1 falls", "Night 2 falls"):
        assert sum(t.startswith(night) for t in texts) == 1, texts
    # No line twice in a row, last words included (a turn is called by its event or by the turn, not both).
    assert all(a != b for a, b in zip(texts, texts[1:])), texts
    # Every night decision a phone was offered came after the voice had finished calling its role that night.
    offers = [o for p in phones for o in p.evaluate("window.__offers")]
    assert {o["role"] for o in offers} >= {"seer", "werewolf"}, offers
    for o in offers:
        night = int(o["phase"][len("night"):])
        start = next(i for i, x in enumerate(synth) if x["text"].startswith(f"Night {night} falls"))
        call = next((x for x in synth[start:] if x["text"].startswith(CALLS[o["role"]])), None)
        assert call is not None and call["end"] is not None and call["end"] <= o["at"], (o, call)
        # ... and after the role before it was dismissed.
        before = synth[start:synth.index(call)]
        opens = [x["text"] for x in before if "open your eyes" in x["text"]]
        closes = [x["text"] for x in before if "close your eyes" in x["text"] and not x["text"].startswith("Night")]
        assert len(opens) == len(closes), (opens, closes)
    shot(phones[0], "voice-02-phone")
    for p in [table, *phones]:
        p.context.close()
