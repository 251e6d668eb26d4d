"""Several servers, one service (werewolf.web.cluster): two ``werewolf serve`` processes on one PostgreSQL
database serve the same room; a phone may use either; SIGKILL of one (the room's owner, or not) loses
nothing and the other goes on. Skipped without PostgreSQL (``WEREWOLF_TEST_POSTGRES``, set by scripts/test).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.sync.client import connect

from werewolf.core.game import Game
from werewolf.web.cluster import lock_key
from werewolf.web.room import Room
from werewolf.web.state import setup_from_json
from werewolf.web.store import Store, database_url

from .conftest import ROOT, Acks, Server, answers_of, auth, free_port

HUMANS = 7  # of 12 seats; the other five are bots
LIMIT = 120.0  # seconds a game may take at most
SEEN = ("phase", "pending", "events", "game_over")  # what a seat's socket and its HTTP view agree on


@pytest.fixture
def pair(postgres_db: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    a = Server(postgres_db, log=tmp_path / "a.log").start()
    b = Server(postgres_db, log=tmp_path / "b.log").start()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def calm(pending: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    moves = [m for m in pending if m["act"] not in ("explode", "duel")] or pending
    return dict(rng.choice(moves))


class Table:
    """One room's people, each seat on its own server (its views from one, its answers to the other)."""

    def __init__(self, servers: list[Server], seed: int) -> None:
        self.servers = servers
        self.rng = random.Random(seed)
        self.clients = [httpx.Client(base_url=s.url, timeout=10) for s in servers]
        first = self.clients[0]
        r = first.post("/api/rooms", json={"ruleset": "classic", "deck": "classic12", "seed": seed})
        assert r.status_code == 201, r.text
        self.rid, self.host = r.json()["room"], r.json()["host_token"]
        self.tokens: dict[int, str] = {}
        for i in range(HUMANS):  # the seats are taken on both servers, in turn
            j = self.clients[i % 2].post(f"/api/rooms/{self.rid}/join", json={"name": f"player {i}"})
            assert j.status_code == 200, j.text
            self.tokens[j.json()["seat"]] = j.json()["token"]
        self.acked: dict[int, Acks] = {s: [] for s in self.tokens}

    def close(self) -> None:
        for c in self.clients:
            c.close()

    def reconnect(self) -> None:
        """New connections (those of a killed server are gone)."""
        self.close()
        self.clients = [httpx.Client(base_url=s.url, timeout=10) for s in self.servers]

    def client(self, seat: int, answering: bool = False) -> httpx.Client:
        live = [c for c, s in zip(self.clients, self.servers) if s.proc is not None]
        return live[(seat + answering) % len(live)]

    def view(self, seat: int, **params: str) -> dict[str, Any]:
        r = self.client(seat).get(f"/api/rooms/{self.rid}/view", headers=auth(self.tokens[seat]), params=params)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def start(self) -> None:
        r = self.clients[1].post(f"/api/rooms/{self.rid}/start", headers=auth(self.host),
                                 json={"fill_with_bots": True})
        assert r.status_code == 200, r.text

    def step(self) -> bool:
        """One person answers (on the server its views do not come from); False once the game is over."""
        deadline = time.time() + 10
        while True:
            vs = {s: self.view(s) for s in self.tokens}
            if any(v["game_over"] for v in vs.values()):
                return False
            # (A wolf whose pick at the pack's knife is final waits for the pack: asked still, nothing to add.)
            asked = [s for s, v in vs.items() if v["pending"] and s not in (v.get("pack_ready") or [])]
            if asked:
                break
            assert time.time() < deadline, "nobody is asked anything and the game is not over"
            time.sleep(0.05)  # the room's owner moves it on (the pacer, the bots)
        seat = self.rng.choice(asked)
        move = calm(vs[seat]["pending"], self.rng)
        r = self.client(seat, answering=True).post(f"/api/rooms/{self.rid}/act", json=move,
                                                   headers=auth(self.tokens[seat]))
        assert r.status_code == 200, r.text
        self.acked[seat].append((move["act"], len(vs[seat]["events"])))
        # The seat's own phone, on the other server, hears of it (at once, give or take a NOTIFY).
        end = time.time() + 10
        while self.view(seat) == vs[seat]:
            assert time.time() < end, ("the answer never reached the seat's view on the other server", seat, move)
            time.sleep(0.01)
        return True

    def settled(self) -> dict[int, dict[str, Any]]:
        """Every seat's view once the room waits for a person (the same twice in a row)."""
        last: dict[int, dict[str, Any]] | None = None
        end = time.time() + 10
        while time.time() < end:
            vs = {s: self.view(s) for s in self.tokens}
            if vs == last and any(v["pending"] for v in vs.values()):
                return vs
            last = vs
            time.sleep(0.1)
        raise AssertionError("the room did not settle")

    def play(self, answers: int | None = None) -> None:
        end = time.time() + LIMIT
        n = 0
        while (answers is None or n < answers) and self.step():
            n += 1
            assert time.time() < end, "the game did not end in time"


def owner_pid(database: str, room_id: str) -> int | None:
    """The process id of the server holding the room's lock (its application_name ends with it)."""
    key = lock_key(room_id)
    with psycopg.connect(database) as conn:
        row = conn.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
            "AND ((l.classid::bigint << 32) | l.objid::bigint) = %s", (key,)).fetchone()
    return int(row[0].rsplit(" ", 1)[1]) if row else None


def single_process_view(database: str, room_id: str, seat: int | None) -> dict[str, Any]:
    """The view one process gives of the stored room: the room rebuilt from the database alone."""
    store = Store(database_url(database))
    try:
        (rec,) = store.call(Store.load([room_id]))
    finally:
        store.close()
    return dict(json.loads(Room(rec, 0.0).view_json(seat, False, "en")))


def unclocked(views: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {s: {k: x for k, x in v.items() if k != "speaker_deadline"} for s, v in views.items()}


def check_log(table: Table, log: dict[str, Any]) -> None:
    answers = log["answers"]
    replayed = Game.replay(setup_from_json(log["setup"]), [tuple(a) for a in answers])
    assert replayed.over
    assert json.loads(json.dumps([e.as_json() for e in replayed.events])) == log["events"]
    for s, acts in table.acked.items():
        # A person's interrupt offers are answered by the room (werewolf.web.pack), not by the person.
        logged = [act for seat, act, _ in answers if seat == s and act not in ("explode", "duel")]
        mine = answers_of(acts)
        # Every acknowledged answer is in the log, once and in order (an act's answers may be a|b acts).
        assert len(logged) == len(mine), (s, mine, logged)
        assert all(m in a.split("|") for m, a in zip(mine, logged)), (s, mine, logged)


def test_one_room_on_two_servers(pair: tuple[Server, Server], postgres_db: str) -> None:
    a, b = pair
    table = Table([a, b], seed=2024)
    try:
        # A phone of server B hears what is answered on server A.
        seat = next(s for s in table.tokens if table.client(s) is table.clients[1])
        with connect(f"ws://127.0.0.1:{b.port}/api/rooms/{table.rid}/ws?lang=en",
                     subprotocols=["werewolf", f"token.{table.tokens[seat]}"]) as ws:  # type: ignore[list-item]
            assert json.loads(ws.recv(timeout=10))["phase"] == "lobby"
            table.start()  # on B; A created the room and drives it (B does if it took the room's lock first)
            assert owner_pid(postgres_db, table.rid) in (a.proc.pid, b.proc.pid)  # type: ignore[union-attr]
            table.play()
            last = None
            end = time.time() + 10
            while time.time() < end:
                last = json.loads(ws.recv(timeout=10))
                if last["game_over"]:
                    break
            assert last is not None and last["game_over"]
        log = table.clients[0].get(f"/api/rooms/{table.rid}/log").json()
        assert table.clients[1].get(f"/api/rooms/{table.rid}/log").json() == log
        check_log(table, log)
        assert last == table.view(seat, lang="en")
        # Every seat's view is the same on both servers, and what one process gives of the stored game.
        for s, token in table.tokens.items():
            on = [c.get(f"/api/rooms/{table.rid}/view", headers=auth(token), params={"lang": "en"}).json()
                  for c in table.clients]
            assert on[0] == on[1] == single_process_view(postgres_db, table.rid, s), s
        public = [c.get(f"/api/rooms/{table.rid}/public", params={"lang": "en"}).json() for c in table.clients]
        assert public[0] == public[1] == single_process_view(postgres_db, table.rid, None)
    finally:
        table.close()


@pytest.mark.parametrize("killed", ["owner", "follower"])
def test_sigkill_of_one_server_loses_nothing(pair: tuple[Server, Server], postgres_db: str, killed: str) -> None:
    a, b = pair
    table = Table([a, b], seed=77)
    try:
        table.start()
        table.play(answers=10)
        owner = owner_pid(postgres_db, table.rid)
        assert owner in (a.proc.pid, b.proc.pid)  # type: ignore[union-attr]
        driver, other = (a, b) if owner == a.proc.pid else (b, a)  # type: ignore[union-attr]
        victim, survivor = (driver, other) if killed == "owner" else (other, driver)
        before = table.settled()
        victim.kill()  # SIGKILL: its session, and the room's lock if it held it, end with it
        # Nothing is lost: every seat's view on the survivor is what it was.
        # (Each server times an open speech from when it first saw it, as it does every decision's deadline.)
        assert unclocked(table.settled()) == unclocked(before)
        table.play()  # the survivor takes the room over (bots, pacer) and the game goes to its end
        assert owner_pid(postgres_db, table.rid) in (None, survivor.proc.pid)  # type: ignore[union-attr]
        log = table.client(0).get(f"/api/rooms/{table.rid}/log").json()
        check_log(table, log)
    finally:
        table.close()


def test_workers_need_postgresql(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "werewolf.cli", "serve", "--database", str(tmp_path / "w.sqlite"),
                        "--workers", "2"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2
    assert "--workers 2" in r.stderr and "PostgreSQL" in r.stderr and "SQLite serves one process" in r.stderr
    assert not (tmp_path / "w.sqlite").exists()  # refused before anything was made
    r = subprocess.run([sys.executable, "-m", "werewolf.cli", "serve", "--database", "postgresql://nobody@127.0.0.1/x",
                        "--workers", "100000"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and "--workers" in r.stderr and "1<=x<=64" in r.stderr and "Traceback" not in r.stderr


def test_workers_that_cannot_start_stop_the_server(tmp_path: Path) -> None:
    """A database no worker can reach: the server stops with a message, rather than start them for ever.

    ``serve`` refuses such a database before it starts any worker (werewolf.web.preflight: one line, exit 2);
    a database that goes out of reach between that check and a worker's start is the workers' own case, played
    here with the check taken out."""
    args = ["serve", "--host", "127.0.0.1", "--port", str(free_port()), "--database",
            "postgresql://nobody@127.0.0.1:1/x", "--workers", "2"]
    r = subprocess.run([sys.executable, "-m", "werewolf.cli", *args], capture_output=True, text=True, timeout=60,
                       cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("werewolf serve: cannot open the PostgreSQL database x at 127.0.0.1:1: ")
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    unchecked = ("import sys, werewolf.web.preflight as p; p.check = lambda *a, **k: ''; "
                 "from werewolf.cli import main; sys.argv[0] = 'werewolf'; main()")
    r = subprocess.run([sys.executable, "-c", unchecked, *args], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 1
    assert "could not start (see its error above); the server stops" in r.stderr
    assert "started again" not in r.stderr


@contextlib.contextmanager
def serve_workers(postgres_db: str, tmp_path: Path, count: int) -> Iterator[Server]:
    """``werewolf serve --workers count`` on a free port, once every worker is connected; stopped by SIGTERM
    at the end, cleanly."""
    server = Server(postgres_db, log=tmp_path / "workers.log", workers=count).start()
    proc = server.proc
    assert proc is not None
    try:
        wait_for_workers(postgres_db, count, proc, tmp_path)
        yield server
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        assert proc.returncode == 0, (tmp_path / "workers.log").read_text()[-3000:]
        assert "Traceback" not in (tmp_path / "workers.log").read_text()


def wait_for_workers(database: str, count: int, proc: subprocess.Popen[bytes], tmp_path: Path,
                     gone: int | None = None) -> set[int]:
    """The workers' process ids, once ``count`` are connected (none of them ``gone``)."""
    end = time.time() + 60
    while True:
        pids = {int(name.rsplit(" ", 1)[1]) for name in servers_on(database)}
        if len(pids) == count and gone not in pids:
            return pids
        assert proc.poll() is None, (tmp_path / "workers.log").read_text()
        assert time.time() < end, f"{count} workers did not start: {pids}"
        time.sleep(0.2)


def test_workers_hand_each_room_to_its_home_and_start_a_killed_one_again(postgres_db: str, tmp_path: Path) -> None:
    """``serve --workers 2``: one port; every connection of a room reaches the one process that is its
    home and drives it, so the other never reads the room: killing it (SIGKILL) drops none of the room's
    sockets and changes nothing. The parent starts a killed worker again; killing the room's own process
    loses nothing either: the room is served meanwhile by the other, and goes home after."""
    with serve_workers(postgres_db, tmp_path, 2) as server:
        pids = wait_for_workers(postgres_db, 2, server.proc, tmp_path)  # type: ignore[arg-type]
        table = Table([server, server], seed=5)
        try:
            table.start()
            home = owner_pid(postgres_db, table.rid)
            assert home in pids
            other = (pids - {home}).pop()
            seat = min(table.tokens)
            with connect(f"ws://127.0.0.1:{server.port}/api/rooms/{table.rid}/ws?lang=en",
                         subprotocols=["werewolf", f"token.{table.tokens[seat]}"]) as ws:  # type: ignore[list-item]
                assert json.loads(ws.recv(timeout=10))["phase"] != "lobby"
                table.play(answers=5)
                before = table.settled()
                os.kill(other, signal.SIGKILL)
                assert table.settled() == before
                table.play(answers=10)
                last = None
                with contextlib.suppress(TimeoutError):  # its socket was never cut, and is up to date
                    while True:
                        last = json.loads(ws.recv(timeout=2))
                now = table.view(seat)
                assert last is not None and [last[k] for k in SEEN] == [now[k] for k in SEEN]
                assert owner_pid(postgres_db, table.rid) == home
            pids = wait_for_workers(postgres_db, 2, server.proc, tmp_path, gone=other)  # type: ignore[arg-type]

            before = table.settled()
            os.kill(home, signal.SIGKILL)
            table.reconnect()
            assert unclocked(table.settled()) == unclocked(before)
            table.play()  # the other worker serves the room meanwhile, then its home again
            check_log(table, table.clients[0].get(f"/api/rooms/{table.rid}/log").json())
            again = wait_for_workers(postgres_db, 2, server.proc, tmp_path, gone=home)  # type: ignore[arg-type]
            assert owner_pid(postgres_db, table.rid) in (None, *again)
        finally:
            table.close()


def servers_on(database: str) -> set[str]:
    """The servers connected to the database (their sessions' application_name)."""
    with psycopg.connect(database) as conn:
        rows = conn.execute("SELECT DISTINCT application_name FROM pg_stat_activity "
                            "WHERE datname = current_database() AND application_name LIKE 'werewolf %'").fetchall()
    return {r[0] for r in rows}


def test_answers_racing_on_both_servers(pair: tuple[Server, Server]) -> None:
    """Every person answers as fast as they can, each from their own thread, through both servers at once:
    changes refused because the other server wrote first are made again; each acknowledged answer is in
    the log exactly once, and no answer is refused for anything but being stale or illegal by then."""
    table = Table(list(pair), seed=31)
    refused: list[str] = []
    lock = threading.Lock()
    try:
        table.start()

        def player(seat: int) -> None:
            rng = random.Random(seat)
            views, acts = (httpx.Client(base_url=table.client(seat, answering).base_url, timeout=10)
                           for answering in (False, True))
            end = time.time() + LIMIT
            with views, acts:
                while time.time() < end:
                    v = views.get(f"/api/rooms/{table.rid}/view", headers=auth(table.tokens[seat])).json()
                    if v["game_over"]:
                        return
                    if not v["pending"]:
                        time.sleep(0.005)
                        continue
                    move = calm(v["pending"], rng)
                    r = acts.post(f"/api/rooms/{table.rid}/act", json=move, headers=auth(table.tokens[seat]))
                    with lock:
                        if r.status_code == 200:
                            table.acked[seat].append((move["act"], len(v["events"])))
                        else:
                            refused.append(f"{r.status_code} {r.text}")

        threads = [threading.Thread(target=player, args=(s,)) for s in table.tokens]
        for t in threads:
            t.start()
        for t in threads:
            t.join(LIMIT + 10)
        # A view a moment behind may offer what was just answered or closed: 409 or 422, never a failure.
        assert all(r.startswith(("409", "422")) for r in refused), refused
        check_log(table, table.clients[0].get(f"/api/rooms/{table.rid}/log").json())
    finally:
        table.close()
