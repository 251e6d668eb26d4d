"""The server's interpreter settings and its probe (issue 16): structure, not timings.

``werewolf serve`` freezes what is alive before serving, spaces out the full collections and shortens the
threads' turns (werewolf.web.runtime); the probe's route exists only when the server is started with
``WEREWOLF_PROBE`` (werewolf.web.probe). The pauses they remove are measured by ``scripts/load.py --probe``.
"""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, Server

SERVE = """
import gc, resource, sys
import uvicorn
import werewolf.web as web
from werewolf.web.runtime import FULL_EVERY, SWITCH

def run(app, **kwargs):  # what serve leaves for uvicorn: the interpreter as it serves
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    print(gc.get_freeze_count() > 50000, gc.get_threshold()[2] == FULL_EVERY, sys.getswitchinterval() == SWITCH,
          "werewolf.rulesets.onuw" in sys.modules, soft == hard)

uvicorn.run = run
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 1024), hard))  # the usual soft limit
print(gc.get_freeze_count(), gc.get_threshold()[2] == FULL_EVERY)
web.serve(host="127.0.0.1", port=0, database=sys.argv[1])
"""


def test_serve_freezes_what_is_alive_and_spaces_out_full_collections(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", SERVE, str(tmp_path / "db.sqlite")], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out[0] == "0 False"  # before serve: the interpreter as Python makes it
    assert out[-1] == "True True True True True"


def test_a_room_that_leaves_memory_is_freed_after_serving_settles() -> None:
    """Frozen is only what lived before: a game made afterwards, cycles and all, is still collected."""
    code = """
import gc, weakref
from werewolf.web.runtime import serving
from werewolf.core.game import Game, Setup
serving()
g = Game(Setup("classic", deck="classic12", seed=1))
gone = weakref.ref(g)
del g
gc.collect()
print(gone() is None)
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True).stdout.split()
    assert out == ["True"]


def test_the_probe_answers_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app, hub, probe, store
    from werewolf.web.limits import Limits

    def routes() -> Any:
        return TestClient(create_app(str(tmp_path / "p.sqlite"), timeout=0, limits=Limits.off()))

    with routes() as c:
        assert c.get("/api/debug/probe").status_code == 404
    on = probe.Probe()
    for module in (probe, hub, store):  # as WEREWOLF_PROBE=1 at import would have made them
        monkeypatch.setattr(module, "probe", on)
    with routes() as c:
        assert c.get("/api/debug/probe", params={"reset": "true"}).status_code == 200
        r = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "bots": list(range(2, 10))})
        assert r.status_code == 201
        c.post(f"/api/rooms/{r.json()['room']}/join", json={"name": "Ann"})
        c.post(f"/api/rooms/{r.json()['room']}/start", headers={"Authorization": f"Bearer {r.json()['host_token']}"})
        figures = c.get("/api/debug/probe", params={"objects": "true", "collect": "true"}).json()
    assert figures["store: transaction"]["n"] >= 1 and figures["change: worker run"]["n"] >= 1
    assert figures["objects"]["n"] > 0 and figures["collected"] >= 0
    small = figures["pymalloc"]  # Python's small-object allocator, by its own count
    assert small["blocks"] > 0
    if os.environ.get("PYTHONMALLOC", "pymalloc").startswith("pymalloc"):  # (absent under another allocator)
        assert small["arenas"] > 0 and 0 < small["used"] <= small["arenas"] * 2**20


def test_an_idle_connection_is_kept_between_two_answers(tmp_path: Path) -> None:
    """A phone's requests come a decision apart, often more than uvicorn's default keep-alive (5 s): the
    server keeps an idle connection longer, so that an answer does not open a new one (a new TCP, and
    behind a proxy a new TLS, handshake; two workers, 200 paced rooms: p95 338 -> 61 ms, docs/performance.md)."""
    server = Server(str(tmp_path / "keep.sqlite")).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/decks")
        assert conn.getresponse().read() and conn.sock is not None
        first = conn.sock
        time.sleep(6.5)
        conn.request("GET", "/api/decks")  # on the same socket: http.client does not reconnect by itself
        r = conn.getresponse()
        assert r.status == 200 and r.read() and conn.sock is first
        conn.close()
    finally:
        server.stop()


def _trims(monkeypatch: pytest.MonkeyPatch, counts: list[int], every: float) -> tuple[list[int], list[int]]:
    """The trims ``give_back`` makes as the hub's ``left`` takes ``counts`` (one per look, looks 0 s apart),
    and the number of trims made before each look."""
    import asyncio

    from werewolf.web import runtime

    trims: list[int] = []
    monkeypatch.setattr(runtime, "_malloc_trim", lambda: trims.append)
    looks = iter(counts)
    looked: list[int] = []

    async def main() -> None:
        done = asyncio.Event()

        def left() -> int:
            looked.append(len(trims))
            n = next(looks, None)
            if n is None:
                done.set()
                return counts[-1]
            return n

        task = asyncio.create_task(runtime.give_back(left, every=every, look=0))
        await done.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    return trims, looked


def test_memory_is_given_back_once_rooms_have_stopped_leaving(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of rooms leaving is trimmed once, at the first look that sees the count stand still; a count
    that does not move is never trimmed again."""
    trims, looked = _trims(monkeypatch, [0, 0, 1, 2, 2, 2, 5, 5, 5], every=1e9)
    assert trims == [0, 0]  # once after 0 → 1 → 2, once after 2 → 5
    assert looked[:9] == [0, 0, 0, 0, 0, 1, 1, 1, 2]


def test_memory_is_given_back_while_rooms_keep_leaving(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rooms that never stop leaving still get their memory back, ``every`` seconds after the first."""
    trims, _ = _trims(monkeypatch, [0, 1, 2, 3, 4], every=0)
    assert trims == [0, 0, 0, 0]


def test_without_glibc_nothing_is_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from werewolf.web import runtime

    monkeypatch.setattr(runtime, "_malloc_trim", lambda: None)
    asyncio.run(runtime.give_back(lambda: 1 / 0, every=0, look=0))  # returns at once, never looks
