"""One fixed Discrete action space per ruleset, and the mask of each decision.

Action ``0`` is ``wait`` (the parallel environment's answer of a seat that owes nothing); every
other action is one stable option id (``werewolf.core.views.option_id``: ``vote:4``, ``save``,
``link:3,7``...) that the ruleset can produce with up to ``max_seats`` seats. The list is
enumerated once and stored (``werewolf/env/spaces/<ruleset>.json``, made by
``scripts/env_actions.py``): an index keeps its meaning from one version of this package to the
next (new ids are only appended). How: random games of every deck of the ruleset, and of decks
holding each of its roles, give every kind of decision it asks; each option seen is expanded over
every seat (a ``target``) or every ascending pair / set of seats (``targets``) up to ``max_seats``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from itertools import combinations
from operator import attrgetter
from types import MappingProxyType
from typing import Any

import numpy as np

from werewolf.core.decisions import Decision, Flag, Target
from werewolf.core.errors import SetupError
from werewolf.core.game import Game, Setup
from werewolf.core.views import option_id
from werewolf.rulesets import MODULES, get_ruleset

WAIT = "wait"
SPACE_VERSION = 1


def max_seats(ruleset: str) -> int:
    """The most seats a game of ``ruleset`` can have (a custom deck's limit for the day-and-night games)."""
    rs: Any = get_ruleset(ruleset)
    return max(int(rs.max_players), int(getattr(rs, "seat_limit", 0)))


def ruleset_roles(ruleset: str) -> tuple[str, ...]:
    """Every role ``ruleset`` can deal, sorted: the role one-hots' order."""
    rs: Any = get_ruleset(ruleset)
    roles = rs.roles if hasattr(rs, "roles") else rs.box
    return tuple(sorted(roles))


# -- enumeration (scripts/env_actions.py) ------------------------------------------------------

def _expand(move: dict[str, Any], n: int) -> Iterable[str]:
    """Every id of ``move``'s shape over seats 1..n."""
    seat_fields = [k for k in ("target", "targets") if isinstance(move.get(k), (int, list))
                   and not isinstance(move.get(k), bool)]
    if not seat_fields:
        yield option_id(move)
        return
    k = seat_fields[0]
    v = move[k]
    if isinstance(v, int):
        for s in range(1, n + 1):
            yield option_id({**move, k: s})
    else:
        for c in combinations(range(1, n + 1), len(v)):
            yield option_id({**move, k: list(c)})


def _decks(ruleset: str) -> list[tuple[str | tuple[str, ...], dict[str, Any]]]:
    rs: Any = get_ruleset(ruleset)
    out: list[tuple[str | tuple[str, ...], dict[str, Any]]] = [(d, {}) for d in rs.decks()]
    base = list(rs.standard_deck(min(12, rs.max_players)))
    for role in ruleset_roles(ruleset):
        if role in base:
            continue
        for copies in (1, 2, 3):  # the sisters come as two, the brothers as three
            if base.count("villager") < copies:
                break
            deck = list(base)
            for _ in range(copies):
                deck[deck.index("villager")] = role
            opts: dict[str, Any] = {}
            if ruleset == "wechat":
                from werewolf.rulesets.wechat import expansion_options

                opts = dict(expansion_options(tuple(deck)))
            try:
                Game(Setup(ruleset, deck=tuple(deck), options=opts, seed=0))
            except SetupError:
                continue
            out.append((tuple(deck), opts))
            break
    return out


def _shape(v: Any) -> str:
    return f"list{len(v)}" if isinstance(v, list) else type(v).__name__


# Seat choices that random games of one role reach too rarely to be met (another role must be in
# play, or a lovers pair must survive the pack): listed here, made as any ``Target``'s ids.
RARE_TARGETS: dict[str, tuple[str, ...]] = {"wechat": ("enchant", "shield", "widow_kill")}


def explore(ruleset: str, seeds: int = 40) -> set[str]:
    """Every option id met in random games of ``ruleset`` (expanded over every seat)."""
    n = max_seats(ruleset)
    ids: set[str] = set()
    for act in RARE_TARGETS.get(ruleset, ()):
        ids.update(_expand({"act": act, "target": 1}, n))
        ids.add(option_id({"act": act, "target": None}))
    shapes: set[str] = set()
    for deck, opts in _decks(ruleset):
        for seed in range(seeds):
            try:
                game = Game(Setup(ruleset, deck=deck, options=opts, seed=seed))
            except SetupError:
                break
            rng = random.Random(seed)
            while not game.over:
                for d in game.request:
                    for m in d.options():
                        key = repr(sorted((k, _shape(v) if k in ("target", "targets") else repr(v))
                                          for k, v in m.items()))
                        if key not in shapes:
                            shapes.add(key)
                            ids.update(_expand(m, n))
                game.answer_all([d.random_value(rng) for d in game.request])
    return ids


# -- the space ---------------------------------------------------------------------------------

class ActionSpace:
    """The ids of one ruleset's actions (index = action) and the masks of its decisions."""

    def __init__(self, ruleset: str, ids: list[str]) -> None:
        self.ruleset = ruleset
        self.ids = ids
        self.index = {a: i for i, a in enumerate(ids)}
        self.n = len(ids)
        self.acts = tuple(sorted({a.split(":", 1)[0] for a in ids[1:]}))
        self._cache: dict[tuple[Any, ...], tuple[np.ndarray, dict[int, Any], list[str]]] = {}
        self._rows: dict[str, list[int] | None] = {}

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (action_space, (self.ruleset,))  # the stored space, shared (its cache is not worth pickling)

    def legal(self, d: Decision) -> tuple[np.ndarray, dict[int, Any], list[str]]:
        """``d``'s mask (int8, 1 = legal), the engine value of each legal action, and the legal ids.

        Cached by the decision's content (its class, seat and fields but the reason texts): the same
        vote, kill or flag is asked again and again.
        """
        key = _key(d)
        hit = self._cache.get(key) if key is not None else None
        if hit is not None:
            return hit
        mask = np.zeros(self.n, dtype=np.int8)
        values: dict[int, Any] = {}
        legal: list[str] = []
        if type(d) is Target:  # the most frequent (every vote, every kill): made from the seats, no ids to build
            row = self._seat_row(d.act)
            if row is not None:
                assert isinstance(d, Target)
                ids = self.ids
                for t in (*d.targets, 0) if d.optional else d.targets:  # 0: no seat (``act:none``)
                    at = row[t] if 0 <= t < len(row) else -1
                    if at < 0:
                        break
                    values[at] = t or None
                else:
                    legal = [ids[i] for i in values]
                    mask[list(values)] = 1
                    return self._keep(key, mask, values, legal)
                values = {}
        for m in d.options():
            oid = option_id(m)
            i = self.index.get(oid)
            if i is None:
                raise KeyError(f"option {oid!r} of {self.ruleset}'s {d.act!r} decision is not in its action space "
                               f"(werewolf/env/spaces/{self.ruleset}.json: run scripts/env_actions.py)")
            mask[i] = 1
            values[i] = d.value(m)
            legal.append(oid)
        return self._keep(key, mask, values, legal)

    def _keep(self, key: tuple[Any, ...] | None, mask: np.ndarray, values: dict[int, Any], legal: list[str]
              ) -> tuple[np.ndarray, dict[int, Any], list[str]]:
        mask.flags.writeable = False  # shared by every observation of this decision: read-only
        out = (mask, values, legal)
        if key is not None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[key] = out
        return out

    def _seat_row(self, act: str) -> list[int] | None:
        """The actions ``act:none`` (index 0 of the row) and ``act:1`` … ``act:N`` (-1 where the space lacks
        one), or None when ``act`` has no seat ids."""
        rows = self._rows
        if act not in rows:
            index = self.index
            row = [index.get(f"{act}:none", -1)] + [index.get(f"{act}:{s}", -1) for s in range(1, 100)]
            while row and row[-1] < 0:
                row.pop()
            rows[act] = row if len(row) > 1 else None
        return rows[act]


_SKIP = frozenset({"why", "forbidden", "interrupt"})  # texts, and what only shapes error messages
_slots: dict[type, tuple[str, ...] | None] = {}
_getters: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _fields_of(t: type) -> tuple[str, ...] | None:
    """The fields of a decision class, from its slots; None when its instances may hold others
    (a class without slots somewhere in its bases has a ``__dict__``) or when it declares none."""
    if t in _slots:
        return _slots[t]
    seen: list[str] = []
    has_dict = False
    for k in reversed(t.__mro__):
        if k is object:
            continue
        if "__slots__" not in vars(k):
            has_dict = True
        for name in getattr(k, "__slots__", ()):
            if name not in _SKIP and name not in seen:
                seen.append(name)
    names = None if has_dict or "seat" not in seen or "act" not in seen else tuple(seen)
    _slots[t] = names
    if names is not None:
        getter = attrgetter(*names)
        _getters[t] = getter if len(names) > 1 else (lambda d: (getter(d),))
    return names


_PLAIN = frozenset({int, str, bool, float, type(None)})


def _plain_items(v: tuple[Any, ...]) -> bool:
    for x in v:
        if type(x) not in _PLAIN:
            return False
    return True


def _frozen(v: Any) -> Any:
    """``v`` as a hashable value compared by content (never by identity: ids are reused)."""
    tv = type(v)
    if tv in _PLAIN:
        return v
    if tv is tuple:
        if _plain_items(v):
            return v  # a tuple of seats or values: hashable as it is
        return tuple(_frozen(x) for x in v)
    if tv is MappingProxyType or tv is dict:
        return tuple((k, _frozen(x)) for k, x in v.items())
    if isinstance(v, Decision):
        k = _key(v)
        if k is None:
            raise _NoKey
        return k
    if isinstance(v, Mapping):
        return tuple((k, _frozen(x)) for k, x in v.items())
    if isinstance(v, (set, frozenset)):
        return tuple(sorted(v))
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    raise _NoKey  # something we cannot compare by content: no cache


def _key(d: Decision) -> tuple[Any, ...] | None:
    """What ``d``'s options and values depend on; None when that cannot be told (no cache)."""
    t = type(d)
    # The most frequent (every vote, every kill, every run for sheriff): no generic walk, and no
    # seat, as their options do not depend on who is asked.
    if t is Target:
        assert isinstance(d, Target)
        return (t, d.act, d.arg, d.targets, d.optional)
    if t is Flag:
        assert isinstance(d, Flag)
        return (t, d.act, tuple(d.context.items()))
    names = _fields_of(t)
    if names is None:
        return None  # fields not all declared in slots (a subclass of an agent's, a compiled class)
    try:
        values = _getters[t](d)  # one C call for every field
    except AttributeError:  # a slot left unset
        values = tuple(getattr(d, name, None) for name in names)
    for v in values:
        tv = type(v)
        if tv not in _PLAIN and not (tv is tuple and _plain_items(v)):
            break
    else:
        return (t, values)  # plain values and tuples of them: hashable as they are
    try:
        return (t, *[_frozen(v) for v in values])
    except _NoKey:
        return None


class _NoKey(Exception):
    pass


@cache
def action_space(ruleset: str) -> ActionSpace:
    """The stored action space of ``ruleset``."""
    if ruleset not in MODULES:
        raise SetupError(f"unknown ruleset {ruleset!r} (known: {', '.join(MODULES)})")
    text = resources.files("werewolf.env").joinpath("spaces", f"{ruleset}.json").read_text("utf-8")
    data = json.loads(text)
    return ActionSpace(ruleset, list(data["actions"]))


def merged_ids(old: list[str], found: set[str]) -> list[str]:
    """``old`` with the ids of ``found`` it lacks appended in sorted order (indices never move)."""
    out = list(old) if old else [WAIT]
    have = set(out)
    out += sorted(found - have)
    return out
