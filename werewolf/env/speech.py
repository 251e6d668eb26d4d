"""Speech actions: what an environment seat says at its speaking turns, as discrete actions.

The engine's log records *that* a seat speaks (``speech``, ``last_words``, the one-night
``discussion``), not what it says; agents talk through the structured statements of
``werewolf.agents.speech`` (``Act``), which the ``Host`` puts in every seat's view. With
``speech=True`` an environment does the same for its seats: at each speaking turn of the log the
speaker owes a ``say`` decision (a ``SpeechTurn``), answered one statement at a time:

    say:claim:<role>          "I am the <role>" (any role of the game's deck: a lie is a legal claim)
    say:check:<seat>:<good|wolf>   a day-and-night seer's report of a check
    say:check:<seat>:<role>   a one-night report of a card of the deck seen (onuw, onenight)
    say:accuse:<seat>         "<seat> is a wolf"
    say:vouch:<seat>          "<seat> is good"
    say:vote:<seat>           "I will vote for <seat>" (an intention; the vote is still its own decision)
    say:call:<seat>           the sheriff calls the vote on <seat> (only the sheriff)
    say:defend                "I am good"
    say:done                  the turn ends

Each statement is heard at once: it enters every seat's public encoding (``claims``, ``reports``,
``accuse``, ``vouch``, ``intent``, ``defend``) before the speaker's next action. A turn ends with
``say:done`` or after ``max_statements`` statements; a statement is not said twice in one turn.
The seats named are seats of this game (a target other than the speaker; accuse, vouch, vote and
call name a living seat), so the mask is a function of what the seat may see.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from werewolf.agents.speech import Act
from werewolf.core.decisions import Decision, Move
from werewolf.env.actions import max_seats, ruleset_roles
from werewolf.rulesets import get_ruleset

SAY = "say"
DONE = "say:done"
TARGETED = ("accuse", "vouch", "vote", "call")
RESULTS = ("good", "wolf")  # day-and-night check reports (wechat's village / not_village read as these)
MAX_STATEMENTS = 3
# Public events that open speaking turns (as the ``Host`` reads them): one seat's, or every seat's.
HOOKS = frozenset({"speech", "last_words", "discussion"})


def one_night(ruleset: str) -> bool:
    """Whether ``ruleset`` is a one-night game (a check report names the card seen, not a side)."""
    from werewolf.rulesets.onenight_common import OneNightRuleset

    return isinstance(get_ruleset(ruleset), OneNightRuleset)


def speech_ids(ruleset: str) -> list[str]:
    """Every speech action id of ``ruleset`` (appended to its stored action space)."""
    n, roles = max_seats(ruleset), ruleset_roles(ruleset)
    ids = [DONE, f"{SAY}:defend"] + [f"{SAY}:claim:{r}" for r in roles]
    results = roles if one_night(ruleset) else RESULTS
    ids += [f"{SAY}:check:{s}:{x}" for s in range(1, n + 1) for x in results]
    ids += [f"{SAY}:{k}:{s}" for k in TARGETED for s in range(1, n + 1)]
    return ids


def decode(oid: str, seat: int, phase: str = "") -> Act | None:
    """The statement of a speech id said by ``seat`` (None: ``say:done``)."""
    parts = oid.split(":")
    kind = parts[1]
    if kind == "done":
        return None
    if kind == "defend":
        return Act(seat, "defend", phase=phase)
    if kind == "claim":
        return Act(seat, "claim", role=parts[2], phase=phase)
    if kind == "check":
        x = parts[3]
        if x in RESULTS:
            return Act(seat, "check", int(parts[2]), result=x, phase=phase)
        return Act(seat, "check", int(parts[2]), role=x, phase=phase)
    return Act(seat, kind, int(parts[2]), phase=phase)


class SpeechTurn(Decision):
    """A seat's speaking turn in an environment (not an engine decision: the engine never sees it).

    ``said`` holds the action indices of the statements said so far this turn."""

    __slots__ = ("part", "said")

    def __init__(self, seat: int, part: str) -> None:
        super().__init__(seat, SAY, why=f"your turn to speak ({part})")
        self.part = part
        self.said: list[int] = []

    def options(self) -> list[Move]:  # the engine's notion: a speaking turn is answered by saying nothing
        return [{"act": SAY}]

    def value(self, move: Move) -> Any:
        return None

    def __repr__(self) -> str:
        return f"<SpeechTurn seat={self.seat} part={self.part} said={len(self.said)}>"


class SpeechSpace:
    """The speech actions of one ruleset in its action space, and the mask of a turn."""

    def __init__(self, ruleset: str, index: dict[str, int], n: int, max_statements: int = MAX_STATEMENTS) -> None:
        seats = max_seats(ruleset)
        self.n = n
        self.max_statements = max_statements
        self.done = index[DONE]
        self.roles = ruleset_roles(ruleset)
        self.one_night = one_night(ruleset)
        # Legal for any speaker: done, defend (and the claims of the roles in the game's deck: ``for_deck``).
        self.base = np.zeros(n, dtype=np.int8)
        self.base[[index[DONE], index[f"{SAY}:defend"]]] = 1
        self.claim = np.array([index[f"{SAY}:claim:{r}"] for r in self.roles])
        results = self.roles if self.one_night else RESULTS
        # By seat (row s - 1): the check reports on s, and accuse / vouch / vote on s; call apart (the sheriff's).
        self.check = np.array([[index[f"{SAY}:check:{s}:{x}"] for x in results] for s in range(1, seats + 1)])
        self.target = np.array([[index[f"{SAY}:{k}:{s}"] for k in ("accuse", "vouch", "vote")]
                                for s in range(1, seats + 1)])
        self.call = np.array([index[f"{SAY}:call:{s}"] for s in range(1, seats + 1)])

    def for_deck(self, deck: set[str]) -> tuple[np.ndarray, np.ndarray]:
        """The base mask of a game whose deck holds the roles ``deck`` (public: the table knows the box),
        with their claims; and the columns of ``check`` it may report (one-night: the cards of the deck)."""
        keep = np.array([r in deck for r in self.roles])
        base = self.base.copy()
        base[self.claim[keep]] = 1
        columns = np.flatnonzero(keep) if self.one_night else np.arange(len(RESULTS))
        return base, columns

    def mask(self, turn: SpeechTurn, players: int, alive: np.ndarray, sheriff: int | None,
             deck: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The legal speech actions of ``turn``: ``alive`` is the public encoding's (by seat, from 0), ``deck``
        the game's ``for_deck``."""
        base, columns = deck
        m = base.copy()
        others = np.ones(players, dtype=bool)
        others[turn.seat - 1] = False
        m[self.check[:players][others][:, columns].ravel()] = 1
        living = others & (alive[:players] > 0)
        m[self.target[:players][living].ravel()] = 1
        if sheriff == turn.seat:
            m[self.call[:players][living]] = 1
        if turn.said:
            m[turn.said] = 0
        m.flags.writeable = False
        return m
