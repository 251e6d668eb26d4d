"""Scripted games (SCRIPTED_GAMES.md, shipped as docs/scripted-games.md): run a file of fixed moves.

The engine asks, the script answers: each decision takes the move of that
seat and act from the current phase's list, or its default. A move the game
never asked for is illegal, like a move the rules forbid.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

from werewolf.core.errors import IllegalMove, SetupError, WerewolfError
from werewolf.core.events import Event
from werewolf.core.game import Game, Setup

PHASE = re.compile(r"^(night|day)([1-9][0-9]*)$")

# Every act of SCRIPTED_GAMES.md, with the roles whose seat may make it at night.
NIGHT_ACTS: dict[str, tuple[str, ...]] = {
    "take": ("thief", "drunk", "devoted_servant"), "link": ("cupid",), "model": ("wild_child",),
    "guard": ("guard",), "dream": ("dreamcatcher",), "charm": ("wolf_beauty",),
    "save": ("witch",), "poison": ("witch",), "check": ("seer",), "silence": ("silencer",),
    "enchant": ("piper",), "shield": ("guard",), "curse": ("raven",), "sniff": ("fox",),
    "extra_kill": ("big_bad_wolf", "white_wolf"), "infect": ("wolf_father",), "support": ("half_blood",),
    "oppose": ("prejudiced",), "side": ("wolf_hound",), "copy": ("doppelganger",), "peek": ("werewolf",),
    "look": ("seer",), "rob": ("robber",), "swap": ("magician", "troublemaker"),
}
OTHER_ACTS = {"kill", "widow_kill", "run", "withdraw", "sheriff_vote", "sheriff_pk_vote", "order", "badge",
              "vote", "pk_vote", "shoot", "explode", "duel", "reveal", "ban", "second_vote"}
ACTS = frozenset(NIGHT_ACTS) | OTHER_ACTS


class ScriptError(WerewolfError):
    """The file cannot be run: malformed, or a move the rules do not allow."""


@dataclass
class Script:
    setup: Setup
    moves: dict[str, list[dict[str, Any]]]
    expect: dict[str, Any] | None
    last_day: int


@dataclass
class Outcome:
    events: list[Event] = field(default_factory=list)
    error: str | None = None


def load(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise ScriptError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScriptError(f"cannot read {path}: {e}") from None
    except json.JSONDecodeError as e:
        raise ScriptError(f"{path} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(doc, dict):
        raise ScriptError("a scripted game is a JSON object")
    return doc


def parse(doc: dict[str, Any]) -> Script:
    ruleset = doc.get("ruleset")
    if not isinstance(ruleset, str):
        raise ScriptError("'ruleset' is required (classic, facetoface, wechat, onuw or onenight)")
    seats = doc.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(r, str) for r in seats):
        raise ScriptError("'seats' must be a non-empty list of role ids")
    center = doc.get("center", [])
    if not isinstance(center, list) or not all(isinstance(r, str) for r in center):
        raise ScriptError("'center' must be a list of role ids")
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise ScriptError("'options' must be an object")
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScriptError("'seed' must be an integer")
    raw_moves = doc.get("moves", {})
    if not isinstance(raw_moves, dict):
        raise ScriptError("'moves' must be an object of phases to lists of moves")
    moves: dict[str, list[dict[str, Any]]] = {}
    last_day = 1
    for phase, lst in raw_moves.items():
        m = PHASE.match(phase) if isinstance(phase, str) else None
        if m is None:
            raise ScriptError(f"unknown phase {phase!r} (phases are night1, day1, night2, ...)")
        last_day = max(last_day, int(m[2]))
        if not isinstance(lst, list):
            raise ScriptError(f"{phase}: moves must be a list")
        for mv in lst:
            _check_move(phase, mv, len(seats))
        moves[phase] = [dict(mv) for mv in lst]
    expect = doc.get("expect")
    if expect is not None and not isinstance(expect, dict):
        raise ScriptError("'expect' must be an object")
    setup = Setup(ruleset=ruleset, seats=tuple(seats), center=tuple(center), options=options, seed=seed,
                  stop_after_day=last_day)
    return Script(setup, moves, expect, last_day)


def _check_move(phase: str, mv: Any, n: int) -> None:
    if not isinstance(mv, dict):
        raise ScriptError(f"{phase}: a move must be an object, not {mv!r}")
    seat, act = mv.get("seat"), mv.get("act")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ScriptError(f"{phase}: a move needs a seat number: {json.dumps(mv)}")
    if not isinstance(act, str):
        raise IllegalMove(phase, seat, None, "a move needs an 'act'")
    if act not in ACTS:
        raise IllegalMove(phase, seat, act, "unknown act")
    if not 1 <= seat <= n:
        raise IllegalMove(phase, seat, act, f"there is no seat {seat} (seats are 1–{n})")


def run(script: Script) -> Outcome:
    """Play the script; any rule broken is the outcome's ``error`` (one line)."""
    out = Outcome()
    try:
        game = Game(script.setup)
    except SetupError as e:
        out.error = f"setup: {e}"
        return out
    out.events = game.events
    used: set[tuple[str, int]] = set()
    try:
        while not game.over:
            phase = game.phase
            todo = script.moves.get(phase, [])
            for d in list(game.request):
                found = [i for i, mv in enumerate(todo)
                         if (phase, i) not in used and mv["seat"] == d.seat and d.accepts(mv)]
                if len({todo[i]["act"] for i in found}) > 1:
                    acts = " and ".join(todo[i]["act"] for i in found)
                    rule = getattr(d, "conflict", "") or f"one answer is asked for, the script gives {acts}"
                    raise IllegalMove(phase, d.seat, todo[found[1]]["act"], rule)
                # Several moves of the same act answer this decision and the later ones
                # of the phase in file order (a second vote called by the stuttering judge).
                if found:
                    used.add((phase, found[0]))
                    mv = {k: v for k, v in todo[found[0]].items() if k != "seat"}
                    game.answer(d.seat, mv)
                else:
                    game.decline(d)
        for phase, todo in script.moves.items():
            for i, mv in enumerate(todo):
                if (phase, i) not in used:
                    raise IllegalMove(phase, mv["seat"], mv["act"], _why_not_asked(game, phase, mv, todo))
    except IllegalMove as e:
        out.error = str(e)
    return out


def _why_not_asked(game: Game, phase: str, mv: dict[str, Any], same_phase: list[dict[str, Any]]) -> str:
    """Name the rule that kept the game from asking for this move."""
    seat, act = mv["seat"], mv["act"]
    phases = [e.phase for e in game.events if PHASE.match(e.phase)]
    if phase not in phases:
        return "the game was over before this phase" if game.result else "this phase is never reached"
    table: Any = game.table
    explain = getattr(table, "why_not_asked", None)
    reason = explain(seat, act, phase) if explain is not None else None
    if reason:
        return str(reason)
    p = table.p(seat) if hasattr(table, "p") else None
    if p is not None:
        reason = _role_reason(game, table, p, phase, act, same_phase)
        if reason:
            return reason
    if game.result and phase == phases[-1]:
        return f"the game ended in {phase} before seat {seat} was asked to {act}"
    return f"the game never asks seat {seat} to {act} in {phase}"


def _role_reason(game: Game, table: Any, p: Any, phase: str, act: str,
                 same_phase: list[dict[str, Any]]) -> str | None:
    """The day-and-night reasons, most specific first."""
    seat = p.seat
    here = [e for e in game.events if e.phase == phase]
    if act == "shoot":
        if p.role in ("hunter", "wolf_king") and not p.alive and p.cause:
            if getattr(p, "disabled", False):
                return f"the {p.role} has lost his powers and cannot shoot"
            blocked: frozenset[str] = getattr(table.opts, f"{p.role}_blocked_causes", frozenset())
            if p.cause in blocked:
                return f"a {p.role} who dies by {p.cause} cannot shoot"
            return f"the {p.role}'s shot is asked once, when his death is resolved (he died in {p.death_phase})"
        return f"seat {seat} is not asked to shoot: only a hunter or wolf king may, as he dies"
    if act == "badge":
        return f"seat {seat} does not hold the badge when dying"
    if _died_before(game.events, seat, phase):
        night = "night" + phase[3:] if phase.startswith("day") else ""
        if act == "run" and p.death_phase == night and not getattr(table.opts, "sheriff_before_announcement", True):
            return (f"seat {seat} died in {night}, and the election follows the death announcement "
                    "(sheriff_before_announcement=false)")
        return f"seat {seat} is dead: dead players cannot {act}"
    roles = NIGHT_ACTS.get(act)
    if roles and phase.startswith("night") and p.role not in roles and p.dealt not in roles:
        if act == "kill" or act not in ("swap", "take", "peek", "look"):
            return f"seat {seat} is a {p.role}, and only a {' or '.join(roles)} can {act}"
    if act == "kill" and p.role == "hidden_wolf":
        return "the hidden wolf does not wake or kill with the pack"
    if act == "kill":
        return f"seat {seat} does not wake with the pack"
    if act == "explode" and p.role == "spirit_knight":
        return "the spirit knight cannot self-destruct"
    if act == "explode" and not getattr(table.opts, "self_destruct_allowed", True):
        return "this ruleset has no self-destruct (self_destruct_allowed=false)"
    if getattr(p, "disabled", False):
        return f"seat {seat} has lost its powers"
    if act in ("vote", "pk_vote") and getattr(p, "idiot_revealed", False):
        return "a revealed idiot cannot vote"
    if act in ("vote", "pk_vote", "duel") and any(e.type in ("explode", "duel") for e in here) \
            and not any(e.type == "votes" and e.data.get("round") == act for e in here):
        return "the day ended early (a self-destruct or a successful duel): there is no exile vote"
    if act in ("sheriff_vote", "sheriff_pk_vote"):
        ran = any(e.type == "candidates" and seat in e.data.get("seats", ()) for e in here)
        left = any(e.type == "withdraw" and e.data.get("seat") == seat for e in here)
        if left:
            return "a candidate who withdrew cannot vote in the sheriff election"
        if ran and getattr(table.opts, "sheriff_electorate", "") == "non_candidates":
            return "candidates do not vote in the sheriff election (sheriff_electorate=non_candidates)"
        tie_rule = getattr(table.opts, "sheriff_tie", "pk_then_none")
        if act == "sheriff_pk_vote" and tie_rule != "pk_then_none":
            return f"a tied sheriff election has no PK vote here (sheriff_tie={tie_rule})"
        if not any(e.type == "votes" and e.data.get("round") == act for e in here):
            return "no sheriff vote was held (too few candidates, or none)"
    if act == "pk_vote":
        tie_rule = getattr(table.opts, "exile_tie", "pk_then_none")
        if tie_rule != "pk_then_none":
            return f"a tied exile vote has no PK vote here (exile_tie={tie_rule})"
        return "only players outside the PK vote in it, and only after a tied vote"
    if p.role == "witch" and act in ("save", "poison"):
        return _witch_reason(game, table, p, phase, act, same_phase)
    return None


def _witch_reason(game: Game, table: Any, p: Any, phase: str, act: str,
                  same_phase: list[dict[str, Any]]) -> str | None:
    if act == "save" and not table.antidote and not _potion_used_in(game, phase, "save"):
        return "the witch's antidote is already used (each potion once per game: witch_potions_single_use=true)"
    if act == "poison" and not table.poison and not _potion_used_in(game, phase, "poison"):
        return "the witch's poison is already used (each potion once per game: witch_potions_single_use=true)"
    both = {m["act"] for m in same_phase if m["seat"] == p.seat} >= {"save", "poison"}
    if both and table.opts.witch_one_potion_per_night:
        return "the witch may use only one potion per night"
    if act == "save":
        told = [e for e in game.events if e.phase == phase and e.type == "victim"]
        victim = told[-1].data.get("target") if told else None
        if victim is None:
            return "the witch was shown no victim tonight, so there is nobody to save"
        if victim == p.seat:
            return f"the witch may not save herself here (witch_self_save={table.opts.witch_self_save})"
    return None


def _potion_used_in(game: Game, phase: str, act: str) -> bool:
    key = "save" if act == "save" else "poison"
    return any(e.type == "potions" and e.phase == phase and e.data.get(key) is not None for e in game.events)


def _died_before(events: list[Event], seat: int, phase: str) -> bool:
    """Whether ``seat`` was out of the game during all of ``phase``."""
    order = _phase_key(phase)
    for e in events:
        if e.type == "death" and e.data.get("seat") == seat and _phase_key(e.phase) < order:
            return True
    return False


def _phase_key(phase: str) -> tuple[int, int]:
    m = PHASE.match(phase)
    if not m:
        return (0, 0)
    return (int(m[2]), 0 if m[1] == "night" else 1)


# -- --check ------------------------------------------------------------------------
def compare(expect: dict[str, Any], out: Outcome) -> list[str]:
    """The differences between the expect block and the run, as readable lines."""
    diffs: list[str] = []
    if expect.get("error"):
        if out.error is None:
            diffs.append("expected the file to be rejected, but it ran")
        return diffs
    if out.error is not None:
        return [f"expected a game, but the file was rejected: {out.error}"]
    ev = [e.as_json(with_audience=False) for e in out.events]
    deaths: dict[str, set[int]] = {}
    causes: dict[int, str] = {}
    for e in ev:
        if e["type"] == "death":
            deaths.setdefault(e["phase"], set()).add(e["seat"])
            causes[e["seat"]] = e["cause"]
    for phase, seats in (expect.get("deaths") or {}).items():
        got = sorted(deaths.get(phase, set()))
        if got != sorted(seats):
            diffs.append(f"deaths in {phase}: expected {sorted(seats)}, got {got}")
    for seat, cause in (expect.get("causes") or {}).items():
        got_cause = causes.get(int(seat))
        if got_cause != cause:
            diffs.append(f"cause of seat {seat}'s death: expected {cause}, got {got_cause}")
    exiles = {e["phase"]: e["seat"] for e in ev if e["type"] == "exile"}
    for phase, seat in (expect.get("exiled") or {}).items():
        if exiles.get(phase, "none") != seat:
            diffs.append(f"exiled in {phase}: expected {seat}, got {exiles.get(phase, 'no exile vote')}")
    if "sheriff" in expect:
        sheriffs = [e["seat"] for e in ev if e["type"] == "sheriff"]
        got_sheriff = sheriffs[-1] if sheriffs else None
        if got_sheriff != expect["sheriff"]:
            diffs.append(f"sheriff at the end: expected {expect['sheriff']}, got {got_sheriff}")
    if "checks" in expect:
        checks = [e for e in ev if e["type"] == "check"]
        want = expect["checks"]
        got_checks = [{k: c.get(k) for k in w} for c, w in zip(checks, want)]
        if len(checks) != len(want) or got_checks != want:
            diffs.append(f"checks: expected {want}, got {[_strip(c) for c in checks]}")
    for key, etype, part in (("last_words", "last_words", None), ("speakers", "speech", "discussion")):
        for phase, seats in (expect.get(key) or {}).items():
            got_seats = [e["seat"] for e in ev if e["type"] == etype and e["phase"] == phase
                         and (part is None or e.get("part") == part)]
            if key == "last_words":
                ok = sorted(got_seats) == sorted(seats)
            else:
                ok = got_seats == seats
            if not ok:
                diffs.append(f"{key} in {phase}: expected {seats}, got {got_seats}")
    over = [e for e in ev if e["type"] == "game_over"]
    stopped = any(e["type"] == "stopped" for e in ev)
    if "teams" in expect:
        want_teams = expect["teams"]
        if "stopped" in want_teams:
            if not stopped:
                diffs.append(f"expected the run to stop without a winner, got {over[-1]['teams'] if over else '?'}")
        elif not over:
            diffs.append(f"expected teams {want_teams} to win, but the run stopped without a winner")
        elif sorted(over[-1]["teams"]) != sorted(want_teams):
            diffs.append(f"winning teams: expected {want_teams}, got {over[-1]['teams']}")
    if "seats" in expect:
        got_win = sorted(over[-1]["seats"]) if over else None
        if got_win != sorted(expect["seats"]):
            diffs.append(f"winning seats: expected {sorted(expect['seats'])}, got {got_win}")
    if "events" in expect:
        diffs += _missing_events(expect["events"], [e.as_json() for e in out.events])
    if "no_events" in expect:
        diffs += _unwanted_events(expect["no_events"], [e.as_json() for e in out.events])
    return diffs


def _missing_events(want: Any, log: list[dict[str, Any]]) -> list[str]:
    """``expect.events``: each item's fields (``type``, ``phase``, any field; ``to``: who saw it, ``[]`` the
    moderator only, ``null`` everyone) must be those of an event of the log, the items in the log's order."""
    if not isinstance(want, list) or not all(isinstance(w, dict) for w in want):
        return ["expect.events must be a list of objects (each an event's fields)"]
    at = 0
    for w in want:
        for i in range(at, len(log)):
            if _matches(log[i], w):
                at = i + 1
                break
        else:
            return [f"events: expected {w} (after the events matched before it), not in the log"]
    return []


def _matches(e: dict[str, Any], w: dict[str, Any]) -> bool:
    return all(e.get(k, _ABSENT) == v if k != "to" or v is not None else "to" not in e for k, v in w.items())


def _unwanted_events(unwanted: Any, log: list[dict[str, Any]]) -> list[str]:
    """``expect.no_events``: no event of the log has all the fields of any of these items."""
    if not isinstance(unwanted, list) or not all(isinstance(w, dict) for w in unwanted):
        return ["expect.no_events must be a list of objects (each an event's fields)"]
    return [f"events: expected none like {w}, got {e}" for w in unwanted for e in log if _matches(e, w)][:5]


_ABSENT: Final = object()


def _strip(e: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in e.items() if k != "type"}
