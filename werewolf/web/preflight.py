"""Before ``werewolf serve`` listens: can it open its database, and is it the only server of a SQLite file?

A server that cannot reach its database, or whose SQLite file another server already drives, stops before it
listens, with one line that says what is wrong and what to do (``DatabaseProblem``), not a traceback: the
person who typed the command is told the fix, and no phone ever reaches a server that cannot store a move.

Two servers on one SQLite file would each drive the same rooms from their own memory and drift apart (each
storing answers the other never sees). SQLite has no cluster mode (PostgreSQL has: ``werewolf.web.cluster``),
so the first server holds an exclusive ``flock`` on the file for as long as it lives; the kernel lets it go
when the process ends, however it ends (SIGKILL included), so a crashed server never locks out its restart.
"""

from __future__ import annotations

import fcntl
import os
from typing import IO
from urllib.parse import urlsplit

from werewolf.web.store import Store, database_url

_held: list[IO[bytes]] = []  # the locks this process holds, open for its whole life


class DatabaseProblem(Exception):
    """The database cannot be served: the message is one line, meant for the person who started the server."""


def check(database: str | None, *, exclusive: bool = True) -> str:
    """Open ``database`` once (creating its tables if new) and, for SQLite, take the one-server lock
    (``exclusive``); return its SQLAlchemy URL. Raises ``DatabaseProblem`` with a one-line reason."""
    url = database_url(database)
    scheme = url.split(":", 1)[0]
    if scheme.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        _check_sqlite_path(path)
    try:
        store = Store(url)
    except DatabaseProblem:
        raise
    except ImportError as err:  # sqlalchemy's NoSuchModuleError is not one; a missing driver's import is
        raise DatabaseProblem(_missing_driver(scheme, err)) from err
    except Exception as err:  # noqa: BLE001 - every failure to open the database becomes one line
        raise DatabaseProblem(_cannot_open(url, err)) from err
    store.close()
    if scheme.startswith("sqlite") and exclusive:
        hold_sqlite(url.removeprefix("sqlite:///"))
    return url


def hold_sqlite(path: str) -> None:
    """Take the exclusive lock on a SQLite file for the rest of this process's life, or say who has it."""
    handle = open(path, "rb")  # noqa: SIM115 - held open until the process ends
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise DatabaseProblem(
            f"another werewolf server is already serving {path}: two servers on one SQLite file would each "
            "drive its rooms and drift apart; stop the other one, use another --database file, or run "
            "several processes on PostgreSQL (--database postgresql://... --workers N)") from None
    _held.append(handle)


def _check_sqlite_path(path: str) -> None:
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise DatabaseProblem(f"cannot create the SQLite database {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise DatabaseProblem(f"--database {path} is a folder, not a SQLite file")
    if os.path.exists(path):
        if not os.access(path, os.R_OK | os.W_OK):
            raise DatabaseProblem(f"cannot write the SQLite database {path}: permission denied")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseProblem(f"cannot create the SQLite database {path}: the folder {folder} is not writable")


def _missing_driver(scheme: str, err: ImportError) -> str:
    if scheme.startswith("postgres"):
        return ("PostgreSQL needs the psycopg driver, which is not installed: pip install -e '.[postgres]' "
                f"(or pip install 'psycopg[binary]') ({err})")
    return f"the database driver for {scheme} is not installed ({err})"


def _cannot_open(url: str, err: Exception) -> str:
    reason = _first_line(getattr(err, "orig", None) or err)
    if type(err).__name__ == "NoSuchModuleError" or type(err).__name__ == "ArgumentError":
        return f"--database: not a database this server can use ({reason}); give a file path or postgresql://..."
    if url.startswith("sqlite"):
        return f"cannot open the SQLite database {url.removeprefix('sqlite:///')}: {reason}"
    where = urlsplit(url)
    host = where.hostname or "localhost"
    port = f":{where.port}" if where.port else ""
    name = where.path.lstrip("/") or "(default)"
    return f"cannot open the PostgreSQL database {name} at {host}{port}: {reason}"


def _first_line(err: object) -> str:
    text = str(err).strip()
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return type(err).__name__
