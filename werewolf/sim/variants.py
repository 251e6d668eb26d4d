"""What `compare` and `balance` share, below both of them and below the command.

The layers of ``werewolf.sim`` only look down: ``command`` (the commands' work)
uses ``compare``, ``balance`` and ``arena``; those use this module, ``paired``,
``report`` and ``stats``; everything uses ``config``. Nothing here imports a
module above it (``tests/sim/test_designer.py`` checks the whole graph).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.sim.config import BotSpec, SimConfig


@dataclass(frozen=True)
class Variant:
    """One setup of a comparison (or one candidate of a balance search), by name."""

    name: str
    config: SimConfig


def parse_options(options: str | None, flag: str = "--options") -> dict[str, Any]:
    """A JSON object of option names to values (checked against the ruleset when the setup is built)."""
    if not options:
        return {}
    try:
        opts = json.loads(options)
    except json.JSONDecodeError as e:
        raise SetupError(f"{flag} is not valid JSON: {e}") from None
    if not isinstance(opts, dict):
        raise SetupError(f"{flag} must be a JSON object of option names to values")
    return opts


def batches(total: int, step: int) -> list[tuple[int, int]]:
    """``[0, total)`` cut into ranges of ``step`` (the last may be shorter)."""
    return [(a, min(a + step, total)) for a in range(0, total, step)]


def aligned(baseline: Sequence[str], deck: Sequence[str]) -> tuple[str, ...]:
    """``deck``'s cards in the order that keeps most of them where ``baseline`` has the same card.

    The deal shuffles the deck by position: the same cards written in another order would be dealt
    to other seats, and two variants that differ in one card would differ in every seat. Aligned, the
    same cards give the very same deal, and a card swapped for another lands where the other would
    have (the rest of the deal unchanged): the pairing by seed is as close as the decks allow.
    Position by position, the baseline's card when ``deck`` still has one, else ``deck``'s next card
    that the baseline does not use up; cards beyond the baseline's length follow in ``deck``'s order.
    """
    need = Counter(baseline)
    spare: list[str] = []  # the deck's cards beyond what the baseline holds, in the deck's order
    for card in deck:
        if need[card] > 0:
            need[card] -= 1
        else:
            spare.append(card)
    have = Counter(deck)
    out: list[str] = []
    for card in baseline:
        if have[card] > 0:
            have[card] -= 1
            out.append(card)
        elif spare:
            out.append(spare.pop(0))
    out.extend(spare)
    return tuple(out)


def same_cards(a: Sequence[str], b: Sequence[str]) -> bool:
    return Counter(a) == Counter(b)


def bots_label(mix: Sequence[BotSpec]) -> str:
    """The agents a run was measured with: ``heuristic``, or a mix: ``heuristic + random (alternating games)``."""
    labels = [b.label() for b in mix]
    if len(labels) == 1:
        return labels[0]
    return " + ".join(labels) + " (game i played by the (i mod " + str(len(labels)) + ")-th)"


def with_bots(config: SimConfig, bots: BotSpec) -> SimConfig:
    return config if config.bots == bots else replace(config, bots=bots)


def normalised(configs: Sequence[SimConfig]) -> list[SimConfig]:
    """The configs with every deck dealt in the order that pairs it best with the first's (``aligned``).

    A deck with the first's very cards, in whatever order and however written (by name, by its cards, by a
    number of players), becomes the first's deck: the very same games. Any other deck given by its cards is
    put in the aligned order. A named deck with other cards keeps its name (its order is the ruleset's).
    """
    from werewolf.sim.report import deck_roles

    if not configs:
        return []
    first = configs[0]
    base = deck_roles(first)
    out = [first]
    for c in configs[1:]:
        cards = deck_roles(c)
        if base is None or cards is None or c.ruleset != first.ruleset:
            out.append(c)
        elif same_cards(cards, base):
            out.append(replace(c, deck=first.deck, players=first.players))
        elif isinstance(c.deck, tuple):
            out.append(replace(c, deck=aligned(base, cards)))
        else:
            out.append(c)
    return out


def setup_key(c: SimConfig) -> tuple[Any, ...]:
    """What decides a config's games: two configs with the same key play the very same games."""
    return (c.ruleset, c.deck, c.players, json.dumps(dict(c.options), sort_keys=True), c.bots, c.agents)


def duplicates(variants: Sequence[Variant]) -> list[tuple[str, str]]:
    """Pairs of variants that are the same setup (after ``normalised``): (the earlier's name, the later's)."""
    seen: dict[tuple[Any, ...], str] = {}
    out = []
    for v in variants:
        key = setup_key(v.config)
        if key in seen:
            out.append((seen[key], v.name))
        else:
            seen[key] = v.name
    return out
