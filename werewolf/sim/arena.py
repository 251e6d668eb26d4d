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
role: win rates with 95% Wilson intervals (``werewolf.sim.stats.wilson``). The
seat-games of one game are not independent (teammates win together), so the
intervals are a little narrower than they should be; the blocks' pairing, which
they ignore, makes the comparison between kinds more exact than they say.

The skill rating is OpenSkill's Plackett-Luce model (``pip install
'werewolf[arena]'``), updated game by game in game order: each game is a match
between the kinds seated in it, ranked by the share of their seats that won (kinds
on equal shares tie; a game where every kind did alike, a draw among them, is not
rated). Kinds share most games' two sides, so a game says only which kind's seats
fared better in it, the same question the duplicate rotation asks. Shown as μ, σ
and the conservative ordinal μ - 3σ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.core.game import Game
from werewolf.sim.config import SimConfig, game_seed, team_key
from werewolf.sim.stats import wilson


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


def rotation_kinds(kinds: Sequence[str], players: int, rotation: int) -> dict[int, str]:
    """Seat ``s`` plays ``kinds[(s - 1 + rotation) % K]``."""
    k = len(kinds)
    return {s: kinds[(s - 1 + rotation) % k] for s in range(1, players + 1)}


def blocks(games: int, kinds: int) -> int:
    return -(-games // kinds)


def play_one(config: SimConfig, kinds: Sequence[str], g: int) -> Played:
    """Game ``g``: block ``g // K``'s deal, rotation ``g % K``."""
    from werewolf.sim.runner import base_setup
    from werewolf.sim.seating import play_seated

    k = len(kinds)
    b, r = divmod(g, k)
    game = Game(base_setup(config).with_seed(game_seed(config.seed, b)))
    dealt = {e.data["seat"]: e.data["role"] for e in game.events if e.type == "role" and e.phase == "setup"}
    seat_kinds = rotation_kinds(kinds, len(dealt), r)
    try:
        play_seated(config, g, game, kinds=seat_kinds)
    except Exception as e:  # an agent's illegal move, an LLM server down: counted and shown
        return Played(g, b, r, error=f"{type(e).__name__}: {e}")
    result = game.result
    assert result is not None
    teams, winners = result
    seats = tuple(Seat(s, seat_kinds[s], role, s in winners) for s, role in sorted(dealt.items()))
    return Played(g, b, r, seats, tuple(teams))


def arena_chunk(config: SimConfig, kinds: tuple[str, ...], start: int, stop: int) -> list[Played]:
    return [play_one(config, kinds, g) for g in range(start, stop)]


@dataclass
class Tally:
    n: int = 0
    wins: int = 0

    def add(self, won: bool) -> None:
        self.n += 1
        self.wins += won

    def row(self) -> dict[str, Any]:
        lo, hi = wilson(self.wins, self.n)
        return {"seat_games": self.n, "wins": self.wins, "win_rate": self.wins / self.n if self.n else None,
                "interval": [lo, hi]}


@dataclass
class Result:
    kinds: tuple[str, ...]
    games: list[Played] = field(default_factory=list)
    by_kind: dict[str, Tally] = field(default_factory=dict)
    by_role: dict[tuple[str, str], Tally] = field(default_factory=dict)
    by_side: dict[tuple[str, str], Tally] = field(default_factory=dict)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # kind -> (mu, sigma)
    errors: list[Played] = field(default_factory=list)


def tally(kinds: tuple[str, ...], played: list[Played]) -> Result:
    """The statistics and the ratings of the games, taken in game order."""
    res = Result(kinds, sorted(played, key=lambda p: p.game))
    res.by_kind = {k: Tally() for k in kinds}
    for p in res.games:
        if p.error is not None:
            res.errors.append(p)
            continue
        for s in p.seats:
            res.by_kind[s.kind].add(s.won)
            res.by_role.setdefault((s.kind, s.role), Tally()).add(s.won)
            res.by_side.setdefault((s.kind, team_key(s.role)), Tally()).add(s.won)
    res.ratings = rate(kinds, [p for p in res.games if p.error is None])
    return res


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
        progress: Callable[[int], None] | None = None) -> Result:
    """Play ``games`` (rounded up to whole blocks) on ``session``'s workers and tally them."""
    total = blocks(games, len(kinds)) * len(kinds)
    cfg = replace(config, games=total)
    played: list[Played] = []
    for _, chunk in session.map(arena_chunk, ((cfg, kinds, a, b) for a, b in _chunks(cfg, len(kinds)))):
        played.extend(chunk)
        if progress is not None:
            progress(len(chunk))
    return tally(kinds, played)


def _chunks(config: SimConfig, k: int) -> list[tuple[int, int]]:
    # whole blocks a chunk: a block's games share a deal, and a worker builds its setup once
    size = max(k, config.chunk_size() // k * k)
    return [(a, min(a + size, config.games)) for a in range(0, config.games, size)]


def check_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    from werewolf.agents.kinds import check_kind

    if len(kinds) < 2:
        raise SetupError("werewolf arena needs at least two agent kinds, e.g. heuristic random")
    checked = tuple(check_kind(k) for k in kinds)
    if len(set(checked)) != len(checked):
        raise SetupError("an agent kind is named twice")
    return checked


def document(res: Result, config: SimConfig) -> dict[str, Any]:
    """The results as JSON."""
    return {
        "config": {**config.describe(), "kinds": list(res.kinds)},
        "method": "blocks of K games on one deal; in rotation r seat s is played by kind (s-1+r) mod K; "
                  "Wilson 95% intervals over seat-games; OpenSkill Plackett-Luce, each game a match of the kinds "
                  "ranked by the share of their seats that won",
        "games": len(res.games) - len(res.errors),
        "errors": [{"game": p.game, "error": p.error} for p in res.errors],
        "kinds": {k: {**res.by_kind[k].row(), "rating": {"mu": res.ratings[k][0], "sigma": res.ratings[k][1],
                                                         "ordinal": res.ratings[k][0] - 3 * res.ratings[k][1]}}
                  for k in res.kinds},
        "roles": [{"kind": k, "role": r, **t.row()} for (k, r), t in sorted(res.by_role.items())],
        "sides": [{"kind": k, "side": s, **t.row()} for (k, s), t in sorted(res.by_side.items())],
    }


def tables(res: Result) -> list[Any]:
    """Rich tables: the kinds (win rate, interval, rating), and each role by kind."""
    from rich.table import Table

    def pct(t: Tally) -> tuple[str, str]:
        if not t.n:
            return "-", "-"
        lo, hi = wilson(t.wins, t.n)
        return f"{t.wins / t.n:.1%}", f"{lo:.1%} – {hi:.1%}"

    kinds = Table(title="agent kinds")
    for col in ("kind", "seat-games", "wins", "win rate", "95% interval (Wilson)", "rating μ ± σ", "μ - 3σ"):
        kinds.add_column(col, justify="left" if col == "kind" else "right")
    for k in sorted(res.kinds, key=lambda k: -(res.ratings[k][0] - 3 * res.ratings[k][1])):
        tk = res.by_kind[k]
        mu, sigma = res.ratings[k]
        kinds.add_row(k, str(tk.n), str(tk.wins), *pct(tk), f"{mu:.2f} ± {sigma:.2f}", f"{mu - 3 * sigma:.2f}")
    out = [kinds]
    for title, table_of in (("each side: win rate by kind", res.by_side), ("each role: win rate by kind",
                                                                             res.by_role)):
        rows = sorted({r for _, r in table_of})
        t = Table(title=title)
        t.add_column("side" if table_of is res.by_side else "card dealt")
        for k in res.kinds:
            t.add_column(k, justify="right")
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
    return out
