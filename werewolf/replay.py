"""A finished game as a replay: its timeline, who saw what, its rulings, its seat table.

Front-end neutral: ``werewolf explain`` prints from it, the replay page (``werewolf.web.replay``)
serves it. A game comes as a *record*: its log (events in their JSON form, SCRIPTED_GAMES.md,
with ``to`` where not public) and, where known, its setup and the players' names. ``load``
reads every kind of game file on disk: a scripted game (run here), the output of
``werewolf script``, a ``simulate --logs`` file (one game per line) or a web room's full log.

What a seat saw is decided here, on the server, from each event's audience: the view of a seat
holds only the events that seat was shown, narrated for it, and a seat table built from them
alone (its own card, what it was told, what the table heard), so nothing hidden is ever sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werewolf.core.errors import WerewolfError
from werewolf.i18n import has, narrate, normalize_lang, phase_name, role_name, t
from werewolf.i18n.rules import explain

ALL = "all"  # the moderator's view: every event, with its audience
PUBLIC = "public"  # a spectator's view: public events only

LABELS = ("title", "timeline", "first", "prev", "next", "last", "view_as", "everything", "public", "seat_table",
          "seen_by", "everyone", "moderator_only", "rule", "source", "proposal", "alive", "dead", "unknown",
          "step", "why", "quote", "no_events", "back")


class RecordError(WerewolfError):
    """A file that holds no game this module can replay."""


@dataclass
class Record:
    """A game to replay: its log, and what else is known of it."""

    events: list[dict[str, Any]]
    setup: dict[str, Any] | None = None
    names: dict[int, str] = field(default_factory=dict)
    source: str = ""
    # The speeches the speech timer ended (their ``speech`` events' places in the log; a web room's), which
    # the table heard called ("time!") like any public line.
    timeouts: list[int] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return any(e.get("type") == "game_over" for e in self.events)

    @property
    def ruleset(self) -> str | None:
        if self.setup and isinstance(self.setup.get("ruleset"), str):
            return str(self.setup["ruleset"])
        start = next((e for e in self.events if e.get("type") == "game_start"), None)
        return str(start["ruleset"]) if start and isinstance(start.get("ruleset"), str) else None

    def options(self) -> dict[str, Any] | None:
        """Every option the game was played with, by name (what selects a rule's explanation): from its
        ``game_start`` (which records the options that differ from the ruleset's), else from its setup;
        None for a ruleset without options or a log that does not say."""
        from werewolf.core.errors import WerewolfError
        from werewolf.rulesets.options import in_force

        ruleset = self.ruleset
        if ruleset is None:
            return None
        start = next((e for e in self.events if e.get("type") == "game_start"), None)
        played = start.get("options") if start else None
        if played is None and self.setup is not None:
            played = self.setup.get("options")
        try:
            return in_force(ruleset, played if isinstance(played, dict) else None)
        except (WerewolfError, KeyError, TypeError, ValueError):
            return None  # a log of another version, or options this engine does not know: the plain entries

    def seats(self) -> list[int]:
        start = next((e for e in self.events if e.get("type") == "game_start"), None)
        n = start.get("players") if start else None
        if isinstance(n, int) and n > 0:
            return list(range(1, n + 1))
        seen = {e["seat"] for e in self.events if e.get("type") == "role" and isinstance(e.get("seat"), int)}
        return sorted(seen)


# -- reading game files ------------------------------------------------------------------------------
def load(path: str | Path, game: int | None = None) -> Record:
    """The game in ``path``: a scripted game, ``werewolf script`` output, a ``simulate --logs`` file
    (``game``: which game, by its number; default the first), or a web room's ``/log``."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a UTF-8 text file") from None
    return parse(text, str(path), game)


def parse(text: str, source: str = "", game: int | None = None) -> Record:
    stripped = text.strip()
    if not stripped:
        raise RecordError(f"{source or 'the file'} is empty")
    try:
        doc = json.loads(stripped)
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict):
        return _from_document(doc, source)
    if doc is not None:
        raise RecordError(f"{source or 'the file'} holds no game: a JSON {type(doc).__name__}, not an object")
    lines = []
    for n, line in enumerate(stripped.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{source or 'the file'}, line {n}: not JSON ({e.msg})") from None
        if not isinstance(item, dict):
            raise RecordError(f"{source or 'the file'}, line {n}: expected a JSON object")
        lines.append(item)
    if lines and all("events" in item for item in lines):  # simulate --logs: one game per line
        chosen = lines[0] if game is None else next((g for g in lines if g.get("game") == game), None)
        if chosen is None:
            known = ", ".join(str(g.get("game")) for g in lines[:20]) + ("…" if len(lines) > 20 else "")
            raise RecordError(f"{source or 'the file'} has no game {game} (games: {known})")
        return Record(_events(chosen["events"], source), source=source)
    if lines and all("type" in item and "phase" in item for item in lines):  # werewolf script output
        return Record(_events(lines, source), source=source)
    raise RecordError(f"{source or 'the file'} holds no game: expected a scripted game, `werewolf script` output, "
                      "a `simulate --logs` file or a room's log")


def _from_document(doc: dict[str, Any], source: str) -> Record:
    if "events" in doc:  # a web room's /log (setup, answers, events)
        setup = doc.get("setup") if isinstance(doc.get("setup"), dict) else None
        return Record(_events(doc["events"], source), setup=setup, source=source)
    if "moves" in doc or "ruleset" in doc:  # a scripted game: run it
        from werewolf import script as sg

        parsed = sg.parse(doc)
        out = sg.run(parsed)
        if out.error is not None and not out.events:
            raise RecordError(f"{source or 'the script'}: {out.error}")
        return Record([e.as_json() for e in out.events], setup=parsed.setup.as_json(), source=source)
    raise RecordError(f"{source or 'the file'} holds no game: no 'events' and no 'moves'")


def _events(items: Any, source: str) -> list[dict[str, Any]]:
    if not isinstance(items, list) or not all(isinstance(e, dict) and "type" in e and "phase" in e for e in items):
        raise RecordError(f"{source or 'the file'}: 'events' must be a list of log lines (type, phase, …)")
    return list(items)


# -- who saw what ---------------------------------------------------------------------------------
def visible(event: Mapping[str, Any], viewer: int | str) -> bool:
    """Whether ``viewer`` (a seat, ``PUBLIC`` or ``ALL``) was shown ``event``."""
    to = event.get("to")
    if viewer == ALL or to is None:
        return True
    return isinstance(viewer, int) and isinstance(to, list) and viewer in to


def parse_viewer(value: str | int | None) -> int | str:
    """``ALL``, ``PUBLIC`` or a seat number, from a query parameter or an option."""
    if value is None or value == "" or value == ALL:
        return ALL
    if value == PUBLIC:
        return PUBLIC
    if isinstance(value, int):
        return value
    if value.isdigit() and len(value) < 4:
        return int(value)
    raise RecordError(f"view {value[:20]!r}: expected 'all', 'public' or a seat number")


def _audience(event: Mapping[str, Any], lang: str) -> dict[str, Any]:
    to = event.get("to")
    if to is None:
        return {"kind": "public", "seats": None, "text": t("ui.replay.everyone", lang)}
    if not to:
        return {"kind": "moderator", "seats": [], "text": t("ui.replay.moderator_only", lang)}
    seats = sorted(int(s) for s in to)
    text = t("fmt.seat", lang, n=seats[0]) if len(seats) == 1 else t(
        "fmt.seats", lang, list=t("fmt.list_sep", lang).join(str(s) for s in seats))
    return {"kind": "seats", "seats": seats, "text": text}


# -- the seat table as a viewer knew it ------------------------------------------------------------
def _table_change(event: Mapping[str, Any], viewer: int | str) -> list[dict[str, Any]]:
    """What ``event`` (seen by ``viewer``) tells about the seats: roles learned, deaths, a revival."""
    etype, d = event.get("type"), event
    out: list[dict[str, Any]] = []
    if etype in ("role", "took") and isinstance(d.get("seat"), int) and isinstance(d.get("role"), str):
        out.append({"seat": d["seat"], "role": d["role"]})
    elif etype in ("reveal", "shoot", "explode") and isinstance(d.get("seat"), int) and isinstance(d.get("role"), str):
        out.append({"seat": d["seat"], "role": d["role"]})
    elif etype in ("check", "copy") and isinstance(d.get("target"), int) and isinstance(d.get("role"), str):
        out.append({"seat": d["target"], "role": d["role"]})  # one-night looks name the card
    elif etype == "own_card" and isinstance(d.get("seat"), int) and isinstance(d.get("role"), str):
        out.append({"seat": d["seat"], "role": d["role"]})  # the insomniac's last look
    elif etype == "rob" and isinstance(d.get("seat"), int) and isinstance(d.get("role"), str):
        out.append({"seat": d["seat"], "role": d["role"]})  # the robber's new card (his old one: unsaid)
    elif etype == "exchange" and isinstance(d.get("now"), list):  # the moderator's record of a swap
        if isinstance(d.get("seats"), list):
            out += [{"seat": s, "role": r} for s, r in zip(d["seats"], d["now"]) if isinstance(s, int)]
        elif isinstance(d.get("seat"), int) and d["now"]:
            out.append({"seat": d["seat"], "role": d["now"][0]})
    elif etype == "roles" and isinstance(d.get("roles"), dict):
        out += [{"seat": int(s), "role": r} for s, r in d["roles"].items() if str(s).isdigit()]
    elif etype == "death" and isinstance(d.get("seat"), int):
        out.append({"seat": d["seat"], "alive": False})
    elif etype == "announce" and isinstance(d.get("seats"), list):
        out += [{"seat": s, "alive": False} for s in d["seats"] if isinstance(s, int)]
    elif etype == "pack" and isinstance(d.get("seats"), list):  # the pack sees its plain werewolves
        special = d.get("special") or []
        out += [{"seat": s, "role": "werewolf", "unless_known": True}
                for s in d["seats"] if isinstance(s, int) and s not in special]
    return out


# -- the page --------------------------------------------------------------------------------------
def replay(record: Record, viewer: int | str = ALL, lang: str = "en") -> dict[str, Any]:
    """The replay of ``record`` for ``viewer``: every step it saw, narrated for it, with the rule of
    each ruling, who else saw it, and the seat table as it knew it after that step."""
    lang = normalize_lang(lang)
    seats = record.seats()
    if isinstance(viewer, int) and viewer not in seats:
        raise RecordError(f"no seat {viewer} in this game (seats 1–{len(seats)})")
    reader = viewer if isinstance(viewer, int) else None
    ruleset, options = record.ruleset, record.options()
    timed_out = set(record.timeouts)
    steps: list[dict[str, Any]] = []
    table: dict[int, dict[str, Any]] = {s: {"seat": s, "role": None, "alive": True} for s in seats}
    for i, e in enumerate(record.events):
        if not visible(e, viewer):
            continue
        plain = {k: v for k, v in e.items() if k != "to"}
        text = narrate(plain, lang, reader, ruleset=ruleset, options=options)
        if text is None and e.get("type") == "speech":
            # A phone leaves out another player's turn (its speaking order says it); a replay reads it out.
            text = narrate(plain, lang, None)
        changes = _table_change(e, viewer)
        for c in changes:
            row = table.get(c["seat"])
            if row is None:
                continue
            if "role" in c and not (c.get("unless_known") and row["role"] is not None):
                row["role"] = c["role"]
            if "alive" in c:
                row["alive"] = c["alive"]
        if text is None and not changes:
            continue  # not worth a step (another player's speaking turn, as the phones show it)
        step: dict[str, Any] = {"i": i, "phase": e.get("phase"), "type": e.get("type"),
                                "text": text if text is not None else "", "seen_by": _audience(e, lang)}
        rule = e.get("rule")
        if isinstance(rule, str) and rule:
            step["rule"] = explain(rule, lang, ruleset, options)
        if changes:
            step["table"] = [_row(r, lang) for r in table.values()]
        steps.append(step)
        if i in timed_out and e.get("type") == "speech":
            steps.append({"i": i, "phase": e.get("phase"), "type": "speech_timeout", "seen_by": _audience({}, lang),
                          "text": t("event.speech.timed_out", lang, seat=t("fmt.seat", lang, n=e.get("seat")))})
    # The timeline by night and day as the game went: a night's deaths, logged at dawn with the
    # night's phase, belong to the morning that announced them.
    phases: list[dict[str, Any]] = []
    group, key = "", -1
    for n, s in enumerate(steps):
        k = _phase_key(str(s["phase"]))
        if k > key:
            group, key = str(s["phase"]), k
        s["group"] = group
        if not phases or phases[-1]["phase"] != group:
            phases.append({"phase": group, "name": _phase(group, lang), "start": n})
    over = next((e for e in reversed(record.events) if e.get("type") == "game_over"), None)
    return {
        "lang": lang, "ruleset": record.ruleset, "over": over is not None,
        "viewer": {"kind": "seat" if isinstance(viewer, int) else viewer,
                   "seat": viewer if isinstance(viewer, int) else None,
                   "name": _viewer_name(viewer, lang)},
        "seats": [{"seat": s, "name": record.names.get(s, ""),
                   "label": _viewer_name(s, lang)} for s in seats],
        "views": [{"id": ALL, "name": _viewer_name(ALL, lang)}, {"id": PUBLIC, "name": _viewer_name(PUBLIC, lang)}]
        + [{"id": str(s), "name": _viewer_name(s, lang) + (f" · {record.names[s]}" if record.names.get(s) else "")}
           for s in seats],
        "initial_table": [_row({"seat": s, "role": None, "alive": True}, lang) for s in seats],
        "steps": steps, "phases": phases,
        "labels": {k: t(f"ui.replay.{k}", lang) for k in LABELS},
    }


def _row(row: Mapping[str, Any], lang: str) -> dict[str, Any]:
    role = row.get("role")
    return {"seat": row["seat"], "role": role, "alive": row["alive"],
            "role_name": role_name(role, lang) if isinstance(role, str) and has(f"role.{role}", lang) else role}


def _phase_key(phase: str) -> int:
    """setup 0, night k 2k-1, day k 2k (anything else: where it stands)."""
    for prefix, offset in (("night", -1), ("day", 0)):
        if phase.startswith(prefix) and phase[len(prefix):].isdigit():
            return 2 * int(phase[len(prefix):]) + offset
    return 0 if phase == "setup" else -1


def _phase(phase: str, lang: str) -> str:
    try:
        return phase_name(phase, lang)
    except (KeyError, ValueError):
        return phase


def _viewer_name(viewer: int | str, lang: str) -> str:
    if viewer == ALL:
        return t("ui.replay.everything", lang)
    if viewer == PUBLIC:
        return t("ui.replay.public", lang)
    return t("ui.replay.as_seat", lang, n=viewer)


# -- rulings, for `werewolf explain` -------------------------------------------------------------
def rulings(record: Record, lang: str = "en") -> list[dict[str, Any]]:
    """Every event of the game that names its rule, in order, with the rule explained."""
    lang = normalize_lang(lang)
    ruleset, options = record.ruleset, record.options()
    out = []
    for i, e in enumerate(record.events):
        rule = e.get("rule")
        if not isinstance(rule, str) or not rule:
            continue
        plain = {k: v for k, v in e.items() if k != "to"}
        out.append({"i": i, "phase": e.get("phase"), "type": e.get("type"),
                    "text": narrate(plain, lang, None, ruleset=ruleset, options=options),
                    "seen_by": _audience(e, lang), "rule": explain(rule, lang, ruleset, options)})
    return out


def events_of(events: Iterable[Any]) -> list[dict[str, Any]]:
    """Log lines of engine events (``Event.as_json``), for a record made in memory."""
    return [e.as_json() if hasattr(e, "as_json") else dict(e) for e in events]
