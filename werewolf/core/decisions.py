"""Decisions: what the engine asks one seat, with the legal answers.

A move (an answer) is a plain dict in the public act vocabulary of
SCRIPTED_GAMES.md, e.g. ``{"act": "vote", "target": 4}``. Each decision knows
its legal moves, checks a move (returning the rule a bad move breaks), turns a
legal move into the value the rules flow receives, and has a default: what the
rules do when a player gives no answer (no action, or the first legal option
where the rules force a choice).

``options()`` lists every legal move (for the web API and for agents);
``random_value`` draws one cheaply (for simulations).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from mypy_extensions import mypyc_attr

from werewolf.core.draws import randbelow

Move = dict[str, Any]


class _Open:
    """The type of ``OPEN``: one object, that pickles as a reference to itself (a pickled game's open
    request keeps it, compared by identity)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "OPEN"

    def __repr__(self) -> str:
        return "OPEN"


OPEN: Final[Any] = _Open()  # the value of a decision not answered yet (``Decision.heard_at_once``)


# Agents and tests may subclass a decision even where the engine is compiled (mypyc).
@mypyc_attr(allow_interpreted_subclasses=True)
class Decision:
    """One question to one seat. Subclasses fix the shape of the answer."""

    __slots__ = ("seat", "act", "interrupt", "why")

    def __init__(self, seat: int, act: str, *, interrupt: bool = False, why: str = "") -> None:
        self.seat = seat
        self.act = act
        # An interrupt (self-destruct, duel) is offered at a boundary and is
        # normally declined; agents treat it as rare.
        self.interrupt = interrupt
        self.why = why

    @property
    def acts(self) -> tuple[str, ...]:
        return (self.act,)

    def accepts(self, move: Move) -> bool:
        """Whether ``move`` answers this decision (right act, right context)."""
        return move.get("act") == self.act

    def check(self, move: Move) -> str | None:
        raise NotImplementedError

    def value(self, move: Move) -> Any:
        raise NotImplementedError

    def default_value(self) -> Any:
        return None

    def heard_at_once(self) -> bool:
        """Whether the rules hear this answer as soon as it is given, the request's other decisions still
        open (their values ``OPEN``; the flow asks them again): a statement is said when it is sent. Most
        answers are heard together, once the whole request is answered (blind picks, votes)."""
        return False

    def options(self) -> list[Move]:
        raise NotImplementedError

    def random_value(self, rng: random.Random) -> Any:
        opts = self.options()
        return self.value(opts[randbelow(rng, len(opts))])

    def describe(self) -> dict[str, Any]:
        """A JSON-able summary for views."""
        return {"seat": self.seat, "act": self.act, "kind": type(self).__name__.lower(),
                "options": self.options(), "why": self.why}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seat={self.seat} act={self.act}>"


def wrong_act(d: Decision, move: Move) -> str | None:
    """Why ``move`` does not answer ``d`` at all (another act, or another context), if it does not:
    every ``check`` starts with it, so a move of another act is never taken for a legal one."""
    if d.accepts(move):
        return None
    act = move.get("act")
    if act not in d.acts:
        return f"this decision asks for {' or '.join(repr(a) for a in d.acts)}, not {act!r}"
    context: Mapping[str, Any] = getattr(d, "context", _NO_CONTEXT)
    wanted = ", ".join(f"{k}={v!r}" for k, v in context.items())
    given = ", ".join(f"{k}={move.get(k)!r}" for k in context)
    return f"this {act!r} decision is for {wanted}, not {given}"


def _unknown_keys(move: Move, allowed: Iterable[str]) -> str | None:
    extra = set(move) - {"act", "seat", *allowed}
    if extra:
        return f"unexpected field(s) {', '.join(sorted(extra))}"
    return None


_NONE_FORBIDDEN: Final[Mapping[int, str]] = MappingProxyType({})
_NO_CONTEXT: Final[Mapping[str, Any]] = MappingProxyType({})


@mypyc_attr(allow_interpreted_subclasses=True)
class Target(Decision):
    """Choose one seat (``target``), or ``null`` for no action when optional."""

    __slots__ = ("targets", "optional", "forbidden", "arg")

    def __init__(self, seat: int, act: str, targets: Sequence[int], *, optional: bool = True,
                 forbidden: Mapping[int, str] | None = None, arg: str = "target",
                 interrupt: bool = False, why: str = "") -> None:
        # The most frequent decision (every vote): set the fields directly, no super() call.
        self.seat = seat
        self.act = act
        self.interrupt = interrupt
        self.why = why
        self.targets = targets if type(targets) is tuple else tuple(targets)
        self.optional = optional
        # Seats that a rule forbids, with the rule, for precise error messages (most votes: none, shared).
        self.forbidden = forbidden or _NONE_FORBIDDEN
        self.arg = arg

    def check(self, move: Move) -> str | None:
        bad = wrong_act(self, move) or _unknown_keys(move, (self.arg,))
        if bad:
            return bad
        t = move.get(self.arg)
        if t is None:
            return None if self.optional else f"a {self.arg} is required: this choice is forced"
        if isinstance(t, bool) or not isinstance(t, int):
            return f"{self.arg} must be a seat number, not {t!r}"
        if t in self.targets:
            return None
        if t in self.forbidden:
            return self.forbidden[t]
        return f"seat {t} is not a legal {self.arg} (legal: {_seats(self.targets)})"

    def value(self, move: Move) -> int | None:
        t = move.get(self.arg)
        return t if isinstance(t, int) else None

    def default_value(self) -> int | None:
        if self.optional or not self.targets:
            return None
        return self.targets[0]

    def options(self) -> list[Move]:
        out: list[Move] = [{"act": self.act, self.arg: t} for t in self.targets]
        if self.optional:
            out.append({"act": self.act, self.arg: None})
        return out

    def random_value(self, rng: random.Random) -> int | None:
        targets = self.targets
        n = len(targets) + (1 if self.optional else 0)
        if n == 0:
            return None
        i = int(rng.random() * n)  # one C call; randrange costs three Python ones
        return targets[i] if i < len(targets) else None


class Pair(Decision):
    """Choose two distinct seats (``targets``: [a, b]) from ``targets``."""

    __slots__ = ("targets", "optional", "arg", "allowed_pairs")

    def __init__(self, seat: int, act: str, targets: Sequence[int], *, optional: bool = True,
                 arg: str = "targets", why: str = "") -> None:
        super().__init__(seat, act, why=why)
        self.targets = tuple(targets)
        self.optional = optional
        self.arg = arg

    def check(self, move: Move) -> str | None:
        bad = wrong_act(self, move) or _unknown_keys(move, (self.arg,))
        if bad:
            return bad
        v = move.get(self.arg)
        if v is None:
            return None if self.optional else f"{self.arg} are required: this choice is forced"
        if (not isinstance(v, (list, tuple)) or len(v) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
            return f"{self.arg} must be a list of two numbers, not {v!r}"
        a, b = v
        if a == b:
            return f"the two {self.arg} must differ"
        for x in (a, b):
            if x not in self.targets:
                return f"{x} is not a legal choice (legal: {_seats(self.targets)})"
        return None

    def value(self, move: Move) -> tuple[int, int] | None:
        v = move.get(self.arg)
        return (v[0], v[1]) if v else None

    def default_value(self) -> tuple[int, int] | None:
        if self.optional or len(self.targets) < 2:
            return None
        return (self.targets[0], self.targets[1])

    def options(self) -> list[Move]:
        ts = self.targets
        out: list[Move] = [{"act": self.act, self.arg: [a, b]}
                           for i, a in enumerate(ts) for b in ts[i + 1:]]
        if self.optional:
            out.append({"act": self.act, self.arg: None})
        return out

    def random_value(self, rng: random.Random) -> tuple[int, int] | None:
        if len(self.targets) < 2 or (self.optional and rng.random() < 0.5):
            return None
        a, b = rng.sample(self.targets, 2)
        return (a, b)


class Choice(Decision):
    """Choose one value of ``arg`` among ``values`` (a card, a side, a direction...)."""

    __slots__ = ("arg", "values", "default", "optional")

    def __init__(self, seat: int, act: str, arg: str, values: Sequence[Any], *,
                 default: Any = None, optional: bool = False, why: str = "") -> None:
        super().__init__(seat, act, why=why)
        self.arg = arg
        self.values = tuple(values)
        self.default = default if default is not None or optional else self.values[0]
        self.optional = optional

    def check(self, move: Move) -> str | None:
        bad = wrong_act(self, move) or _unknown_keys(move, (self.arg,))
        if bad:
            return bad
        v = move.get(self.arg, None)
        if v is None:
            return None if self.optional else f"{self.arg} is required: this choice is forced"
        if v in self.values and type(v) is type(self.values[self.values.index(v)]):
            return None
        return f"{self.arg} {v!r} is not legal (legal: {', '.join(map(repr, self.values))})"

    def value(self, move: Move) -> Any:
        return move.get(self.arg)

    def default_value(self) -> Any:
        return self.default

    def options(self) -> list[Move]:
        out: list[Move] = [{"act": self.act, self.arg: v} for v in self.values]
        if self.optional:
            out.append({"act": self.act, self.arg: None})
        return out

    def random_value(self, rng: random.Random) -> Any:
        n = len(self.values) + (1 if self.optional else 0)
        i = randbelow(rng, n)
        return self.values[i] if i < len(self.values) else None


class Flag(Decision):
    """Do it or not: ``{"act": A}`` is yes, ``{"act": A, "value": false}`` is no.

    ``context`` adds fixed fields a move must match to answer this decision
    (``{"when": "election"}`` for a self-destruct offered during the election);
    a move that leaves such a field out takes ``context_defaults``.
    """

    __slots__ = ("default", "context", "context_defaults")

    def __init__(self, seat: int, act: str, *, default: bool = False,
                 context: Mapping[str, Any] | None = None, context_defaults: Mapping[str, Any] | None = None,
                 interrupt: bool = False, why: str = "") -> None:
        # Asked of every living player at each election: set the fields directly, no super() call.
        self.seat = seat
        self.act = act
        self.interrupt = interrupt
        self.why = why
        self.default = default
        # Most flags (every "run" and "withdraw") have no context: share one empty mapping.
        self.context = context or _NO_CONTEXT
        self.context_defaults = context_defaults or _NO_CONTEXT

    def accepts(self, move: Move) -> bool:
        if move.get("act") != self.act:
            return False
        for k, v in self.context.items():
            if move.get(k, self.context_defaults.get(k)) != v:
                return False
        return True

    def check(self, move: Move) -> str | None:
        bad = wrong_act(self, move) or _unknown_keys(move, ("value", *self.context))
        if bad:
            return bad
        v = move.get("value", True)
        if not isinstance(v, bool):
            return f"value must be true or false, not {v!r}"
        return None

    def value(self, move: Move) -> bool:
        return bool(move.get("value", True))

    def default_value(self) -> bool:
        return self.default

    def options(self) -> list[Move]:
        return [{"act": self.act, **self.context}, {"act": self.act, **self.context, "value": False}]

    def random_value(self, rng: random.Random) -> bool:
        if self.interrupt:
            return rng.random() < 0.03
        return rng.random() < 0.5


class AnyOf(Decision):
    """One of several acts, or none: the witch's save | poison | pass.

    The value is ``(act, value)`` of the alternative taken, or ``None``.
    ``conflict`` names the rule broken when a script answers two alternatives.
    """

    __slots__ = ("alternatives", "conflict")

    def __init__(self, seat: int, alternatives: Sequence[Decision], *, conflict: str, why: str = "") -> None:
        super().__init__(seat, "|".join(d.act for d in alternatives), why=why)
        self.alternatives = tuple(alternatives)
        self.conflict = conflict

    @property
    def acts(self) -> tuple[str, ...]:
        return tuple(d.act for d in self.alternatives)

    def _alt(self, move: Move) -> Decision | None:
        for d in self.alternatives:
            if d.accepts(move):
                return d
        return None

    def accepts(self, move: Move) -> bool:
        return self._alt(move) is not None

    def check(self, move: Move) -> str | None:
        d = self._alt(move)
        return wrong_act(self, move) if d is None else d.check(move)

    def value(self, move: Move) -> tuple[str, Any] | None:
        d = self._alt(move)
        assert d is not None
        v = d.value(move)
        if v is None or v is False:
            return None
        return (d.act, v)

    def default_value(self) -> None:
        return None

    def options(self) -> list[Move]:
        out: list[Move] = []
        for d in self.alternatives:
            out.extend(o for o in d.options() if d.value(o) not in (None, False))
        out.append({"act": self.alternatives[0].act, **_no(self.alternatives[0])})
        return out

    def random_value(self, rng: random.Random) -> tuple[str, Any] | None:
        d = self.alternatives[randbelow(rng, len(self.alternatives))]
        v = d.random_value(rng)
        if v is None or v is False:
            return None
        return (d.act, v)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["acts"] = list(self.acts)
        return out


def _no(d: Decision) -> dict[str, Any]:
    if isinstance(d, Flag):
        return {"value": False}
    if isinstance(d, (Target, Pair, Choice)):
        return {d.arg: None}
    return {}


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(map(str, seats)) if seats else "none"


class Subset(Decision):
    """Choose up to ``most`` distinct seats (``targets``: [...]); an empty list is no action."""

    __slots__ = ("targets", "most", "arg")

    def __init__(self, seat: int, act: str, targets: Sequence[int], most: int, *, arg: str = "targets",
                 why: str = "") -> None:
        super().__init__(seat, act, why=why)
        self.targets = tuple(targets)
        self.most = most
        self.arg = arg

    def check(self, move: Move) -> str | None:
        bad = wrong_act(self, move) or _unknown_keys(move, (self.arg,))
        if bad:
            return bad
        v = move.get(self.arg) or []
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return f"{self.arg} must be a list of seat numbers, not {v!r}"
        if len(set(v)) != len(v):
            return f"{self.arg} must not repeat a seat"
        if len(v) > self.most:
            return f"at most {self.most} {self.arg} may be chosen"
        for x in v:
            if x not in self.targets:
                return f"{x} is not a legal choice (legal: {_seats(self.targets)})"
        return None

    def value(self, move: Move) -> tuple[int, ...]:
        return tuple(move.get(self.arg) or ())

    def default_value(self) -> tuple[int, ...]:
        return ()

    def options(self) -> list[Move]:
        from itertools import combinations

        return [{"act": self.act, self.arg: list(c)}
                for k in range(self.most + 1) for c in combinations(self.targets, k)]

    def random_value(self, rng: random.Random) -> tuple[int, ...]:
        k = randbelow(rng, min(self.most, len(self.targets)) + 1)
        return tuple(rng.sample(self.targets, k))


class Speak(Decision):
    """A speaking turn in live play: ``{"act": "speak", "text": ...}``; no text means "done" (spoken aloud
    at the table, or nothing typed), ``{"act": "speak", "pass": true}`` that the seat passes its turn.

    Its value is the text said, None for "done", or ``PASSED`` (the empty string: no text is ever empty)."""

    __slots__ = ("part",)
    MAX: Final = 2000
    PASSED: Final = ""

    def __init__(self, seat: int, part: str) -> None:
        super().__init__(seat, "speak", why=f"your turn to speak ({part})")
        self.part = part

    def check(self, move: Move) -> str | None:
        bad = wrong_act(self, move) or _unknown_keys(move, ("text", "pass"))
        if bad:
            return bad
        text = move.get("text")
        if text is not None and not isinstance(text, str):
            return "text must be a string"
        if text is not None and len(text) > self.MAX:
            return f"a speech is at most {self.MAX} characters"
        passed = move.get("pass", False)
        if not isinstance(passed, bool):
            return "pass must be true or false"
        if passed and isinstance(text, str) and text.strip():
            return "a pass says nothing: no text with pass=true"
        return None

    def heard_at_once(self) -> bool:
        return True  # what a seat says reaches the table when it says it, not when the others have spoken

    def value(self, move: Move) -> str | None:
        text = move.get("text")
        if move.get("pass") is True:
            return self.PASSED
        return text.strip() or None if isinstance(text, str) else None

    def options(self) -> list[Move]:
        return [{"act": "speak", "text": None}]

    def random_value(self, rng: random.Random) -> None:
        return None
