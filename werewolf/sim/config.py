"""What a simulation runs: the ruleset, the deck, the options, who plays, how many games.

``SimConfig`` is a small picklable value: it is all a worker (a process, a Ray
task) needs to replay any game of the run, because game ``i``'s seed is a pure
function of the run's seed and ``i`` (``game_seed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.roles import ROLES

BOT_KINDS = ("random", "heuristic")
# Who a seat plays for, for choosing its bot: by the faction of the card it was dealt.
TEAM_KEYS = ("wolves", "village", "others")

_MASK = (1 << 64) - 1


def _mix(z: int) -> int:
    """SplitMix64's finaliser: a fast, well-spread bijection of 64-bit integers."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


# The run's seed and the stream numbers are the same for every game of a run: mixed once.
_mix_constant = lru_cache(maxsize=64)(_mix)


def game_seed(seed: int, i: int) -> int:
    """The seed of game ``i`` of a run seeded ``seed``: a pure function of both (63 bits)."""
    return _mix(_mix_constant(seed & _MASK) ^ (i & _MASK)) >> 1


def stream_seed(game: int, stream: int) -> int:
    """Independent seeds derived from a game's seed (the bots' random streams)."""
    return _mix(game ^ _mix_constant(stream)) >> 1


def team_key(role: str) -> str:
    """``wolves``, ``village`` or ``others``: the side a dealt card plays for, for choosing bots."""
    faction = ROLES[role].faction
    if faction == "wolf":
        return "wolves"
    if faction == "good":
        return "village"
    return "others"


@dataclass(frozen=True)
class BotSpec:
    """Which bot plays each seat: one kind for all, or a kind per side."""

    default: str = "random"
    teams: tuple[tuple[str, str], ...] = ()

    def kind(self, team: str) -> str:
        for name, kind in self.teams:
            if name == team:
                return kind
        return self.default

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset([self.default, *(k for _, k in self.teams)])

    def label(self) -> str:
        if not self.teams:
            return self.default
        return ",".join(f"{t}={k}" for t, k in self.teams)


def parse_bots(spec: str) -> BotSpec:
    """``random``, ``heuristic``, or a kind per side: ``wolves=heuristic,village=random``.

    Sides are ``wolves`` (wolf-faction cards: werewolves, special wolves, the
    minion), ``village`` (good-faction cards) and ``others`` (third parties: cupid,
    thief, tanner, piper, doppelganger, ...); a side not named plays ``random``.
    """
    spec = spec.strip()
    if spec in BOT_KINDS:
        return BotSpec(spec)
    teams: list[tuple[str, str]] = []
    for part in spec.split(","):
        name, eq, kind = (s.strip() for s in part.partition("="))
        if not eq:
            raise SetupError(f"bad --bots {spec!r}: use one of {', '.join(BOT_KINDS)}, "
                             "or a kind per side like wolves=heuristic,village=random")
        if name not in TEAM_KEYS:
            raise SetupError(f"unknown side {name!r} in --bots (sides: {', '.join(TEAM_KEYS)})")
        if kind not in BOT_KINDS:
            raise SetupError(f"unknown bot kind {kind!r} in --bots (kinds: {', '.join(BOT_KINDS)})")
        if any(n == name for n, _ in teams):
            raise SetupError(f"side {name!r} is named twice in --bots")
        teams.append((name, kind))
    return BotSpec("random", tuple(teams))


@dataclass(frozen=True)
class SimConfig:
    ruleset: str = "classic"
    deck: str | tuple[str, ...] | None = None
    players: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    bots: BotSpec = BotSpec()
    games: int = 1000
    seed: int = 0
    jobs: int = 1
    backend: str = "local"  # local | ray
    address: str | None = None  # an existing Ray cluster (backend ray)
    chunk: int = 0  # games per task; 0: chosen from games and jobs
    # ``--agent SEATS=KIND`` rules (werewolf.agents.kinds), over ``bots``; kinds are built in the workers
    agents: tuple[tuple[tuple[str, ...], str], ...] = ()
    transcripts: str | None = None  # a folder: each game's LLM calls, game-<i>.jsonl (werewolf.agents.llm)
    # the named servers of ``llm:MODEL@NAME`` kinds (werewolf.agents.llmkind; no keys: those stay in the environment)
    endpoints: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    structured_only: bool = False  # True: a text said reaches the other seats as its parsed statements only

    def chunk_size(self) -> int:
        if self.chunk > 0:
            return self.chunk
        per_worker = -(-self.games // (max(1, self.jobs) * 8))
        return max(1, min(1000, per_worker))

    def chunks(self) -> list[tuple[int, int]]:
        size = self.chunk_size()
        return [(a, min(a + size, self.games)) for a in range(0, self.games, size)]

    def players_label(self) -> str:
        """Who plays: the bots, and the ``--agent`` rules over them."""
        if not self.agents:
            return self.bots.label()
        rules = " ".join(f"{','.join(items)}={kind}" for items, kind in self.agents)
        return f"{rules}; others {self.bots.label()}"

    def describe(self) -> dict[str, Any]:
        deck = list(self.deck) if isinstance(self.deck, tuple) else self.deck
        return {"ruleset": self.ruleset, "deck": deck, "players": self.players, "options": dict(self.options),
                "bots": self.bots.label(), "agents": [f"{','.join(i)}={k}" for i, k in self.agents],
                "games": self.games, "seed": self.seed, "jobs": self.jobs,
                "backend": self.backend}
