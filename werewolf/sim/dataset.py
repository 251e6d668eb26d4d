"""Game records: one JSON object per game, for datasets (``simulate --logs``, ``--run-dir``, ``arena``).

A record (schema ``werewolf.game/1``, documented in docs/datasets.md) holds who played which seat
(``agents``), the cards dealt (``roles``), the result, the whole log with each event's audience
(``events``), everything said (``talk``: the words, when words were said, and the statements read
from them), every decision with its answer and the number of log entries out when it was asked
(``decisions``: with ``events`` and ``talk``, the exact view of the seat at that moment, see
``view_at``), each agent's stated belief of every seat's role where it gives one, the LLM seats'
usage (calls, tokens, cost), and the statistics' summary of the game (``summary``: what resumes a
run without playing the game again).

Games are played here through a ``Host`` that records as it goes (``RecordingHost``); the agents
are built from the seat kinds (``werewolf.agents.kinds.build``) from the game's seed, as the
simulation's own loops seat them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from werewolf.agents import Agent, Host, Said
from werewolf.agents.speech import Act
from werewolf.core.decisions import Decision
from werewolf.core.game import Game

SCHEMA: Final = "werewolf.game/1"


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in (sorted(value) if isinstance(value, (set, frozenset)) else value)]
    return str(value)


def _act(a: Act) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": a.kind}
    for k in ("target", "role", "result"):
        v = getattr(a, k)
        if v is not None:
            out[k] = v
    return out


class Recorder:
    """Keeps every decision of a ``Host``'s game (when it was asked, its answer, the agent's new belief)
    and every speaking turn (the words, the statements): ``Host.recorder``."""

    def __init__(self) -> None:
        self.decisions: list[dict[str, Any]] = []
        self.speeches: list[dict[str, Any]] = []
        self._open: tuple[int, int, int, str] = (0, 0, 0, "")
        self._beliefs: dict[int, dict[int, str]] = {}

    def asked(self, host: Host, decision: Decision) -> None:
        game = host.game
        self._open = (len(game.events), len(self.speeches), len(game.answers), game.phase)

    def answered(self, host: Host, decision: Decision) -> None:
        game = host.game
        at, talk, answered, phase = self._open
        value = game.answers[answered][2] if len(game.answers) > answered else None
        row: dict[str, Any] = {"seat": decision.seat, "phase": phase, "act": decision.act, "events": at,
                               "talk": talk, "answer": _jsonable(value)}
        belief = self._belief(host.agent(decision.seat), decision.seat)
        if belief is not None:
            row["belief"] = {str(k): v for k, v in sorted(belief.items())}
        self.decisions.append(row)

    def _belief(self, agent: Agent | None, seat: int) -> dict[int, str] | None:
        held = getattr(agent, "belief", None)
        if not isinstance(held, dict):
            return None
        belief = held.get(seat)
        if not belief or self._beliefs.get(seat) == belief:
            return None  # stated with this decision only when it is new
        self._beliefs[seat] = dict(belief)
        return belief

    def said(self, host: Host, seat: int, said: Said, acts: list[Act], at: int) -> None:
        self.speeches.append({"seat": seat, "phase": host.game.phase, "events": at,
                              "text": said if isinstance(said, str) else None, "acts": [_act(a) for a in acts]})


def RecordingHost(game: Game, agents: Mapping[int, Agent], free_speech: bool = True) -> Host:  # noqa: N802
    """A ``Host`` whose ``recorder`` keeps its game's decisions and talk."""
    host = Host(game, agents, free_speech=free_speech)
    host.recorder = Recorder()
    return host


def summary(game: Game) -> dict[str, Any]:
    """What the simulation's statistics count of a finished game (``Stats.add``'s arguments)."""
    from werewolf.sim.runner import powers_used, seat_outcomes, summarize

    teams, days, causes, fired, ending = summarize(game.events)
    return {"teams": teams, "days": days, "causes": causes, "fired": fired, "ending": ending,
            "decisions": game.answered, "seats": [list(s) for s in seat_outcomes(game.events)],
            "powers": powers_used(game.events)}


def add_to(stats: Any, record: Mapping[str, Any]) -> None:
    """A record's game added into a ``Stats`` (its error, if it failed)."""
    if record.get("error"):
        stats.add_error(record["game"], record["seed"], record["error"])
        return
    s = record["summary"]
    stats.add(s["teams"], s["days"], s["causes"], s["fired"], s["ending"], s["decisions"],
              [tuple(x) for x in s["seats"]], s["powers"])


def usage_of(agents: Mapping[int, Agent]) -> dict[str, dict[str, Any]]:
    """Each LLM seat's usage (seats whose agent counts its calls)."""
    out: dict[str, dict[str, Any]] = {}
    for seat, agent in sorted(agents.items()):
        usage = getattr(agent, "usage", None)
        if callable(usage):
            out[str(seat)] = usage()
    return out


def record(i: int, game: Game, kinds: Mapping[int, str], host: Host | None, agents: Mapping[int, Agent],
           error: str | None = None, full: bool = True) -> dict[str, Any]:
    """Game ``i``'s record (``full``: with its log, talk and decisions; else the summary alone)."""
    roles = {e.data["seat"]: e.data["role"] for e in game.events if e.type == "role" and e.phase == "setup"}
    result = game.result if game.over else None
    rec: dict[str, Any] = {
        "schema": SCHEMA, "game": i, "seed": game.setup.seed, "ruleset": game.setup.ruleset,
        "players": len(roles), "agents": {str(s): k for s, k in sorted(kinds.items())},
        "roles": {str(s): r for s, r in sorted(roles.items())},
        "teams": list(result[0]) if result else [], "winners": sorted(result[1]) if result else [],
        "error": error, "usage": usage_of(agents),
    }
    rec["summary"] = summary(game) if error is None else None
    if rec["summary"] is not None:
        rec["days"] = rec["summary"]["days"]
    if full:
        rec["events"] = [e.as_json() for e in game.events]
        recorder = host.recorder if host is not None else None
        rec["talk"] = recorder.speeches if recorder is not None else []
        rec["decisions"] = recorder.decisions if recorder is not None else []
    return rec


def view_at(rec: Mapping[str, Any], k: int) -> list[dict[str, Any]]:
    """What the seat of decision ``k`` of ``rec`` had seen when it was asked: every event of the log out
    by then that it may see (public, or addressed to it), and everything said by then, in order."""
    d = rec["decisions"][k]
    seat = d["seat"]
    talk = rec["talk"][: d["talk"]]
    out: list[dict[str, Any]] = []
    t = 0
    for n, e in enumerate(rec["events"][: d["events"]]):
        while t < len(talk) and talk[t]["events"] <= n:
            out.append({"type": "talk", **talk[t]})
            t += 1
        to = e.get("to")
        if to is None or seat in to:
            out.append(e)
    out.extend({"type": "talk", **x} for x in talk[t:])
    return out


def latest_records(path: str) -> list[dict[str, Any]]:
    """A file's records, one per game (a run directory's journal may hold a failed game, then its replay:
    the latest counts), in game order."""
    by_game: dict[Any, dict[str, Any]] = {}
    for rec in iter_records(path):
        by_game[rec.get("game")] = rec
    return [by_game[g] for g in sorted(by_game, key=lambda g: (not isinstance(g, int), g if isinstance(g, int)
                                                                else 0))]


def iter_records(path: str) -> Iterator[dict[str, Any]]:
    """The records of a JSON Lines file (a line cut short by a killed run is skipped)."""
    import json

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict):
                yield rec


def metrics(records: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> dict[str, Any]:
    """Deception and belief accuracy per agent kind, from records with talk and decisions.

    Per kind: ``claims`` (role claims made) and ``false_claims`` (claiming a role not dealt: a lie, or a
    bluff), ``checks`` (check reports with a result) and ``false_checks`` (a result the target's card
    contradicts: wolf for a good card, good for a wolf), ``beliefs`` (a stated role for another seat,
    "unknown" left out) and ``correct_beliefs`` (the role it was dealt), with the rates."""
    from werewolf.sim.config import team_key

    per: dict[str, dict[str, int]] = {}
    games = 0
    for rec in records:
        if rec.get("schema") != SCHEMA:
            continue
        games += 1
        roles = {int(s): r for s, r in (rec.get("roles") or {}).items()}
        agents = {int(s): k for s, k in (rec.get("agents") or {}).items()}

        def row(seat: int, agents: dict[int, str] = agents) -> dict[str, int]:
            return per.setdefault(agents.get(seat, "?"), {"claims": 0, "false_claims": 0, "checks": 0,
                                                          "false_checks": 0, "beliefs": 0, "correct_beliefs": 0})

        for t in rec.get("talk") or []:
            r = row(t["seat"])
            for a in t.get("acts") or []:
                if a["kind"] == "claim" and a.get("role"):
                    r["claims"] += 1
                    r["false_claims"] += a["role"] != roles.get(t["seat"])
                elif a["kind"] == "check" and a.get("result") in ("wolf", "good") and a.get("target") in roles:
                    r["checks"] += 1
                    wolf = team_key(roles[a["target"]]) == "wolves"
                    r["false_checks"] += (a["result"] == "wolf") != wolf
        for d in rec.get("decisions") or []:
            r = row(d["seat"])
            for about, role in (d.get("belief") or {}).items():
                if int(about) == d["seat"] or role == "unknown" or int(about) not in roles:
                    continue
                r["beliefs"] += 1
                r["correct_beliefs"] += role == roles[int(about)]
    for r in per.values():
        r_any: dict[str, Any] = r  # the rates beside the counts
        r_any["false_claim_rate"] = r["false_claims"] / r["claims"] if r["claims"] else None
        r_any["false_check_rate"] = r["false_checks"] / r["checks"] if r["checks"] else None
        r_any["belief_accuracy"] = r["correct_beliefs"] / r["beliefs"] if r["beliefs"] else None
    return {"games": games, "kinds": dict(sorted(per.items()))}
