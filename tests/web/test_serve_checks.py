"""``werewolf serve`` refuses what it cannot serve before it listens, with one line and exit code 2: a bad
port, timeout or public URL, a database it cannot open or lacks the driver for, and a SQLite file that
another server already drives (werewolf.web.preflight)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from werewolf.web.links import check_public_url
from werewolf.web.preflight import DatabaseProblem, check

from .conftest import ROOT, Server


def serve(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``werewolf serve`` that is expected to stop by itself (it refuses its arguments)."""
    return subprocess.run([sys.executable, "-m", "werewolf.cli", "serve", "--host", "127.0.0.1", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def one_line_refusal(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    err = done.stderr.strip()
    assert "Traceback" not in err
    assert all(n in err for n in needles), err
    return err


@pytest.mark.parametrize("args,needle", [
    (["--port", "99999"], "--port"),
    (["--port", "0"], "--port"),
    (["--timeout", "-1"], "--timeout"),
    (["--timeout", "1e300"], "--timeout"),
    (["--keep-finished", "1e308"], "--keep-finished"),
    (["--public-url", "ftp://example.org"], "http:// or https://"),
    (["--public-url", "http://"], "names no host"),
    (["--public-url", "http://example.org:99999"], "bad port"),
    (["--public-url", "https://user:secret@example.org"], "credentials"),
    (["--public-url", "https://example.org/?x=1"], "query"),
    (["--public-url", "https://exa mple.org"], "no spaces"),
])
def test_bad_arguments_are_refused_by_name(args: list[str], needle: str) -> None:
    done = serve(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr


def test_a_public_url_is_kept_as_links_start() -> None:
    assert check_public_url("https://wolves.example.org/") == "https://wolves.example.org"
    assert check_public_url("http://192.168.1.20:8000") == "http://192.168.1.20:8000"
    assert check_public_url("https://example.org/werewolf/") == "https://example.org/werewolf"
    assert check_public_url("http://[2001:db8::1]:8000") == "http://[2001:db8::1]:8000"


def test_a_database_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    one_line_refusal(serve("--database", str(tmp_path / "missing" / "w.sqlite")), "does not exist")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    one_line_refusal(serve("--database", str(folder)), "is a folder")
    one_line_refusal(serve("--database", "postgresql://nobody@127.0.0.1:1/none"),
                     "cannot open the PostgreSQL database none at 127.0.0.1:1")
    one_line_refusal(serve("--database", "mysql://x/y"), "driver")


def test_an_unwritable_sqlite_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "read-only.sqlite"
    path.write_bytes(b"")
    # The permission bits as an ordinary user meets them (the suite may run as root, who writes anyway).
    monkeypatch.setattr("werewolf.web.preflight.os.access", lambda *_args: False)
    with pytest.raises(DatabaseProblem, match="cannot write the SQLite database .*: permission denied"):
        check(str(path))
    with pytest.raises(DatabaseProblem, match="folder .* is not writable"):
        check(str(tmp_path / "new.sqlite"))


def test_a_missing_postgresql_driver_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "psycopg" or m.startswith("psycopg.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now raises ImportError
    with pytest.raises(DatabaseProblem, match=r"pip install -e '\.\[postgres\]'"):
        check("postgresql://nobody@127.0.0.1:1/none")


def test_a_second_server_on_one_sqlite_file_is_refused_and_a_killed_one_frees_it(tmp_path: Path) -> None:
    db = str(tmp_path / "one.sqlite")
    first = Server(db).start()
    try:
        err = one_line_refusal(serve("--database", db, "--port", "1"), "already serving", db)
        assert len(err.splitlines()) == 1
        first.kill()  # SIGKILL: the kernel lets the lock go with the process
        again = Server(db).start()
        again.stop()
    finally:
        first.stop()
