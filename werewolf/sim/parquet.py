"""Game records (``werewolf.game/1``) as Parquet tables, through pyarrow (``pip install 'werewolf[data]'``).

One folder, one file per table, every row keyed by ``game`` (and the row's place within it):

- ``games.parquet``: game, seed, ruleset, players, teams, winners, days, error, schema;
- ``seats.parquet``: game, seat, kind, role, won, and the LLM seats' usage (calls, tokens, cost…);
- ``talk.parquet``: game, n, seat, phase, events (the log entries out when said), text (null: acts only),
  acts (a list of {kind, target, role, result});
- ``decisions.parquet``: game, n, seat, phase, act, events, talk (the view's extent), answer (JSON);
- ``beliefs.parquet``: game, decision (its n), seat (who believes), about (the seat believed of), role,
  truth (the role ``about`` was dealt), correct;
- ``events.parquet``: game, n, type, phase, to (null: public), data (the other fields, JSON).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from werewolf.sim.extras import require

TABLES = ("games", "seats", "talk", "decisions", "beliefs", "events")
USAGE = ("calls", "prompt_tokens", "completion_tokens", "total_tokens", "retries", "failed_calls", "fallbacks")


def rows(records: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The records' rows, table by table."""
    out: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    for rec in records:
        g = rec["game"]
        out["games"].append({"game": g, "seed": rec.get("seed"), "ruleset": rec.get("ruleset"),
                             "players": rec.get("players"), "teams": list(rec.get("teams") or []),
                             "winners": list(rec.get("winners") or []), "days": rec.get("days"),
                             "error": rec.get("error"), "schema": rec.get("schema")})
        roles = rec.get("roles") or {}
        winners = set(rec.get("winners") or [])
        usage = rec.get("usage") or {}
        for s, role in sorted(roles.items(), key=lambda kv: int(kv[0])):
            u = usage.get(s) or {}
            out["seats"].append({"game": g, "seat": int(s), "kind": (rec.get("agents") or {}).get(s), "role": role,
                                 "won": int(s) in winners, **{k: u.get(k) for k in USAGE},
                                 "cost": u.get("cost"), "latency_s": u.get("latency_s")})
        for n, t in enumerate(rec.get("talk") or []):
            out["talk"].append({"game": g, "n": n, "seat": t["seat"], "phase": t["phase"], "events": t["events"],
                                "text": t.get("text"),
                                "acts": [{"kind": a["kind"], "target": a.get("target"), "role": a.get("role"),
                                          "result": a.get("result")} for a in t.get("acts") or []]})
        for n, d in enumerate(rec.get("decisions") or []):
            out["decisions"].append({"game": g, "n": n, "seat": d["seat"], "phase": d["phase"], "act": d["act"],
                                     "events": d["events"], "talk": d["talk"], "answer": json.dumps(d.get("answer"))})
            for about, role in (d.get("belief") or {}).items():
                truth = roles.get(about)
                out["beliefs"].append({"game": g, "decision": n, "seat": d["seat"], "about": int(about), "role": role,
                                       "truth": truth, "correct": truth is not None and role == truth})
        for n, e in enumerate(rec.get("events") or []):
            data = {k: v for k, v in e.items() if k not in ("type", "phase", "to")}
            out["events"].append({"game": g, "n": n, "type": e["type"], "phase": e["phase"], "to": e.get("to"),
                                  "data": json.dumps(data, ensure_ascii=False)})
    return out


def schemas() -> dict[str, Any]:
    """Each table's Arrow schema (fixed, so that an empty table has its columns, and files of several runs
    concatenate)."""
    import pyarrow as pa

    i64, s, b, f = pa.int64(), pa.string(), pa.bool_(), pa.float64()
    act = pa.struct([("kind", s), ("target", i64), ("role", s), ("result", s)])
    return {
        "games": pa.schema([("game", i64), ("seed", i64), ("ruleset", s), ("players", i64), ("teams", pa.list_(s)),
                            ("winners", pa.list_(i64)), ("days", i64), ("error", s), ("schema", s)]),
        "seats": pa.schema([("game", i64), ("seat", i64), ("kind", s), ("role", s), ("won", b),
                            *((k, i64) for k in USAGE), ("cost", f), ("latency_s", f)]),
        "talk": pa.schema([("game", i64), ("n", i64), ("seat", i64), ("phase", s), ("events", i64), ("text", s),
                           ("acts", pa.list_(act))]),
        "decisions": pa.schema([("game", i64), ("n", i64), ("seat", i64), ("phase", s), ("act", s), ("events", i64),
                                ("talk", i64), ("answer", s)]),
        "beliefs": pa.schema([("game", i64), ("decision", i64), ("seat", i64), ("about", i64), ("role", s),
                              ("truth", s), ("correct", b)]),
        "events": pa.schema([("game", i64), ("n", i64), ("type", s), ("phase", s), ("to", pa.list_(i64)),
                             ("data", s)]),
    }


def export(records: Iterable[Mapping[str, Any]], folder: str) -> dict[str, int]:
    """Write the records' tables to ``folder``/<table>.parquet; returns each table's row count."""
    require("pyarrow", "data", "the Parquet export")
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(folder, exist_ok=True)
    tables = rows(records)
    counts = {}
    for name, schema in schemas().items():
        table = pa.Table.from_pylist(tables[name], schema=schema)
        pq.write_table(table, os.path.join(folder, f"{name}.parquet"), compression="zstd")
        counts[name] = table.num_rows
    return counts
