"""Heuristic bots: players that use what their role knows, talk, and vote on evidence.

One ``HeuristicAgent`` plays any number of seats of one game; each seat has its
own ``Mind``, which learns only from its seat's ``SeatView`` (``werewolf.core.views``):

- the seat's private log: its role, its night results;
- the public ``Board``: what every seat may know, read from the view's public
  log: the public events and every seat's statements (``statement`` events),
  whoever made them: a bot, a person, an LLM.

It reads each view incrementally (counts of what it has read, not a rescan);
the public board is shared by the minds of one agent, as it is the same in every
seat's view. ``strict=True`` gives every mind its own board and checks every
hand-over; the tests play the same games strict and shared, and with one agent
per seat, which shows that no mind uses another seat's information. A mind
never holds the game, and the agent is never handed it.

How they play (RULES.md's roles, simplified):

- the seer checks unknown players and reports every check once it has claimed;
  it claims at once (on the first day) or hides until it finds a wolf, is
  accused, speaks its last words or reaches day 3, as ``Policy`` draws;
- the witch saves the first night's victim or keeps the antidote, as ``Policy``
  draws, later saves a trusted seer, and poisons a player the evidence names as
  a wolf;
- the guard protects a trusted seer; on the first night, where the witch most
  often saves (同守同救: guarded and saved, the victim dies), it guards nobody
  or guards, as ``Policy`` draws; the hunter and wolf king shoot, the knight
  duels a named wolf;
- wolves agree on their kill by a rule every pack member computes alike (the
  most dangerous good player first; the claimed seer first in the games where
  ``Policy`` has the pack hunt it), vote together, and one of them may claim
  to be the seer and report false checks (悍跳);
- ``Policy`` holds the habits that are drawn at random, each with its
  probability: every game is still a pure function of its seed (the draws come
  from the agent's seeded stream, in the order the decisions come), but the
  bots no longer play one fixed script a deck designer would measure instead of
  the deck;
- the village votes on evidence: its suspicion of each seat weighs the claimed
  seers' reports by how far each claimant can be trusted, the facts shown to
  all (a self-destruct, a duel, the idiot's reveal, a hunter's shot) and the
  day's accusations; the sheriff calls the vote and the village follows a
  sheriff it trusts.

Speech acts (``werewolf.agents.speech``) are what ``speak`` returns at the seat's
speaking turns (``speech`` and ``last_words`` events; in the one-night rulesets,
the timed ``discussion``), which the ``Host`` puts in the public log; in live
play they are the text of a ``speak`` decision, read back by ``werewolf.agents.parse``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from functools import cache
from itertools import filterfalse
from operator import add
from typing import Any, Final

from mypy_extensions import i64

from werewolf.agents import Agent
from werewolf.agents.speech import Act, Channel
from werewolf.core.decisions import AnyOf, Choice, Decision, Flag, Move, Pair, Subset, Target
from werewolf.core.events import Event
from werewolf.core.views import SeatView
from werewolf.roles import ROLES

WOLFISH: Final = ("wolf", "not_village")  # check results that name a wolf
ONE_NIGHT: Final = ("onuw", "onenight")
WOLF_CARDS: Final = ("werewolf", "minion")  # one-night: the cards of the wolves' team
# The roles a thief (or a good player choosing a card) would rather hold, best first.
ROLE_RANK: Final = ("seer", "witch", "guard", "hunter", "knight", "idiot", "elder", "magician", "dreamcatcher",
                    "silencer", "bear_tamer", "cupid", "villager")
KNOWN_WOLF: Final = 2.0  # suspicion of what a mind knows for sure, apart from every estimate
KNOWN_GOOD: Final = -1.0
VALUABLE: Final = ("seer", "witch", "guard", "knight", "magician", "dreamcatcher")  # the wolves' favourite victims


class Policy:
    """The heuristic bots' habits that vary from game to game, each drawn once a game with its probability.

    A bot that always does the same thing measures itself, not the deck: a seer who always claims on the
    first day is always the wolves' next victim, a witch who always saves the first night and a guard who
    never guards it make the first night the same in every game. The draws come from the agent's random
    stream (seeded by the game's seed), so a game stays a pure function of its seed and replays exactly.
    """

    __slots__ = ("seer_claims_at_once", "seer_hides_until_day", "witch_saves_first_night",
                 "guard_guards_first_night", "guard_first_night_self", "wolves_hunt_the_seer")

    def __init__(self, seer_claims_at_once: float = 0.4, seer_hides_until_day: int = 3,
                 witch_saves_first_night: float = 0.75, guard_guards_first_night: float = 0.35,
                 guard_first_night_self: float = 0.6, wolves_hunt_the_seer: float = 0.6) -> None:
        for name, p in (("seer_claims_at_once", seer_claims_at_once),
                        ("wolves_hunt_the_seer", wolves_hunt_the_seer),
                        ("witch_saves_first_night", witch_saves_first_night),
                        ("guard_guards_first_night", guard_guards_first_night),
                        ("guard_first_night_self", guard_first_night_self)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"Policy.{name} is a probability, between 0 and 1 (got {p})")
        if seer_hides_until_day < 1:
            raise ValueError(f"Policy.seer_hides_until_day is a day, from 1 (got {seer_hides_until_day})")
        # the seer claims on the first day (else it hides: it claims once it finds a wolf, is accused or in a
        # PK, speaks its last words, or on day ``seer_hides_until_day``)
        self.seer_claims_at_once = seer_claims_at_once
        self.seer_hides_until_day = seer_hides_until_day
        # the witch saves the first night's victim (else she keeps the antidote for a trusted seer)
        self.witch_saves_first_night = witch_saves_first_night
        # the guard guards someone the first night (else nobody: the witch may save the same player)
        self.guard_guards_first_night = guard_guards_first_night
        # when it guards the first night: itself, else another player at random
        self.guard_first_night_self = guard_first_night_self
        # the pack kills the claimed seer before anyone else (else it counts like another valuable role, below
        # the witch and the guard once they are known: packs that fear a guard on the seer go elsewhere)
        self.wolves_hunt_the_seer = wolves_hunt_the_seer

    def __repr__(self) -> str:
        return (f"Policy(seer_claims_at_once={self.seer_claims_at_once}, seer_hides_until_day="
                f"{self.seer_hides_until_day}, witch_saves_first_night={self.witch_saves_first_night}, "
                f"guard_guards_first_night={self.guard_guards_first_night}, guard_first_night_self="
                f"{self.guard_first_night_self}, wolves_hunt_the_seer={self.wolves_hunt_the_seer})")


DEFAULT_POLICY: Final = Policy()


# The tie-break hashes keep 32 bits of 64-bit products: i64 (a plain int when interpreted) lets the
# compiled bots multiply natively, wrapping as the mask would have it, where an int overflowing 62
# bits goes through a Python integer per operation.
def _hash32(xs: tuple[int, ...]) -> int:
    """A fixed pseudo-random 32-bit number from integers: the seed of a row of tie-breaks."""
    z: i64 = 0x345678
    for x in xs:
        z = ((z ^ (x & 0xFFFFFFFF)) * 0x9E3779B1 + 0x7F4A7C15) & 0xFFFFFFFF
        z ^= z >> 15
    return z * 0x85EBCA6B & 0xFFFFFFFF


_TWO_TO_MINUS_32: Final = 2.0 ** -32  # multiplying by it is dividing by 2**32, exactly, and a little cheaper


@cache
def _seat_mixes(n: int) -> tuple[int, ...]:
    """mix(s) = s * 0x9E3779B1 mod 2**32, for seats 0 to n."""
    return tuple(s * 0x9E3779B1 & 0xFFFFFFFF for s in range(n + 1))


def tie_row(base: int, n: int) -> list[float]:
    """Each seat's tie-break for ``base``: ((base ^ mix(s)) * 0x85EBCA6B mod 2**32) / 2**32, seats 0 to n."""
    b: i64 = base
    return [float((b ^ m) * 0x85EBCA6B & 0xFFFFFFFF) * _TWO_TO_MINUS_32 for m in _seat_mixes(n)]


class Board:
    """Public knowledge: public events and the channel's speech acts, nothing else."""

    __slots__ = ("n", "alive", "day", "night", "sheriff", "candidates", "claims", "reports", "accused",
                 "vouched", "call", "exposed", "cleared", "votes_for", "pk", "killed", "version", "claims_version",
                 "_seers", "_listener", "_table_night", "_night_claims", "_suspicion", "_suspicion_version", "stamp",
                 "_threats", "_threats_stamp", "read")

    def __init__(self) -> None:
        self.n = 0
        self.alive: set[int] = set()
        self.day = 0
        self.night = 0
        self.sheriff: int | None = None
        self.candidates: tuple[int, ...] = ()
        self.claims: dict[int, str] = {}  # seat -> the role it claims
        self.reports: dict[int, dict[int, str]] = {}  # claimant -> {target: result or role seen}
        self.accused: dict[int, set[int]] = {}  # today: target -> accusers
        self.vouched: dict[int, set[int]] = {}  # today: target -> vouchers
        self.call: int | None = None  # the sheriff's call today
        self.exposed: set[int] = set()  # shown to be wolves (self-destruct, duel, a wolf king's shot)
        self.cleared: set[int] = set()  # shown to be good (idiot's reveal, duel, a hunter's shot)
        self.votes_for: dict[int, list[int]] = {}  # target -> who voted to exile it (every day)
        self.killed: set[int] = set()  # died in a night (announced at dawn): most often the wolves' victims
        self.pk: tuple[int, ...] = ()
        # Counts changes to the evidence suspicion is computed from (Mind.scores caches on it); the
        # turn of the clock, the sheriff, the living and the sheriff's call are no evidence.
        self.version = 0
        # Counts changes to what a mind's trust in the claimed seers reads (Mind._seer_trust): the claims,
        # the reports, the night's dead, the exposed and the cleared; accusations and votes are no part of it.
        self.claims_version = 0
        self._seers: tuple[int, tuple[int, ...], tuple[int, ...]] = (-1, (), ())
        self._table_night: tuple[int, list[float]] = (-1, [])
        self._night_claims: tuple[int, list[float]] = (-1, [])
        self._listener: tuple[int, dict[int, float]] = (-1, {})
        self._suspicion: dict[tuple[tuple[tuple[int, float], ...], tuple[int, ...]], list[float]] = {}
        self._suspicion_version = 0
        self.stamp = 0  # counts every change to the board
        self._threats: dict[tuple[tuple[int, ...], int], list[float]] = {}
        self._threats_stamp = 0
        self.read = 0  # how much of the public log (seat views' ``public``) this board has read

    # -- public events -----------------------------------------------------------------
    def observe(self, e: Event) -> None:
        handler = _BOARD.get(e.type)
        if handler is not None:
            handler(self, e.data)
            self.stamp += 1
            if e.type in _EVIDENCE:
                self.version += 1
                if e.type in _CLAIMS_EVIDENCE:
                    self.claims_version += 1

    def _start(self, d: dict[str, Any]) -> None:
        self.n = int(d["players"])
        self.alive = set(range(1, self.n + 1))

    def _night(self, d: dict[str, Any]) -> None:
        self.night = d["number"]

    def _day(self, d: dict[str, Any]) -> None:
        self.day = d["number"]
        self.accused = {}
        self.vouched = {}
        self.call = None
        self.pk = ()

    def _announce(self, d: dict[str, Any]) -> None:
        self.alive.difference_update(d["seats"])
        self.killed.update(d["seats"])

    def _death(self, d: dict[str, Any]) -> None:
        self.alive.discard(d["seat"])

    def _explode(self, d: dict[str, Any]) -> None:
        self.exposed.add(d["seat"])

    def _duel(self, d: dict[str, Any]) -> None:
        (self.exposed if d["result"] == "wolf" else self.cleared).add(d["target"])

    def _shoot(self, d: dict[str, Any]) -> None:
        role = d.get("role")
        if role is not None:
            self.claims[d["seat"]] = role
            (self.exposed if ROLES[role].faction == "wolf" else self.cleared).add(d["seat"])

    def _reveal(self, d: dict[str, Any]) -> None:
        self.cleared.add(d["seat"])
        self.claims[d["seat"]] = d.get("role", "idiot")

    def _sheriff(self, d: dict[str, Any]) -> None:
        self.sheriff = d.get("seat")

    def _candidates(self, d: dict[str, Any]) -> None:
        self.candidates = tuple(d["seats"])

    def _votes(self, d: dict[str, Any]) -> None:
        if d.get("round", "vote") in ("vote", "pk_vote"):
            for voter, target in (d.get("ballots") or {}).items():
                self.votes_for.setdefault(target, []).append(int(voter))

    def _pk(self, d: dict[str, Any]) -> None:
        self.pk = tuple(d["seats"])

    # -- what the evidence says --------------------------------------------------------------
    def suspicion(self, trust: dict[int, float], liars: tuple[int, ...]) -> list[float]:
        """The public evidence against each seat (index = seat), weighed by one mind's ``trust`` in
        the claimed seers, with ``liars`` (rivals for a role it holds) under suspicion.

        A function of the board and its two arguments alone: minds that trust alike share it (the
        result is cached until the evidence changes); what a mind knows privately goes on top."""
        if self._suspicion_version != self.version:
            self._suspicion.clear()
            self._suspicion_version = self.version
        key = (tuple(trust.items()), liars)
        sc = self._suspicion.get(key)
        if sc is not None:
            return sc
        n = self.n
        sc = [0.3] * (n + 1)
        reports = self.reports
        for claimant, tr in trust.items():
            if tr < 0.5:
                sc[claimant] += 1.25 - 1.2 * tr
            for target, result in reports.get(claimant, {}).items():
                if 0 < target <= n and target not in trust:  # one claimant's word on a rival is no evidence
                    sc[target] += (0.65 if result in WOLFISH else -0.35) * tr
        for s in liars:
            sc[s] += 0.6
        for target, accusers in self.accused.items():
            if 0 < target <= n and target not in trust:  # the accusations of a seer dispute are its noise
                sc[target] += min(0.1, 0.02 * len(accusers))
        for target, vouchers in self.vouched.items():
            if 0 < target <= n:
                sc[target] -= 0.02 * len(vouchers)
        # who voted against a player shown good or a trusted seer, or for one shown to be a wolf
        votes_for = self.votes_for
        if votes_for:
            shown_good = self.cleared.copy()
            for s, t in trust.items():
                if t >= 0.8:
                    shown_good.add(s)
            for target in shown_good:
                for voter in votes_for.get(target, ()):
                    sc[voter] += 0.1
            for target in self.exposed:
                for voter in votes_for.get(target, ()):
                    sc[voter] -= 0.05
        self._suspicion[key] = sc
        return sc

    def seer_claims(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(the seats that claim to be the seer, those of them who died in a night), in the order of the
        claims; kept until the claims or the night's dead change (every mind's trust starts from them)."""
        if self._seers[0] != self.claims_version:
            seers = tuple(c for c, r in self.claims.items() if r == "seer")
            # The wolves kill the seer they know to be real: a claimant who died in the night was most likely it.
            self._seers = (self.claims_version, seers, tuple(c for c in seers if c in self.killed))
        return self._seers[1], self._seers[2]

    def listener_trust(self) -> dict[int, float]:
        """``seer_trust`` for one who knows nothing of anyone (shared until the claims change)."""
        if self._listener[0] != self.claims_version:
            seers, night_dead = self.seer_claims()
            self._listener = (self.claims_version, seer_trust(self, seers, night_dead, False, set(), set(), set()))
        return self._listener[1]

    def night_claims(self) -> list[float]:
        """One-night: each seat's score from the claims alone (index = seat), the first term of
        ``night_suspicion``; shared until the evidence changes, as every seat's vote starts from it."""
        if self._night_claims[0] != self.version:
            n = self.n
            sc = [0.3] * (n + 1)
            counts: dict[str, int] = {}
            for r in self.claims.values():
                counts[r] = counts.get(r, 0) + 1
            for s, r in self.claims.items():
                if 0 < s <= n:
                    if r == "werewolf":
                        sc[s] += 0.15  # a confession is often a tanner's or a minion's trick
                    elif counts[r] > 1 and r not in ("villager", "werewolf", "mason"):
                        sc[s] += 0.35  # two claim a role the box holds once: one lies
            self._night_claims = (self.version, sc)
        return self._night_claims[1]

    def night_suspicion(self, me: int) -> list[float]:
        """One-night: what the table said against each seat (index = seat), as seat ``me`` weighs it:
        nothing about ``me`` itself (its score stays 0.3), nothing from its own reports."""
        n = self.n
        sc = self.night_claims().copy()
        if 0 < me <= n:
            sc[me] = 0.3  # my own claim is no evidence to me
        for c, reps in self.reports.items():
            if c == me:
                continue
            for target, seen in reps.items():
                if target != me and 0 < target <= n:
                    sc[target] += 0.55 if seen == "werewolf" else -0.2
        for target, accusers in self.accused.items():
            if target != me and 0 < target <= n:
                sc[target] += 0.1 * len(accusers)
        return sc

    def table_night_suspicion(self) -> list[float]:
        """``night_suspicion`` for a listener with no seat (seat 0), shared until the evidence changes: a
        seat that reported nothing differs from it only in its own score."""
        if self._table_night[0] != self.version:
            self._table_night = (self.version, self.night_suspicion(0))
        return self._table_night[1]

    # -- speech acts -------------------------------------------------------------------
    def hear(self, act: Act) -> None:
        self.heard(act.seat, act.kind, act.target, act.role, act.result)

    def hear_all(self, acts: Iterable[Act]) -> None:
        """Speech acts, in the order they were said."""
        for act in acts:
            self.heard(act.seat, act.kind, act.target, act.role, act.result)

    def _statement(self, d: dict[str, Any]) -> None:
        """A seat's statement in the public log, whoever made it (a bot, a person, an LLM)."""
        self.heard(d["seat"], d["kind"], d.get("target"), d.get("role"), d.get("result"))

    def heard(self, seat: int, k: str, target: int | None, role: str | None, result: str | None) -> None:
        """One statement: ``seat`` says ``k`` (about ``target``, ``role``, ``result``)."""
        self.stamp += 1
        if k == "claim" and role:
            self.claims[seat] = role
            self.claims_version += 1
        elif k == "check" and target is not None:
            self.reports.setdefault(seat, {})[target] = result or role or ""
            self.claims_version += 1
        elif (k == "accuse" or k == "vote") and target is not None:  # a vote intention accuses
            self.accused.setdefault(target, set()).add(seat)
        elif k == "vouch" and target is not None:
            self.vouched.setdefault(target, set()).add(seat)
        elif k == "call":
            if seat == self.sheriff:
                self.call = target
            return
        elif k == "defend":
            return
        self.version += 1


_BOARD: Final[dict[str, Callable[[Board, dict[str, Any]], None]]] = {
    "game_start": Board._start, "night": Board._night, "day": Board._day, "announce": Board._announce,
    "death": Board._death, "explode": Board._explode, "duel": Board._duel, "shoot": Board._shoot,
    "reveal": Board._reveal, "sheriff": Board._sheriff, "candidates": Board._candidates, "votes": Board._votes,
    "pk": Board._pk, "statement": Board._statement,
}
# The public events that change what Mind.scores reads (the rest only move the clock, the living, the badge).
_EVIDENCE: Final = frozenset(("game_start", "day", "announce", "explode", "duel", "shoot", "reveal", "votes"))
_CLAIMS_EVIDENCE: Final = _EVIDENCE - {"day", "votes"}  # those of them that change what Board.claims_version counts


def seer_trust(b: Board, seers: tuple[int, ...], night_dead: tuple[int, ...], i_am_seer: bool,
               pack: set[int], good: set[int], victims: set[int]) -> dict[int, float]:
    """How far one who knows ``pack`` (wolves), ``good`` and ``victims`` (the wolves' targets: good as far as
    the witch can tell) believes each of ``seers``, the others who claim to be the seer (0: a liar, 1: the
    seer); ``night_dead``: those of them killed in a night (the wolves kill the seer they know to be real)."""
    out: dict[int, float] = {}
    if not seers:
        return out
    exposed, cleared, reports = b.exposed, b.cleared, b.reports
    for c in seers:
        if i_am_seer or c in pack or c in exposed:
            out[c] = 0.0  # a second seer lies; so does a wolf
            continue
        if night_dead:
            t = 0.9 if c in night_dead else 0.15
        else:
            t = 0.85 if len(seers) == 1 else 0.5
        for target, result in reports.get(c, {}).items():
            # what I know for sure of the target: a wolf, or good; else the report proves nothing
            if target in pack or target in exposed:
                known = True
            elif target in good or target in cleared or target in victims:
                known = False
            else:
                continue
            if (result in WOLFISH) != known:
                t = 0.0
                break
            t = min(1.0, t + 0.15)
        out[c] = t
    return out


# One-night speech acts, each made once: the same few (a seat, a role, a seat seen) are said game after
# game, and looking an act up costs a fraction of building the tuple (acts are immutable, so shared).
@cache
def claim_act(seat: int, role: str) -> Act:
    return Act(seat, "claim", role=role)


@cache
def check_act(seat: int, target: int, role: str) -> Act:
    return Act(seat, "check", target, role=role)


@cache
def accuse_act(seat: int, target: int) -> Act:
    return Act(seat, "accuse", target)


def target_move(d: Decision, seat: int | None) -> Move:
    return {"act": d.act, getattr(d, "arg", "target"): seat}


def no_move(d: Decision) -> Move:
    """The explicit "no" of a decision: a flag's false, a choice's null."""
    if isinstance(d, Flag):
        return {"act": d.act, **d.context, "value": False}
    return {"act": d.act, getattr(d, "arg", "target"): None}


class Mind:
    """One seat's player: its private knowledge, its suspicions, its choices and its words."""

    # Slots: past 30 attributes an instance falls back to a slow dictionary, and minds are made and read a lot.
    __slots__ = ("seat", "tie_rows", "board", "rng", "ruleset", "salt", "strict", "seen", "role", "dealt", "wolf",
                 "pack", "good", "checks", "reported", "victims", "victim", "victim_night", "claimed", "faker",
                 "fake_checks", "fake_day", "vouched", "bottom", "lover", "last_dream", "cards", "center_seen",
                 "now_role", "robbed", "_cache", "_trust", "_liars", "_trust_at", "version", "acts", "read",
                 "policy", "habits")

    def __init__(self, seat: int, board: Board, rng: random.Random, ruleset: str, salt: int,
                 strict: bool = False, tie_rows: dict[tuple[int, ...], list[float]] | None = None,
                 policy: Policy = DEFAULT_POLICY) -> None:
        self.seat = seat
        self.policy = policy
        self.habits: dict[str, bool] = {}  # this game's draws of the policy's habits, each drawn once
        self.tie_rows = tie_rows if tie_rows is not None else {}
        self.board = board
        self.rng = rng
        self.ruleset = ruleset
        self.salt = salt
        self.strict = strict
        self.seen: list[Event] | None = [] if strict else None
        self.role = "villager"
        self.dealt = "villager"
        self.wolf = False
        self.pack: set[int] = set()  # wolves I know (me included when I am one)
        self.good: set[int] = set()  # players I know to be good
        self.version = 0
        self.read = 0  # how much of its seat's private log it has read
        # one-night rulesets
        self.cards: dict[int, str] = {}  # what I saw: seat -> card (at the time I saw it)
        self.center_seen: dict[int, str] = {}
        self.now_role: str | None = None  # my card at dawn, when I know it
        self.robbed: dict[int, str] = {}  # the robber: whom I robbed, and the card I took
        if ruleset in ONE_NIGHT:
            # A one-night mind is made for every seat of every simulated game and lives one night: it
            # skips the memory of the day-and-night rulesets below, which no one-night path reads
            # (reading one would raise AttributeError, not pass unnoticed).
            # Its table of decisions sends votes and looks straight to their one-night methods.
            self.acts = _NIGHT_ACTS
            return
        self.acts = _ACTS
        self.checks: dict[int, str] = {}  # my own checks: target -> result
        self.reported: set[int] = set()  # checks already told
        self.victims: set[int] = set()  # players the wolves attacked (the witch sees them): likely good
        self.victim: int | None = None  # tonight's victim, as the witch was told
        self.victim_night = 0
        self.claimed = False
        self.faker = False  # a wolf who claims to be the seer
        self.fake_checks: dict[int, str] = {}  # a faking wolf's false reports
        self.fake_day = 0  # the last day it reported one
        self.vouched: set[int] = set()  # players I vouched for
        self.bottom: list[str] = []
        self.lover: int | None = None
        self.last_dream: int | None = None
        self._cache: tuple[int, int, list[float]] | None = None
        self._trust: dict[int, float] = {}
        self._liars: tuple[int, ...] = ()
        self._trust_at: tuple[int, int] | None = None  # (board.claims_version, version) of _trust and _liars

    # -- private events ----------------------------------------------------------------
    def observe(self, e: Event) -> None:
        if self.strict:
            assert e.visible_to(self.seat), f"seat {self.seat} was handed an event outside its view: {e}"
            assert self.seen is not None
            self.seen.append(e)
        handler = _MIND.get(e.type)
        if handler is not None:
            if e.type == "victim":  # the night it was told, whenever the mind reads it (not the board's night)
                self.victim_night = int(e.phase[5:]) if e.phase.startswith("night") else self.board.night
            handler(self, e.data)
            self.version += 1

    def _role(self, d: dict[str, Any]) -> None:
        if d["seat"] == self.seat:
            self.become(d["role"])
            self.dealt = d["role"]

    def become(self, role: str) -> None:
        self.role = role
        self.wolf = ROLES[role].faction == "wolf"
        if self.wolf:
            self.pack.add(self.seat)
        else:
            self.good.add(self.seat)

    def _took(self, d: dict[str, Any]) -> None:
        if d.get("seat") == self.seat:
            self.good.discard(self.seat)
            self.become(d["role"])

    def _pack(self, d: dict[str, Any]) -> None:
        self.pack.update(d["seats"])
        self.wolf = True

    def _turned(self, d: dict[str, Any]) -> None:  # transformed, infected, a wolf hound's side
        if d.get("seat") == self.seat and d.get("side", "wolves") == "wolves":
            self.wolf = True
            self.pack.add(self.seat)
            self.good.discard(self.seat)

    def _victim(self, d: dict[str, Any]) -> None:
        self.victim = d.get("target")
        for s in d.get("targets") or ([d["target"]] if d.get("target") is not None else []):
            self.victims.add(s)

    def _check(self, d: dict[str, Any]) -> None:
        if d.get("seat") != self.seat:
            return
        if "result" in d:
            self.checks[d["target"]] = d["result"]
            (self.pack if d["result"] in WOLFISH else self.good).add(d["target"])
        elif "role" in d:  # one-night: a player's card
            self.cards[d["target"]] = d["role"]
        else:
            for c, r in zip(d["cards"], d["roles"]):
                self.center_seen[c] = r

    def _bottom(self, d: dict[str, Any]) -> None:
        self.bottom = list(d["cards"])

    def _lovers(self, d: dict[str, Any]) -> None:
        seats = d.get("seats") or d.get("lovers") or []
        if self.seat in seats:
            self.lover = next((s for s in seats if s != self.seat), None)

    def _sniff(self, d: dict[str, Any]) -> None:
        if not d["result"]:
            self.good.add(d["target"])

    # one-night
    def _wolves(self, d: dict[str, Any]) -> None:
        self.pack.update(d.get("seats") or d.get("wolves") or [])

    def _masons(self, d: dict[str, Any]) -> None:
        self.good.update(d["seats"])

    def _copy(self, d: dict[str, Any]) -> None:
        self.cards[d["target"]] = d["role"]
        self.role = d["role"]
        self.wolf = d["role"] == "werewolf"
        if d["role"] in ("werewolf", "minion"):
            self.good.discard(self.seat)

    def _rob(self, d: dict[str, Any]) -> None:
        self.cards[d["target"]] = "robber"
        self.now_role = d["role"]
        self.robbed[d["target"]] = d["role"]

    def _own(self, d: dict[str, Any]) -> None:
        self.now_role = d["role"]

    def _peek(self, d: dict[str, Any]) -> None:
        self.center_seen[d["card"]] = d["role"]

    # -- what I believe ------------------------------------------------------------------
    @property
    def team_wolf(self) -> bool:
        """Whether I play for the wolves now (one-night: by the card I know I hold)."""
        if self.ruleset in ONE_NIGHT:
            return (self.now_role or self.role) in WOLF_CARDS
        return self.wolf

    def trust(self) -> dict[int, float]:
        """How far I believe each seat that claims to be the seer (0: a liar, 1: the seer)."""
        self.scores()
        return self._trust

    def _seer_trust(self) -> dict[int, float]:
        b = self.board
        me = self.seat
        seers, night_dead = b.seer_claims()
        if not seers:
            return {}
        good = self.good
        if not self.wolf and not self.pack and not self.victims and len(good) == 1 and me in good \
                and self.role != "seer" and me not in seers:
            # A good player who knows no one but itself, of whom no claimant said a word, trusts as anyone
            # at the table would.
            reports = b.reports
            for c in seers:
                if me in reports.get(c, ()):
                    break
            else:
                return b.listener_trust()
        if me in seers:
            seers = tuple(c for c in seers if c != me)
            night_dead = tuple(c for c in night_dead if c != me)
        return seer_trust(b, seers, night_dead, self.role == "seer" and not self.wolf, self.pack, good,
                          self.victims)

    def scores(self) -> list[float]:
        """My suspicion of each seat (index = seat): about 0 (good) to 1 (a wolf) as estimated;
        what I know for sure is set apart at ``KNOWN_WOLF`` (2) and ``KNOWN_GOOD`` (-1)."""
        b = self.board
        c = self._cache
        if c is not None and c[0] == b.version and c[1] == self.version:
            return c[2]
        at = (b.claims_version, self.version)
        if self._trust_at != at:  # the day's accusations and votes leave the claims' credit as it was
            self._trust_at = at
            self._trust = self._seer_trust()
            # two players claiming the same role of which there is one: at least one lies
            mine = self.role
            liars: tuple[int, ...] = ()
            if not self.wolf and mine not in ("villager", "werewolf") and self.ruleset not in ONE_NIGHT \
                    and mine in b.claims.values():
                liars = tuple(s for s, r in b.claims.items() if r == mine and s != self.seat)
            self._liars = liars
        sc = b.suspicion(self._trust, self._liars).copy()
        for s in self.victims:
            sc[s] -= 0.25
        for s in b.exposed:
            sc[s] = KNOWN_WOLF
        for s in b.cleared:
            sc[s] = KNOWN_GOOD
        for s in self.good:
            sc[s] = KNOWN_GOOD
        for s in self.pack:
            sc[s] = KNOWN_WOLF
        if not self.wolf:
            sc[self.seat] = KNOWN_GOOD
        self._cache = (b.version, self.version, sc)
        return sc

    def ties(self, *key: int) -> list[float]:
        """Fixed pseudo-random tie-breaks per seat for ``key``: the same for every mind of the agent."""
        row = self.tie_rows.get(key)
        if row is None:
            row = self.tie_rows[key] = tie_row(_hash32((self.salt, *key)), self.board.n)
        return row

    def most_suspect(self, seats: Iterable[int], day_salt: int = 0) -> int | None:
        """The seat I suspect most (ties broken alike by every mind)."""
        sc = self.scores()
        tie = self.ties(1, day_salt)
        best, best_key = None, -9.0
        for s in seats:
            k = sc[s] + 0.001 * tie[s]
            if k > best_key:
                best, best_key = s, k
        return best

    def most_trusted(self, seats: Iterable[int]) -> int | None:
        sc = self.scores()
        trust = self._trust
        cleared = self.board.cleared
        tie = self.ties(7)
        best, best_key = None, -9.0
        for s in seats:
            k = -sc[s] + 0.5 * trust.get(s, 0) + (0.3 if s in cleared else 0) + 0.001 * tie[s]
            if k > best_key:
                best, best_key = s, k
        return best

    # -- the wolves' shared choices -------------------------------------------------------
    def threats(self) -> list[float]:
        """How much the wolves want each seat gone (index = seat): the same numbers for every pack
        member that knows the same pack (shared on the board until anything public changes)."""
        b = self.board
        pack = self.pack
        key = (tuple(sorted(pack)), self.salt)
        if b._threats_stamp != b.stamp:
            b._threats.clear()
            b._threats_stamp = b.stamp
        row = b._threats.get(key)
        if row is not None:
            return row
        n = b.n
        t = [0.0] * (n + 1)
        reports = b.reports
        # this game's pack hunts the claimed seer first, or leaves it for later (Policy); drawn from the fixed
        # tie-breaks, not the random stream, so that every wolf of the pack draws alike and they agree
        hunt = self.ties(98)[min(pack)] < self.policy.wolves_hunt_the_seer if pack else True
        for s, claim in b.claims.items():
            if s > n:
                continue
            if claim == "seer":
                t[s] += 3.0 if hunt else -1.5  # left for later: its checks still count below
                for x, r in reports.get(s, {}).items():
                    if r in WOLFISH and x in pack:  # it named one of us
                        t[s] += 1.5
                        break
            elif claim in VALUABLE:
                t[s] += 2.0
            elif claim == "hunter":
                t[s] -= 1.5
        if b.sheriff is not None and b.sheriff <= n:
            t[b.sheriff] += 1.0
        for c, reps in reports.items():
            if c in pack:
                continue
            for s, r in reps.items():
                if r not in WOLFISH and 0 < s <= n:
                    t[s] += 0.5
        tie = self.ties(2, min(pack) if pack else 0, b.night, b.day)
        row = b._threats[key] = list(map(add, t, tie))
        return row

    def pack_pick(self, seats: Iterable[int]) -> int | None:
        """The pack's choice among ``seats`` (never a wolf it knows)."""
        pack = self.pack
        threats = self.threats()
        best, most = None, 0.0
        for s in seats:  # the first of the most threatening, as max() would pick
            if s not in pack and (best is None or threats[s] > most):
                best, most = s, threats[s]
        return best

    def consensus(self, seats: list[int]) -> int | None:
        """The seat the table is turning on today: the sheriff's call, else the most accused."""
        b = self.board
        if b.call is not None and b.call in seats:
            return b.call
        accused = b.accused
        best, most = None, 1
        if accused:
            for s in seats:
                a = accused.get(s)
                if a is not None and len(a) > most:
                    best, most = s, len(a)
        return best

    # -- habits (Policy) ------------------------------------------------------------------------
    def habit(self, name: str, p: float) -> bool:
        """This game's draw of a habit of probability ``p``: drawn from the seeded stream when first needed."""
        h = self.habits.get(name)
        if h is None:
            h = self.habits[name] = self.rng.random() < p
        return h

    def seer_hides(self) -> bool:
        """Whether the seer keeps quiet for now (see ``Policy``): not after a wolf found, nor from the day set."""
        if self.habit("seer_claims_at_once", self.policy.seer_claims_at_once):
            return False
        if self.board.day >= self.policy.seer_hides_until_day:
            return False
        return not any(r in WOLFISH for r in self.checks.values())

    # -- deciding ---------------------------------------------------------------------------
    def decide(self, d: Decision) -> Move | None:
        """A legal move for ``d``, or None for the decision's default."""
        if isinstance(d, AnyOf):
            return self.witch_any(d)
        how = self.acts.get(d.act)
        if how is not None:
            return how(self, d)
        return self.fallback(d)

    def fallback(self, d: Decision) -> Move | None:
        if isinstance(d, Flag) or d.interrupt:
            return None
        if isinstance(d, Target):
            if not d.targets:
                return None if d.optional else target_move(d, None)
            return target_move(d, d.targets[self.rng.randrange(len(d.targets))])
        opts = d.options()
        return opts[self.rng.randrange(len(opts))] if opts else None

    # night, day-and-night rulesets
    def kill(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        if not self.wolf:  # a thief or child who knows no pack: the most suspect, as a villager would
            return target_move(d, self.most_suspect(d.targets))
        pick = self.pack_pick(d.targets)
        return target_move(d, pick) if pick is not None else None

    def check(self, d: Decision) -> Move | None:
        if self.ruleset in ONE_NIGHT:
            return self.look(d)
        assert isinstance(d, Target)
        b = self.board
        unknown = [s for s in d.targets if s not in self.checks and s not in b.exposed and s not in b.cleared]
        if not unknown:
            return None
        sc = self.scores()
        # prefer those who claim to be the seer, then the suspect, a little at random
        pick = max(unknown, key=lambda s: sc[s] + (0.5 if b.claims.get(s) == "seer" else 0) + 0.3 * self.rng.random())
        return target_move(d, pick)

    def witch_any(self, d: AnyOf) -> Move | None:
        """One potion a night: the antidote when it is worth it, else the poison on a named wolf."""
        acts = {a.act: a for a in d.alternatives}
        if "save" in acts and self.wants_save():
            mv = self.save(acts["save"])  # a legal save only (wechat: never herself where that is forbidden)
            if mv is not None:
                return mv
        if "poison" in acts:
            mv = self.poison(acts["poison"])
            if mv is not None and mv.get("target") is not None:
                return mv
        return no_move(d.alternatives[0])

    def tonight_victim(self) -> int | None:
        return self.victim if self.victim_night == self.board.night else None

    def wants_save(self) -> bool:
        victim = self.tonight_victim()
        if victim is None:
            return False
        if victim == self.seat:
            return True
        if self.board.night <= 1:
            return self.habit("witch_saves_first_night", self.policy.witch_saves_first_night)
        return self.trust().get(victim, 0) >= 0.5 or victim == self.board.sheriff

    def save(self, d: Decision) -> Move | None:
        if isinstance(d, Flag):
            return {"act": "save"} if self.wants_save() else no_move(d)
        assert isinstance(d, Target)  # wechat: any player attacked tonight
        victim = self.tonight_victim()
        if victim is not None and victim in d.targets and self.wants_save():
            return {"act": "save", "target": victim}
        return None

    def poison(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        if self.wolf:
            pick = self.pack_pick(d.targets)
            return target_move(d, pick if pick is not None and self.board.night > 1 else None)
        s = self.most_suspect([t for t in d.targets if t != self.lover], self.board.night)
        if s is not None and self.scores()[s] >= 0.75:
            return target_move(d, s)
        return target_move(d, None)

    def guard(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        b = self.board
        if b.night <= 1 and self.ruleset != "wechat":
            # the witch most often saves the first night, and guarded and saved the victim dies (同守同救; not in
            # wechat): most guards guard nobody, some guard themselves or a player at random (Policy)
            policy = self.policy
            if not self.habit("guard_guards_first_night", policy.guard_guards_first_night) or not d.targets:
                return target_move(d, None) if d.optional else self.fallback(d)
            if self.seat in d.targets and self.rng.random() < policy.guard_first_night_self:
                return target_move(d, self.seat)
            others = [s for s in d.targets if s != self.seat] or list(d.targets)
            return target_move(d, others[self.rng.randrange(len(others))])
        trust = self.trust()
        seer = max(trust, key=lambda s: trust[s], default=None)
        if seer is not None and trust[seer] >= 0.5 and seer in d.targets and seer in b.alive:
            return target_move(d, seer)
        if self.seat in d.targets:
            return target_move(d, self.seat)
        return target_move(d, None) if d.optional else self.fallback(d)

    def protect(self, d: Decision) -> Move | None:
        """Dream, shield, charm-free protection: the most trusted other player."""
        assert isinstance(d, Target)
        pool = [s for s in d.targets if s != self.seat and s != self.last_dream]
        pick = self.most_trusted(pool) if pool else None
        if d.act == "dream":
            self.last_dream = pick
        if pick is None:
            return None if d.optional else self.fallback(d)
        return target_move(d, pick)

    def harm(self, d: Decision) -> Move | None:
        """Silence, curse, raven, sniff: the player I suspect most (wolves: the pack's pick)."""
        assert isinstance(d, Target)
        pool = [s for s in d.targets if s != self.seat]
        if not pool:
            return None if d.optional else self.fallback(d)
        pick = self.pack_pick(pool) if self.wolf else self.most_suspect(pool, self.board.night)
        return target_move(d, pick)

    def wolf_harm(self, d: Decision) -> Move | None:
        """Charm, extra kill, widow's knife: a wolf's own night act (the pack's favourite target)."""
        assert isinstance(d, Target)
        pool = [s for s in d.targets if s != self.seat]
        if self.role == "white_wolf" and self.board.night > 2:
            pool = [s for s in pool if s in self.pack] or pool  # the white wolf wins alone
        pick = self.pack_pick(pool) if self.wolf else self.most_suspect(pool)
        if pick is None:
            pick = pool[0] if pool else None
        return target_move(d, pick) if pick is not None or d.optional else self.fallback(d)

    def anyone(self, d: Decision) -> Move | None:
        """A forced pick with nothing to go on (model, support): at random."""
        return self.fallback(d)

    def take(self, d: Decision) -> Move | None:
        if isinstance(d, Flag):
            return None  # the devoted servant keeps her role
        assert isinstance(d, Choice)
        if self.ruleset in ONE_NIGHT:
            return {"act": d.act, d.arg: d.values[self.rng.randrange(len(d.values))]}
        cards = list(d.values)
        if self.bottom:
            def rank(c: int) -> int:
                role = self.bottom[c - 1]
                if ROLES[role].faction == "wolf":
                    return -1 if not self.wolf else 99
                return len(ROLE_RANK) - ROLE_RANK.index(role) if role in ROLE_RANK else 0
            best = max(cards, key=rank)
            if d.optional and self.bottom[best - 1] == "villager":
                return {"act": d.act, d.arg: None}
            return {"act": d.act, d.arg: best}
        return {"act": d.act, d.arg: cards[0]}

    def link(self, d: Decision) -> Move | None:
        assert isinstance(d, Pair)
        ts = list(d.targets)
        if len(ts) < 2:
            return None
        first = self.seat if self.seat in ts else ts[self.rng.randrange(len(ts))]
        others = [s for s in ts if s != first]
        return {"act": d.act, d.arg: [first, others[self.rng.randrange(len(others))]]}

    def swap(self, d: Decision) -> Move | None:
        if self.ruleset in ONE_NIGHT and isinstance(d, Pair) and len(d.targets) >= 2:
            a, b = self.rng.sample(list(d.targets), 2)  # the troublemaker stirs things up
            return {"act": d.act, d.arg: [a, b]}
        return None if getattr(d, "optional", True) else self.fallback(d)

    # day
    def run(self, d: Decision) -> Move | None:
        """Stand for sheriff: the seer (to claim), the wolf who fakes the seer, now and then a villager."""
        if self.role == "seer" and not self.wolf:
            want = not self.seer_hides()  # a seer who hides does not stand: standing is claiming
        elif self.wolf:
            want = self.faker = self.faker or self.is_faker()
        else:
            want = self.rng.random() < 0.12
        return {"act": "run"} if want else None

    def is_faker(self) -> bool:
        """Whether I am the wolf who claims the seer: the lowest wolf, in half the games."""
        pack = self.pack
        return bool(pack) and self.seat == min(pack) and self.ties(99)[self.seat] < 0.5

    def sheriff_vote(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        ts = list(d.targets)
        if not ts:
            return None
        if self.wolf:
            ours = [s for s in ts if s in self.pack]
            if ours:
                return target_move(d, min(ours))
            return target_move(d, min(ts, key=self.threats().__getitem__))  # the least dangerous
        return target_move(d, self.most_trusted(ts))

    def vote(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        if self.ruleset in ONE_NIGHT:
            return self.night_vote(d)
        ts = list(d.targets)  # but me and my lover, unless nobody else is left
        if self.seat in ts:
            ts.remove(self.seat)
        if self.lover is not None and self.lover in ts:
            ts.remove(self.lover)
        ts = ts or list(d.targets)
        if not ts:
            return None
        if self.wolf:
            pack = self.pack
            mine = [s for s in ts if s not in pack]
            if not mine:
                return target_move(d, None) if d.optional else target_move(d, ts[0])
            c = self.consensus(mine)
            return target_move(d, c if c is not None else self.pack_pick(mine))
        return target_move(d, self.village_pick(ts))

    def village_pick(self, seats: list[int]) -> int | None:
        """Whom a good player votes out (and a good sheriff calls the vote on) among ``seats``."""
        b = self.board
        sc = self.scores()
        trust = self._trust
        # Two seers claim and nothing tells them apart yet: exile neither. The wolves will kill the real
        # one in the night, and that tells them apart (see _seer_trust).
        if len(trust) >= 2:
            disputed = {c for c, t in trust.items() if 0.3 < t < 0.8 and c in b.alive}
            if len(disputed) >= 2:
                seats = [s for s in seats if s not in disputed or sc[s] >= 0.75] or seats
        # follow the sheriff's call when the sheriff is above suspicion (not one of two rival seers)
        sheriff = b.sheriff
        call = b.call if sheriff is not None and sheriff != self.seat and sc[sheriff] <= 0.3 and (
            sheriff not in trust or trust[sheriff] >= 0.8) else None
        tie = self.ties(3, b.day)
        accused = b.accused
        best, best_key = None, -9.0
        if call is None and not accused:  # the usual case, and the same sums as below without their zero terms
            for s in seats:
                k = sc[s] + 0.001 * tie[s]
                if k > best_key:
                    best, best_key = s, k
            return best
        for s in seats:
            # sc + (0.3 if called) + 0.03 a accusation + 0.001 tie, summed in that order; a zero term is skipped
            k = sc[s]
            if s == call:
                k += 0.3
            a = accused.get(s)
            if a:
                k += 0.03 * len(a)
            k += 0.001 * tie[s]
            if k > best_key:
                best, best_key = s, k
        return best

    def shoot(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        if not d.targets:
            return None
        if self.wolf:
            return target_move(d, self.pack_pick(d.targets))
        s = self.most_suspect(d.targets)
        if s is not None and self.scores()[s] >= 0.35:
            return target_move(d, s)
        return target_move(d, None) if d.optional else target_move(d, s)

    def badge(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        ts = [s for s in d.targets if s != self.seat]
        if not ts:
            return None if d.optional else self.fallback(d)
        if self.wolf:
            ours = [s for s in ts if s in self.pack]
            if ours:
                return target_move(d, ours[0])
            return target_move(d, None) if d.optional else target_move(d, ts[0])
        pick = self.most_trusted(ts)
        if pick is not None and self.scores()[pick] > 0.35 and d.optional:
            return target_move(d, None)
        return target_move(d, pick)

    def explode(self, d: Decision) -> Move | None:
        if not self.wolf:
            return None
        seat, pack = self.seat, self.pack
        for c, reps in self.board.reports.items():
            if c not in pack and reps.get(seat) in WOLFISH:
                break  # a player who is not one of us names me a wolf
        else:
            return None
        when = getattr(d, "context", {}).get("when", "discussion")
        chance = 0.5 if when == "election" else 0.2
        if self.rng.random() >= chance:
            return None
        move: Move = {"act": "explode", "when": when}
        targets = getattr(d, "targets", None)
        if targets:
            pick = self.pack_pick(targets)
            if pick is not None:
                move["target"] = pick
        return move

    def duel(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        s = self.most_suspect(d.targets)
        if s is not None and self.scores()[s] >= 0.8:
            return target_move(d, s)
        return None

    def reveal(self, d: Decision) -> Move | None:
        return {"act": "reveal"}

    def no(self, d: Decision) -> Move | None:
        return None

    def ban(self, d: Decision) -> Move | None:
        assert isinstance(d, Subset)
        sc = self.scores()
        ts = sorted(d.targets, key=lambda s: -sc[s])
        return {"act": d.act, d.arg: [s for s in ts[:d.most] if sc[s] >= 0.5]}

    def infect(self, d: Decision) -> Move | None:
        return {"act": "infect"} if self.board.night >= 2 else None

    def order(self, d: Decision) -> Move | None:
        assert isinstance(d, Choice)
        return {"act": d.act, d.arg: d.values[0]}

    def choice(self, d: Decision) -> Move | None:
        assert isinstance(d, Choice)
        if d.act == "side":
            return {"act": d.act, d.arg: "village" if "village" in d.values else d.values[0]}
        return {"act": d.act, d.arg: d.values[self.rng.randrange(len(d.values))]}

    # -- one-night rulesets ---------------------------------------------------------------
    def look(self, d: Decision) -> Move | None:
        targets = list(getattr(d, "targets", ()))
        n_center = getattr(d, "n_center", 0)
        k = getattr(d, "k", 0)
        if targets and (self.rng.random() < 0.7 or not n_center):
            return {"act": "look", "target": targets[self.rng.randrange(len(targets))]}
        if n_center and k:
            cards = sorted(self.rng.sample(range(1, n_center + 1), k))
            return {"act": "look", "cards": cards}
        return None

    def copy(self, d: Decision) -> Move | None:
        return self.fallback(d)

    def rob(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        if not d.targets or self.rng.random() < 0.2:
            return None if d.optional else self.fallback(d)
        return target_move(d, d.targets[self.rng.randrange(len(d.targets))])

    def peek(self, d: Decision) -> Move | None:
        assert isinstance(d, Choice)
        return {"act": d.act, d.arg: d.values[0]}

    def night_scores(self) -> list[float]:
        """One-night: how likely each other seat holds a werewolf card now (index = seat; mine stays 0.3)."""
        b = self.board
        n, me = b.n, self.seat
        if me in b.reports:
            sc = b.night_suspicion(me)
        else:  # what the table said, as anyone who reported nothing hears it; about me, nothing counts
            sc = b.table_night_suspicion().copy()
            sc[me] = 0.3
        # what I know for sure, the later the surer: the cards I saw, then where the robber's card went,
        # then the wolves and the good players I know
        for s, seen in self.cards.items():
            if s != me and 0 < s <= n:
                sc[s] = 1.0 if seen == "werewolf" else 0.0
        if self.dealt == "robber" and self.robbed:
            for s in self.robbed:
                if s != me and 0 < s <= n:
                    sc[s] = 0.0  # the robber's card is there now
        for s in self.pack:
            if s != me and 0 < s <= n:
                sc[s] = 1.0
        for s in self.good:
            if s != me and 0 < s <= n:
                sc[s] = 0.0
        return sc

    def night_vote(self, d: Decision) -> Move | None:
        assert isinstance(d, Target)
        ts = list(d.targets)
        if self.seat in ts:
            ts.remove(self.seat)
        ts = ts or list(d.targets)
        role = self.now_role or self.role
        if role == "tanner":
            return target_move(d, ts[self.rng.randrange(len(ts))])
        if self.team_wolf:
            wolves = set(self.pack) | ({self.seat} if role == "werewolf" else set())
            if self.dealt == "robber" and self.robbed:
                wolves -= set(self.robbed)  # the wolf I robbed holds the robber now
            mine = [s for s in ts if s not in wolves] or ts
            # all of us on one player who is not one of us, chosen from what the whole table heard
            # (so that every wolf picks the same one): the most accused, a claimed seer first
            b = self.board
            tie = self.ties(6, min(self.pack) if self.pack else 0)
            accused, claims = b.accused, b.claims
            pick, best = mine[0], -1.0
            for s in mine:
                k = len(accused.get(s, ())) + (0.5 if claims.get(s) == "seer" else 0) + tie[s]
                if k > best:
                    pick, best = s, k
            return target_move(d, pick)
        sc = self.night_scores()
        tie = self.ties(5)
        pick = ts[0]
        best, best_tie = sc[pick], tie[pick]
        for s in ts:  # the highest score, then the highest tie-break; the first of equals
            x = sc[s]
            if x > best or (x == best and tie[s] > best_tie):
                pick, best, best_tie = s, x, tie[s]
        return target_move(d, pick)

    # -- speaking ---------------------------------------------------------------------------
    def speak(self, part: str) -> list[Act]:
        """What I say at a speaking turn (``election``, ``discussion``, ``pk``, ``last_words``)."""
        if self.ruleset in ONE_NIGHT:
            return self.speak_one_night()
        b = self.board
        me = self.seat
        acts: list[Act] = []
        say = acts.append
        phase = f"day{b.day}"
        if self.wolf:
            pack = self.pack
            if self.faker or (part != "pk" and self.is_faker() and "seer" not in [
                    r for s, r in b.claims.items() if s in pack]):
                self.faker = True
                if not self.claimed:
                    say(Act(self.seat, "claim", role="seer", phase=phase))
                    self.claimed = True
                target, result = self.fake_check(fresh_day=self.fake_day < b.day)
                if target is not None:
                    self.fake_day = b.day
                    say(Act(self.seat, "check", target, result=result, phase=phase))
                    if result in WOLFISH and target in b.alive:
                        say(Act(self.seat, "accuse", target, phase=phase))
            else:
                if b.accused.get(me) or me in b.pk:
                    say(Act(me, "defend", phase=phase))
                target = self.consensus(list(filterfalse(pack.__contains__, b.alive)))
                for seer in b.seer_claims()[0]:  # the real seer, as far as the pack can tell, before anyone else
                    if seer not in pack and seer in b.alive:
                        target = seer
                        break
                if target is not None:
                    say(Act(self.seat, "accuse", target, phase=phase))
            if b.sheriff == me and part == "discussion":
                pick = self.consensus([s for s in b.alive if s not in pack])
                pick = pick if pick is not None else self.pack_pick(b.alive)
                if pick is not None:
                    say(Act(self.seat, "call", pick, phase=phase))
            return acts
        if self.role == "seer" and (self.checks or part in ("election", "last_words")) and (
                self.claimed or part in ("last_words", "pk") or b.accused.get(me) or not self.seer_hides()):
            if not self.claimed:
                say(Act(self.seat, "claim", role="seer", phase=phase))
                self.claimed = True
            for target, result in self.checks.items():
                if target not in self.reported:
                    self.reported.add(target)
                    say(Act(self.seat, "check", target, result=result, phase=phase))
            for target, result in self.checks.items():
                if result in WOLFISH and target in b.alive:
                    say(Act(self.seat, "accuse", target, phase=phase))
                    break
        elif b.accused.get(self.seat) or self.seat in b.pk or part == "last_words":
            if self.role in ("witch", "hunter", "guard", "idiot", "knight") and not self.claimed:
                say(Act(self.seat, "claim", role=self.role, phase=phase))
                self.claimed = True
            say(Act(self.seat, "defend", phase=phase))
        if part in ("discussion", "last_words") and not (self.role == "seer" and acts):
            alive = list(b.alive)
            if me in b.alive:
                alive.remove(me)
            s = self.most_suspect(alive, b.day)
            if s is not None and self.scores()[s] >= 0.5:
                say(Act(self.seat, "accuse", s, phase=phase))
        if self.role == "witch":
            for v in sorted(self.victims - self.vouched):  # the one she saved: silver water (銀水)
                if v != self.seat and v in b.alive:
                    self.vouched.add(v)
                    say(Act(self.seat, "vouch", v, phase=phase))
        if b.sheriff == me and part == "discussion":
            lover = self.lover
            s = self.village_pick([s for s in b.alive if s != me and s != lover])
            if s is not None:
                say(Act(self.seat, "call", s, phase=phase))
        return acts

    def fake_check(self, fresh_day: bool) -> tuple[int | None, str]:
        """A false check: the real seer as a wolf (查殺) as soon as it claims; else, once a day, a good
        player as a wolf or a packmate as good."""
        b = self.board
        wolfish = "not_village" if self.ruleset == "wechat" else "wolf"
        goodish = "village" if self.ruleset == "wechat" else "good"
        real = [s for s, r in b.claims.items() if r == "seer" and s not in self.pack and s in b.alive
                and s not in self.fake_checks]
        if real:
            self.fake_checks[real[0]] = wolfish
            return real[0], wolfish
        if not fresh_day:
            return None, ""
        fresh = [s for s in sorted(b.alive) if s != self.seat and s not in self.fake_checks]
        if not fresh:
            return None, ""
        mates = [s for s in fresh if s in self.pack]
        if mates and self.rng.random() < 0.4:
            self.fake_checks[mates[0]] = goodish
            return mates[0], goodish
        goods = [s for s in fresh if s not in self.pack]
        if not goods:
            return None, ""
        s = goods[self.rng.randrange(len(goods))]
        result = wolfish if self.rng.random() < 0.6 else goodish
        self.fake_checks[s] = result
        return s, result

    def speak_one_night(self) -> list[Act]:
        b = self.board
        me = self.seat
        acts: list[Act] = []
        say = acts.append
        role = self.dealt if self.dealt != "doppelganger" else self.role
        if self.team_wolf or role in WOLF_CARDS:
            if role == "minion" or (self.rng.random() < 0.3 and role != "werewolf"):
                say(claim_act(me, "werewolf"))  # the minion draws the vote to himself
                return acts
            centre_roles = [r for r in self.center_seen.values() if r not in WOLF_CARDS]
            fake = centre_roles[0] if centre_roles else ("seer" if self.rng.random() < 0.4 else "villager")
            say(claim_act(me, fake))
            if fake == "seer":
                goods = [s for s in range(1, b.n + 1) if s != me and s not in self.pack]
                if goods:
                    s = goods[self.rng.randrange(len(goods))]
                    say(check_act(me, s, "werewolf"))
                    say(accuse_act(me, s))
            return acts
        if role == "tanner":
            say(claim_act(me, "werewolf"))
            return acts
        say(claim_act(me, role))
        if role != "robber":
            for s, seen in self.cards.items():
                say(check_act(me, s, seen))
                if seen == "werewolf":
                    say(accuse_act(me, s))
        elif self.robbed:
            for s, took in self.robbed.items():
                say(check_act(me, s, took))
        if role == "insomniac" and self.now_role:
            say(check_act(me, me, self.now_role))
        return acts


_MIND: Final[dict[str, Callable[[Mind, dict[str, Any]], None]]] = {
    "role": Mind._role, "took": Mind._took, "pack": Mind._pack, "transformed": Mind._turned,
    "infected": Mind._turned, "side": Mind._turned, "victim": Mind._victim, "check": Mind._check,
    "bottom_cards": Mind._bottom, "linked": Mind._lovers, "lovers": Mind._lovers, "sniff": Mind._sniff,
    "wolves": Mind._wolves, "thumbs": Mind._wolves, "masons": Mind._masons, "siblings": Mind._masons,
    "copy": Mind._copy, "rob": Mind._rob, "own_card": Mind._own, "peek": Mind._peek,
}

_ACTS: Final[dict[str, Callable[[Mind, Decision], Move | None]]] = {
    "kill": Mind.kill, "check": Mind.check, "look": Mind.look, "save": Mind.save, "poison": Mind.poison,
    "guard": Mind.guard, "shield": Mind.protect, "dream": Mind.protect, "silence": Mind.harm, "curse": Mind.harm,
    "sniff": Mind.harm, "charm": Mind.wolf_harm, "extra_kill": Mind.wolf_harm, "widow_kill": Mind.wolf_harm,
    "enchant": Mind.anyone, "model": Mind.anyone, "support": Mind.anyone, "take": Mind.take, "link": Mind.link,
    "swap": Mind.swap, "run": Mind.run, "withdraw": Mind.no, "sheriff_vote": Mind.sheriff_vote,
    "sheriff_pk_vote": Mind.sheriff_vote, "vote": Mind.vote, "pk_vote": Mind.vote, "shoot": Mind.shoot,
    "badge": Mind.badge, "explode": Mind.explode, "duel": Mind.duel, "reveal": Mind.reveal, "ban": Mind.ban,
    "infect": Mind.infect, "second_vote": Mind.no, "order": Mind.order, "oppose": Mind.choice,
    "side": Mind.choice, "copy": Mind.copy, "rob": Mind.rob, "peek": Mind.peek,
}

_NIGHT_ACTS: Final = {**_ACTS, "check": Mind.look, "vote": Mind.night_vote}


class HeuristicAgent(Agent):
    """Plays the seats it is asked for, each with its own heuristic ``Mind``, from seat views only.

    One agent may play any number of seats of one game (the web's and the terminal's bots, the
    simulations): each seat's mind learns only from that seat's ``SeatView``: its private log,
    and the public log (events and every seat's statements), which the minds share as one
    ``Board`` since it is the same for every seat. ``seats``, when given, are the only seats it
    may be asked for (anything else is refused). ``lang`` is the language of live play's
    ``speak`` answers. ``strict``: every mind gets its own board, read from its own view, and
    records what it was handed (``Mind.seen``); the tests play the same games both ways.
    """

    def __init__(self, rng: random.Random | None = None, *, channel: Channel | None = None,
                 seats: Iterable[int] | None = None, ruleset: str | None = None, strict: bool = False,
                 lang: str = "en", salt: int | None = None, policy: Policy = DEFAULT_POLICY) -> None:
        self.rng = rng or random.Random()
        self.policy = policy  # the habits drawn at random, game by game (see Policy)
        self.channel = channel  # unused: the table's statements are in the seats' views (kept for callers)
        self.only = frozenset(seats) if seats is not None else None
        self.ruleset = ruleset
        self.strict = strict
        self.lang = lang
        # The seed of the fixed tie-breaks (drawn from ``rng`` unless given: agents given the same salt
        # and one random stream play alike, however the seats are shared out among them).
        self.salt = self.rng.getrandbits(32) if salt is None else salt
        self.tie_rows: dict[tuple[int, ...], list[float]] = {}  # fixed tie-breaks, a function of the salt only
        self.board = Board()  # shared by every mind: the public log, the same in every seat's view
        self.minds: dict[int, Mind] = {}
        self.rounds: dict[int, int] = {}  # seat -> the rounds of a live one-night discussion it was asked

    def mind(self, view: SeatView) -> Mind:
        """The seat's mind, caught up with everything new in its view."""
        seat = view.seat
        m = self.minds.get(seat)
        if m is None:
            if self.only is not None and seat not in self.only:
                raise ValueError(f"this agent plays seats {sorted(self.only)}, not seat {seat}")
            if self.ruleset is None:
                self.ruleset = view.ruleset
            board = Board() if self.strict else self.board
            m = self.minds[seat] = Mind(seat, board, self.rng, self.ruleset, self.salt, self.strict, self.tie_rows,
                                        self.policy)
        board = m.board
        if self.strict:  # its own board: everything new in its view, in order, checked and recorded
            for e in view.events_since(board.read, m.read):
                if e.to is None:
                    board.observe(e)
                m.observe(e)
            board.read, m.read = view.public.stop, view.private.stop
            return m
        public = view.public
        n = public.stop
        if board.read < n:  # the shared board: the public log, read once whichever seat's view shows it
            for e in public.since(board.read):
                if e.type in _BOARD:
                    board.observe(e)
            board.read = n
        private = view.private
        if m.read < private.stop:
            for e in private.since(m.read):
                m.observe(e)
            m.read = private.stop
        return m

    def act(self, view: SeatView) -> Move | None:
        d = view.decision
        if d is None:
            return None
        return self.mind(view).decide(d)

    def speak(self, view: SeatView) -> list[Act]:
        """The seat's statements at its speaking turn (live: its ``speak`` decision)."""
        m = self.mind(view)
        part = view.part or "discussion"
        if self.ruleset in ONE_NIGHT:
            live = view.decision is not None
            return self.discussion_round(m) if live else m.speak_one_night()
        return m.speak(part)

    def discussion_round(self, m: Mind) -> list[Act]:
        """My statement at one turn of a live one-night discussion (asked again as soon as I have spoken):
        everything I have to say at the first, an answer to an accusation heard meanwhile at the second,
        then nothing (I am ready to vote), so that even an unlimited discussion ends."""
        said = self.rounds.get(m.seat, 0)
        self.rounds[m.seat] = said + 1
        if said == 0:
            return m.speak("discussion")
        # The tanner and the minion want the votes an accusation draws.
        if said == 1 and m.seat in m.board.accused and m.dealt not in ("tanner", "minion"):
            return [Act(m.seat, "defend")]
        return []

    def value_of(self, view: SeatView) -> Any:
        """The engine value of this bot's answer to ``view.decision``, unchecked (trusted, fast loops)."""
        d = view.decision
        assert d is not None
        m = self.minds.get(view.seat)
        if m is None or self.strict or m.board.read < view.public.stop or m.read < view.private.stop:
            m = self.mind(view)  # something new to read (else the seat's mind is as its view)
        move = m.decide(d)
        return d.default_value() if move is None else d.value(move)
