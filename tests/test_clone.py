"""Game.clone(): a copy that plays on exactly as the original, and is independent of it."""

from __future__ import annotations

import random

import pytest

from werewolf.core import Game, Setup, engine

SETUPS = [("classic", "classic12"), ("classic", "c12_wolfking_thief_cupid"), ("classic", "c12_wild_child"),
          ("facetoface", "ff9_standard"), ("facetoface", "ff12_cupid_thief"), ("wechat", "wechat12"),
          ("onuw", "onuw5"), ("onenight", "onenight5")]


def _log(game: Game) -> list[tuple[object, ...]]:
    return [(e.type, e.phase, e.data, e.to) for e in game.events]


def _state(game: Game) -> tuple[object, ...]:
    return (_log(game), [d.describe() for d in game.pending()], list(game.answers), game.over, game.result, game.phase)


def _advance(game: Game, rng: random.Random, requests: int) -> None:
    """Random play for ``requests`` requests, then half of the next one answered (a request left open)."""
    for _ in range(requests):
        if game.over:
            return
        game.answer_all([d.random_value(rng) for d in game.request])
    if not game.over and len(game.request) > 1:
        d = game.request[0]
        game.answer_value(d, d.random_value(rng))


def _finish(game: Game, rng: random.Random) -> None:
    while not game.over:
        for d in game.pending():
            game.answer_value(d, d.random_value(rng))


@pytest.mark.parametrize("ruleset,deck", SETUPS)
def test_a_clone_plays_on_exactly_as_the_original(ruleset: str, deck: str) -> None:
    for seed in range(8):
        rng = random.Random(seed)
        game = Game(Setup(ruleset, deck=deck, seed=seed))
        _advance(game, rng, rng.randrange(30))
        copy = game.clone()
        assert _state(copy) == _state(game)
        _finish(game, random.Random(seed + 100))
        _finish(copy, random.Random(seed + 100))
        assert _state(copy) == _state(game)
        assert copy.result == game.result


@pytest.mark.parametrize("ruleset,deck", SETUPS)
def test_clone_and_original_are_independent(ruleset: str, deck: str) -> None:
    rng = random.Random(3)
    game = Game(Setup(ruleset, deck=deck, seed=3))
    _advance(game, rng, 3)
    before = _state(game)
    copy = game.clone()
    _finish(copy, random.Random(1))
    assert copy.over
    assert _state(game) == before  # the copy's moves changed nothing of the original
    again = game.clone()
    _finish(game, random.Random(2))
    assert _state(again) == before  # nor do the original's change the copy
    # A clone of a clone is a clone.
    assert _state(again.clone()) == _state(again)


def test_clone_of_a_finished_game_and_of_a_new_one() -> None:
    game = Game(Setup("classic", deck="classic9", seed=5))
    fresh = game.clone()
    assert _state(fresh) == _state(game)
    game.play_out(random.Random(5))
    done = game.clone()
    assert done.over and _state(done) == _state(game)


# Every ruleset, day-and-night decks with many powers, and live speech (turns that wait for their speaker).
ANY_POINT = [*((r, d, False) for r, d in SETUPS), ("wechat", "wechat16", False), ("classic", "classic9", True),
             ("onuw", "onuw7", True), ("wechat", "wechat12", True)]


def _play_on(game: Game, answers: list[tuple[int, str, object]]) -> None:
    for seat, act, value in answers:
        d = next(d for d in game.pending(seat) if d.act == act)
        game.answer_value(d, value)


@pytest.mark.parametrize("ruleset,deck,live", ANY_POINT)
def test_a_clone_taken_at_any_point_then_given_the_same_answers_is_the_same_game(
        ruleset: str, deck: str, live: bool) -> None:
    """Clones (and clones of clones) taken at random points, from games that keep checkpoints from the
    start and from games that begin keeping them at their first clone, each played on with the original's
    later answers: every one ends with the original's events, answers and result."""
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(Setup(ruleset, deck=deck, seed=seed, live_speech=live), keep_checkpoints=seed % 2 == 0)
        clones: list[tuple[int, Game]] = []
        while not game.over:
            if rng.random() < 0.3 or len(game.answers) == 3:
                copy = game.clone()
                if rng.random() < 0.3:
                    copy = copy.clone()
                clones.append((len(game.answers), copy))
            d = game.pending()[0]
            game.answer_value(d, d.random_value(rng))
        clones.append((len(game.answers), game.clone()))
        assert len(clones) >= 2
        for at, copy in clones:
            _play_on(copy, game.answers[at:])
            assert _state(copy) == _state(game), (seed, at)
            assert _table(copy.table) == _table(game.table)


def _value(x: object) -> object:
    """A table's state as plain values, for comparison (a player or a rule state by its fields)."""
    if isinstance(x, random.Random):
        return x.getstate()
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted(map(repr, x))
    if isinstance(x, dict):
        return {k: _value(v) for k, v in x.items()}
    fields = getattr(type(x), "__slots__", None) if hasattr(x, "__slots__") else None
    if fields is not None and type(x).__module__.startswith("werewolf.rulesets"):
        return {f: _value(getattr(x, f)) for f in fields}
    if hasattr(x, "__dict__") and type(x).__module__.startswith("werewolf.rulesets"):
        return {k: _value(v) for k, v in vars(x).items()}
    return x


def _table(t: object) -> dict[str, object]:
    skip = ("checkpoint", "keep_checkpoints", "_living", "events")  # bookkeeping, a cache; events: compared apart
    return {k: _value(v) for k, v in vars(t).items() if k not in skip}


def _ours(x: object) -> bool:
    """A changeable object of the rules' own (a player, a rule state): not a tuple, a frozen dataclass or a class."""
    params = getattr(type(x), "__dataclass_params__", None)
    return (type(x).__module__.startswith("werewolf.rulesets") and not isinstance(x, (tuple, type))
            and not callable(x) and not (params is not None and params.frozen))


def _mutables(x: object, path: str, out: dict[int, str]) -> None:
    """Every changeable object reachable from a table's fields (lists, sets, dicts, players, rule states)."""
    if isinstance(x, (list, set, dict)) or _ours(x):
        if id(x) in out:
            return
        out[id(x)] = path
    if isinstance(x, (list, tuple, set, frozenset)):
        for i, v in enumerate(x):
            _mutables(v, f"{path}[{i}]", out)
    elif isinstance(x, dict):
        for k, v in x.items():
            _mutables(v, f"{path}[{k!r}]", out)
    elif _ours(x):
        names = getattr(type(x), "__slots__", None) or list(getattr(x, "__dict__", {}))
        for f in names:
            _mutables(getattr(x, f), f"{path}.{f}", out)


@pytest.mark.parametrize("ruleset,deck", [("classic", "c12_wolfking_thief_cupid"), ("wechat", "wechat16"),
                                          ("facetoface", "ff12_cupid_thief"), ("onuw", "onuw7")])
def test_a_copied_table_equals_its_original_and_shares_nothing_it_could_change(ruleset: str, deck: str) -> None:
    """Table.copy copies field by field (a compiled build copies nothing for us): a field added to a table
    and forgotten in its ``copy_into`` shows here, as a difference or as a shared list, set or player."""
    if engine() == "compiled":
        pytest.skip("the interpreted engine's fields are read here (vars); test_compiled plays the clones")
    for seed in range(4):
        rng = random.Random(seed)
        game = Game(Setup(ruleset, deck=deck, seed=seed))
        _advance(game, rng, 2 + 3 * seed)
        t = game.table
        copy = t.copy(random.Random())
        copy.rng.setstate(t.rng.getstate())
        assert _table(copy) == _table(t)
        mine: dict[int, str] = {}
        theirs: dict[int, str] = {}
        for k, v in vars(t).items():
            if k not in ("checkpoint", "events", "rng"):
                _mutables(v, k, mine)
        for k, v in vars(copy).items():
            if k not in ("checkpoint", "events", "rng"):
                _mutables(v, k, theirs)
        shared = sorted(mine[i] for i in set(mine) & set(theirs))
        assert not shared, f"shared by a table and its copy: {shared}"
        assert copy.events == t.events and copy.events is not t.events
