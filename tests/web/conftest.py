"""Fixtures of the web tests: an app on a fresh database, a real server process, PostgreSQL databases."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest


@pytest.fixture(autouse=True)
def unpaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rooms of these tests play their night steps at once (pace [0, 0]) unless a test sets a pace."""
    from werewolf.web import pacing

    monkeypatch.setattr(pacing, "DEFAULT_PACE", pacing.Pace(0.0, 0.0))
    monkeypatch.setattr(pacing, "POOL", {})  # (the server's answer times: each test's own)


def pytest_configure(config: Any) -> None:
    # starlette's TestClient asks for httpx2; httpx is what the project uses.
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with")

ROOT = Path(__file__).parent.parent.parent
ARTIFACTS = ROOT / "artifacts"
PG_ENV = "WEREWOLF_TEST_POSTGRES"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app
    from werewolf.web.limits import Limits

    # No rate limits here (tests create rooms by the dozen); tests/web/test_edge.py tests them.
    with TestClient(create_app(str(tmp_path / "test.sqlite"), timeout=0, limits=Limits.off())) as c:
        yield c


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# A seat's acknowledged moves, in order: each move's act and how many events its view showed when it was made.
Acks = list[tuple[str, int]]


def answers_of(acks: Acks) -> list[str]:
    """The answers a seat's acknowledged moves stored. At the pack's knife a wolf's ``kill`` made again (its
    pick changed or confirmed, nothing new shown meanwhile) is one answer; a ``kill`` on a later night is
    another, even with nothing acknowledged between them (a day a wolf's self-destruct ended before its vote)."""
    return [act for i, (act, seen) in enumerate(acks) if not (act == "kill" and i and acks[i - 1] == (act, seen))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``werewolf serve`` in a child process on a loopback port."""

    def __init__(self, database: str, port: int | None = None, timeout: float = 0, limits: str = "off",
                 log: Path | None = None, log_level: str = "info", pace: tuple[float, float] = (0, 0),
                 workers: int = 1, header_timeout: float | None = None) -> None:
        self.database = database
        self.port = port or free_port()
        self.timeout = timeout
        self.limits = limits  # no rate limits by default: tests create rooms by the dozen
        self.log = log  # a file for everything the server writes (stdout and stderr)
        self.log_level = log_level
        self.pace = pace  # the rooms' night steps, shortest and longest (seconds; 0 0: at once)
        self.workers = workers  # ``serve --workers``: the processes behind the port (werewolf.web.routing)
        self.header_timeout = header_timeout  # ``serve --header-timeout`` (None: its default)
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        out: Any = open(self.log, "ab") if self.log is not None else None  # noqa: SIM115 (the child holds it)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "werewolf.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--database", self.database, "--timeout", str(self.timeout), "--limits", self.limits,
             "--log-level", self.log_level, "--pace", *(f"{p:g}" for p in self.pace),
             "--workers", str(self.workers),
             *(["--header-timeout", f"{self.header_timeout:g}"] if self.header_timeout is not None else [])],
            cwd=ROOT, stdout=out or subprocess.DEVNULL, stderr=out or subprocess.PIPE)
        if out is not None:
            out.close()
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else self.log.read_text() if self.log else ""
                raise RuntimeError(f"the server exited: {err}")
            try:
                if httpx.get(self.url + "/api/decks", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        """SIGKILL: no chance to flush or clean up anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


def postgres_url() -> str | None:
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{PG_ENV} is not set: scripts/test starts PostgreSQL and sets it")
        pytest.skip(f"no PostgreSQL ({PG_ENV} unset): run bash scripts/test")
    return url


@pytest.fixture
def postgres_db() -> Iterator[str]:
    """A new, empty PostgreSQL database (dropped afterwards)."""
    import psycopg

    url = postgres_url()
    assert url is not None
    name = "werewolf_" + secrets.token_hex(6)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, _ = url.rpartition("/")
    yield f"{base}/{name}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


CHROMIUM = "/usr/bin/chromium"  # Debian's (scripts/test installs it); Playwright drives it headless
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for a test module's pages (each test opens its own context)."""
    if not os.path.exists(CHROMIUM) or shutil.which("chromium") is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: scripts/test installs Debian's chromium package")
        pytest.skip("no /usr/bin/chromium: run bash scripts/test as root")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()
