"""`werewolf arena`: agent kinds against each other, seats and roles rotated fairly.

Fair rotation (duplicate play, as in duplicate bridge). With K kinds, the games
come in blocks of K. Every game of block ``b`` is dealt from the same seed
(``game_seed(seed, b)``: the same cards in the same seats, the same rules' chance),
and in rotation ``r`` (0 … K-1) seat ``s`` is played by kind ``(s - 1 + r) mod K``.
Over one block every seat, hence every card dealt, is played once by each kind:
each kind plays each role exactly equally often, in the same situations, and the
luck of the deal falls on every kind alike. The number of games is rounded up to
whole blocks.

Reported per kind (over the seats it played, a seat-game each) and per kind and
role: win rates with 95% intervals counted by game (``werewolf.sim.stats.clustered``, as the
designer statistics' per-role intervals): the seat-games of one game are not independent trials
(teammates of one kind win or lose together), so the games are the units, and each row says its
design effect (how many of its seat-games one game's information is spread over). The blocks'
pairing, which these intervals ignore, makes the comparison between kinds more exact than they say.

The skill rating is OpenSkill's Plackett-Luce model (``pip install
'werewolf[arena]'``), updated game by game in game order: each game is a match
between the kinds seated in it, ranked by the share of their seats that won (kinds
on equal shares tie; a game where every kind did alike, a draw among them, is not
rated). Kinds share most games' two sides, so a game says only which kind's seats
fared better in it, the same question the duplicate rotation asks. Shown as μ, σ
and the conservative ordinal μ - 3σ.

Pairwise, the rotation pairs every two kinds exactly: in a block, each seat (its card, its deal)
is played once by each kind, so for kinds A and B each (block, seat) gives a paired difference,
A's result there minus B's. Reported per pair: the mean difference with a 95% interval over blocks
(the blocks are independent; the seats of one block are not), and how many (block, seat) pairs each
kind won alone. Every game's record goes into ``--out`` (``games``) and, with ``--run-dir``, into a
journal that a stopped arena continues from (``werewolf.sim.journal``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.core.game import Game
from werewolf.sim.config import SimConfig, game_seed, team_key
from werewolf.sim.stats import clustered


@dataclass(frozen=True)
class Seat:
    seat: int
    kind: str
    role: str
    won: bool


@dataclass(frozen=True)
class Played:
    """One game of the arena: its number, block and rotation, each seat's kind, card and result."""

    game: int
    block: int
    rotation: int
    seats: tuple[Seat, ...] = ()
    teams: tuple[str, ...] = ()  # the winning teams (none: a draw)
    error: str | None = None
    usage: tuple[tuple[int, dict[str, Any]], ...] = ()  # the LLM seats' usage: (seat, Usage.as_json)


def rotation_kinds(kinds: Sequence[str], players: int, rotation: int) -> dict[int, str]:
    """Seat ``s`` plays ``kinds[(s - 1 + rotation) % K]``."""
    k = len(kinds)
    return {s: kinds[(s - 1 + rotation) % k] for s in range(1, players + 1)}


def blocks(games: int, kinds: int) -> int:
    return -(-games // kinds)


def arena_record(config: SimConfig, kinds: Sequence[str], g: int, full: bool = False) -> dict[str, Any]:
    """Game ``g``'s record (``werewolf.sim.dataset``): block ``g // K``'s deal, rotation ``g % K``."""
    from werewolf.sim.journal import play_recorded
    from werewolf.sim.runner import base_setup

    k = len(kinds)
    b, r = divmod(g, k)
    game = Game(base_setup(config).with_seed(game_seed(config.seed, b)))
    dealt = [e.data["seat"] for e in game.events if e.type == "role" and e.phase == "setup"]
    rec = play_recorded(config, g, game, rotation_kinds(kinds, len(dealt), r), full)
    rec["block"], rec["rotation"] = b, r
    return rec


def played_of(rec: dict[str, Any]) -> Played:
    """The arena's view of a game record."""
    g, b, r = rec["game"], rec["block"], rec["rotation"]
    if rec.get("error"):
        return Played(g, b, r, error=rec["error"])
    winners = set(rec["winners"])
    seats = tuple(Seat(int(s), rec["agents"][s], role, int(s) in winners)
                  for s, role in sorted(rec["roles"].items(), key=lambda kv: int(kv[0])))
    usage = tuple((int(s), u) for s, u in (rec.get("usage") or {}).items())
    return Played(g, b, r, seats, tuple(rec["teams"]), usage=usage)


def play_one(config: SimConfig, kinds: Sequence[str], g: int) -> Played:
    """Game ``g``: block ``g // K``'s deal, rotation ``g % K``."""
    return played_of(arena_record(config, kinds, g))


def arena_chunk(config: SimConfig, kinds: tuple[str, ...], games: tuple[int, ...], full: bool = False
                ) -> list[dict[str, Any]]:
    return [arena_record(config, kinds, g, full) for g in games]


@dataclass
class Tally:
    """Seat-games and wins of one kind (or kind and card, or kind and side), game by game: with the sums over
    the games of n_g², k_g² and k_g·n_g (n_g: its seats in game g, k_g: those that won) for an interval that
    counts games, not seats (``clustered``)."""

    n: int = 0
    wins: int = 0
    games: int = 0
    n2: int = 0
    k2: int = 0
    kn: int = 0

    def add_game(self, seats: int, wins: int) -> None:
        """One game's ``seats`` seat-games of this row, ``wins`` of them won."""
        self.n += seats
        self.wins += wins
        self.games += 1
        self.n2 += seats * seats
        self.k2 += wins * wins
        self.kn += wins * seats

    def interval(self) -> tuple[float, float, float]:
        """The 95% interval of the win rate with the games as the units, and the design effect."""
        return clustered(self.wins, self.n, self.k2, self.n2, self.kn, self.games)

    def row(self) -> dict[str, Any]:
        lo, hi, deff = self.interval() if self.n else (0.0, 1.0, 1.0)
        return {"seat_games": self.n, "wins": self.wins, "win_rate": self.wins / self.n if self.n else None,
                "interval": [lo, hi], "games": self.games, "design_effect": deff}


@dataclass
class Result:
    kinds: tuple[str, ...]
    games: list[Played] = field(default_factory=list)
    by_kind: dict[str, Tally] = field(default_factory=dict)
    by_role: dict[tuple[str, str], Tally] = field(default_factory=dict)
    by_side: dict[tuple[str, str], Tally] = field(default_factory=dict)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # kind -> (mu, sigma)
    errors: list[Played] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)  # ``pairwise``
    records: list[dict[str, Any]] = field(default_factory=list)  # every game's record, without its log


def tally(kinds: tuple[str, ...], played: list[Played]) -> Result:
    """The statistics and the ratings of the games, taken in game order."""
    res = Result(kinds, sorted(played, key=lambda p: p.game))
    res.by_kind = {k: Tally() for k in kinds}
    for p in res.games:
        if p.error is not None:
            res.errors.append(p)
            continue
        # each row's seats of this game, then the game once per row: its seats win or lose together
        kind: Counter[tuple[str, bool]] = Counter()
        role: Counter[tuple[str, str, bool]] = Counter()
        side: Counter[tuple[str, str, bool]] = Counter()
        for s in p.seats:
            kind[s.kind, s.won] += 1
            role[s.kind, s.role, s.won] += 1
            side[s.kind, team_key(s.role), s.won] += 1
        for k in {k for k, _ in kind}:
            res.by_kind[k].add_game(kind[k, True] + kind[k, False], kind[k, True])
        for of, rows in ((role, res.by_role), (side, res.by_side)):
            for key in {(k, r) for k, r, _ in of}:
                rows.setdefault(key, Tally()).add_game(of[(*key, True)] + of[(*key, False)], of[(*key, True)])
    res.ratings = rate(kinds, [p for p in res.games if p.error is None])
    res.pairs = pairwise(kinds, res.games)
    return res


def pairwise(kinds: Sequence[str], games: Sequence[Played]) -> list[dict[str, Any]]:
    """For each two kinds A, B: A's result minus B's in the same seat of the same deal, per block.

    Blocks with a failed game are left out (a seat of theirs has no pair)."""
    import math

    by_block: dict[int, list[Played]] = {}
    for p in games:
        by_block.setdefault(p.block, []).append(p)
    won: dict[int, dict[tuple[str, int], bool]] = {}
    for b, ps in by_block.items():
        if len(ps) != len(kinds) or any(p.error is not None for p in ps):
            continue
        won[b] = {(s.kind, s.seat): s.won for p in ps for s in p.seats}
    out = []
    for i, a in enumerate(kinds):
        for bk in kinds[i + 1:]:
            diffs: list[float] = []
            a_only = b_only = both = neither = 0
            for w in won.values():
                seats = sorted({seat for _, seat in w})
                d = 0
                for seat in seats:
                    wa, wb = w[(a, seat)], w[(bk, seat)]
                    d += wa - wb
                    a_only += wa and not wb
                    b_only += wb and not wa
                    both += wa and wb
                    neither += not wa and not wb
                diffs.append(d / len(seats))
            n = len(diffs)
            mean = sum(diffs) / n if n else None
            half = None
            if n >= 2 and mean is not None:
                sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1))
                half = 1.96 * sd / math.sqrt(n)
            out.append({"a": a, "b": bk, "blocks": n, "pairs": a_only + b_only + both + neither,
                        "a_only": a_only, "b_only": b_only, "both": both, "neither": neither,
                        "mean_difference": mean,
                        "interval": [mean - half, mean + half] if mean is not None and half is not None else None})
    return out


def rate(kinds: Sequence[str], games: Sequence[Played]) -> dict[str, tuple[float, float]]:
    """Each kind's OpenSkill (Plackett-Luce) rating after ``games``, in order: (μ, σ)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise SetupError("werewolf arena rates the kinds with OpenSkill: pip install 'werewolf[arena]'") from None
    model = PlackettLuce()
    ratings = {k: model.rating(name=k) for k in kinds}
    for p in games:
        share: dict[str, list[int]] = {}
        for s in p.seats:
            share.setdefault(s.kind, []).append(s.won)
        scores = {k: sum(v) / len(v) for k, v in share.items()}
        if len(scores) < 2 or len(set(scores.values())) == 1:
            continue  # a tie between every kind (a draw, or all won alike): nothing to learn
        order = list(scores)
        rated = model.rate([[ratings[k]] for k in order], scores=[scores[k] for k in order])
        for k, (r,) in zip(order, rated):
            ratings[k] = r
    return {k: (r.mu, r.sigma) for k, r in ratings.items()}


def run(config: SimConfig, kinds: tuple[str, ...], games: int, session: Any,
        progress: Callable[[int], None] | None = None, run_dir: Any = None,
        logs: Callable[[dict[str, Any]], None] | None = None) -> Result:
    """Play ``games`` (rounded up to whole blocks) on ``session``'s workers and tally them; the games
    already in ``run_dir``'s journal are not played again, and new ones go into it as they finish."""
    from werewolf.sim.journal import slim

    total = blocks(games, len(kinds)) * len(kinds)
    cfg = replace(config, games=total)
    full = logs is not None or run_dir is not None
    records: dict[int, dict[str, Any]] = {}
    if run_dir is not None:
        records = {g: r for g, r in run_dir.done.items() if 0 <= g < total and not r.get("error")}
    if logs is not None:
        for g in sorted(records):
            logs(records[g])
    if progress is not None and records:
        progress(len(records))
    todo = [g for g in range(total) if g not in records]
    records = {g: slim(r) for g, r in records.items()}
    for _, chunk in session.map(arena_chunk, ((cfg, kinds, c, full) for c in _chunks(cfg, kinds, todo))):
        for rec in chunk:
            if run_dir is not None:
                run_dir.append(rec)
            if logs is not None:
                logs(rec)
            records[rec["game"]] = slim(rec)
        if progress is not None:
            progress(len(chunk))
    res = tally(kinds, [played_of(records[g]) for g in sorted(records)])
    res.records = [records[g] for g in sorted(records)]
    return res


def _chunks(config: SimConfig, kinds: Sequence[str], todo: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    # whole blocks a chunk: a block's games share a deal, and a worker builds its setup once; a block a
    # chunk for LLM seats, whose games are slow: the workers share them out and the journal keeps each
    games = list(range(config.games)) if todo is None else list(todo)
    k = len(kinds)
    llm = any(kind.startswith("llm:") for kind in kinds)
    size = k if llm else max(k, config.chunk_size() // k * k)
    return [tuple(games[a:a + size]) for a in range(0, len(games), size)]


def check_kinds(kinds: Sequence[str], endpoints: Any = ()) -> tuple[str, ...]:
    from werewolf.agents.kinds import check_kind

    if len(kinds) < 2:
        raise SetupError("werewolf arena needs at least two agent kinds, e.g. heuristic random")
    checked = tuple(check_kind(k, endpoints) for k in kinds)
    if len(set(checked)) != len(checked):
        raise SetupError("an agent kind is named twice")
    return checked


def document(res: Result, config: SimConfig) -> dict[str, Any]:
    """The results as JSON."""
    return {
        "config": {**config.describe(), "kinds": list(res.kinds)},
        "method": "blocks of K games on one deal; in rotation r seat s is played by kind (s-1+r) mod K; "
                  "95% intervals of the win rates with the games as the units (seats of a game clustered: Wilson's at "
                  "the effective number of seat-games); OpenSkill Plackett-Luce, each game a match of the kinds "
                  "ranked by the share of their seats that won",
        "games": len(res.games) - len(res.errors),
        "errors": [{"game": p.game, "error": p.error} for p in res.errors],
        "kinds": {k: {**res.by_kind[k].row(), "rating": {"mu": res.ratings[k][0], "sigma": res.ratings[k][1],
                                                         "ordinal": res.ratings[k][0] - 3 * res.ratings[k][1]}}
                  for k in res.kinds},
        "roles": [{"kind": k, "role": r, **t.row()} for (k, r), t in sorted(res.by_role.items())],
        "sides": [{"kind": k, "side": s, **t.row()} for (k, s), t in sorted(res.by_side.items())],
        "pairwise": res.pairs,
        "llm_usage": usage_totals(res.records),
        "game_records": [game_row(r) for r in res.records],
    }


def game_row(rec: dict[str, Any]) -> dict[str, Any]:
    """One game of ``--out``: its number, block, rotation and seed, each seat's kind, card and result."""
    winners = set(rec.get("winners") or ())
    return {"game": rec["game"], "block": rec["block"], "rotation": rec["rotation"], "seed": rec["seed"],
            "seats": [{"seat": int(s), "kind": rec["agents"][s], "role": role, "won": int(s) in winners}
                      for s, role in sorted(rec["roles"].items(), key=lambda kv: int(kv[0]))],
            "teams": rec["teams"], "days": rec.get("days"), "error": rec.get("error"),
            **({"usage": rec["usage"]} if rec.get("usage") else {})}


def usage_totals(records: list[dict[str, Any]]) -> dict[str, Any]:
    from werewolf.sim.journal import usage_totals as totals

    return totals(records)


def labels(kinds: Sequence[str]) -> dict[str, str]:
    """Short column labels (A, B, …) for the kinds: their names may be long (llm:MODEL@URL?…) and alike."""
    return {k: (chr(ord("A") + i) if i < 26 else f"K{i + 1}") for i, k in enumerate(kinds)}


def tables(res: Result) -> list[Any]:
    """Rich tables: the kinds (win rate, interval, rating), and each role by kind."""
    from rich.table import Table

    def pct(t: Tally) -> tuple[str, str]:
        if not t.n:
            return "-", "-"
        lo, hi, _ = t.interval()
        return f"{t.wins / t.n:.1%}", f"{lo:.1%} – {hi:.1%}"

    label = labels(res.kinds)
    kinds = Table(title="agent kinds")
    kinds.add_column("", no_wrap=True)
    kinds.add_column("kind", overflow="fold", ratio=3)  # a long name folds onto more lines, never cut short
    for col in ("seat-games", "wins", "win rate", "95% interval (by game)", "rating μ ± σ", "μ - 3σ"):
        kinds.add_column(col, justify="right", ratio=1)
    for k in sorted(res.kinds, key=lambda k: -(res.ratings[k][0] - 3 * res.ratings[k][1])):
        tk = res.by_kind[k]
        mu, sigma = res.ratings[k]
        kinds.add_row(label[k], k, str(tk.n), str(tk.wins), *pct(tk), f"{mu:.2f} ± {sigma:.2f}",
                      f"{mu - 3 * sigma:.2f}")
    out = [kinds]
    for title, table_of in (("each side: win rate by kind", res.by_side), ("each role: win rate by kind",
                                                                             res.by_role)):
        rows = sorted({r for _, r in table_of})
        t = Table(title=title)
        t.add_column("side" if table_of is res.by_side else "card dealt")
        for k in res.kinds:
            t.add_column(label[k], justify="right")
        for r in rows:
            cells = []
            for k in res.kinds:
                tl = table_of.get((k, r))
                if tl is None or not tl.n:
                    cells.append("-")
                else:
                    rate, interval = pct(tl)
                    cells.append(f"{rate} ({interval}, n={tl.n})")
            t.add_row(r, *cells)
        out.append(t)
    if res.pairs:
        pt = Table(title="pairwise: X against Y in the same seat of the same deal (per seat-game; 95% over "
                         "blocks)")
        for col in ("X", "Y", "blocks", "X won, Y lost", "Y won, X lost", "mean X − Y", "95% interval"):
            pt.add_column(col, justify="left" if col in ("X", "Y") else "right")
        for p in res.pairs:
            mean, iv = p["mean_difference"], p["interval"]
            pt.add_row(label[p["a"]], label[p["b"]], str(p["blocks"]), str(p["a_only"]), str(p["b_only"]),
                       "-" if mean is None else f"{mean:+.1%}",
                       "-" if iv is None else f"{iv[0]:+.1%} … {iv[1]:+.1%}")
        out.append(pt)
    return out
