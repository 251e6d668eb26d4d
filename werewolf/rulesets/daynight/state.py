"""The state of a day-and-night game (classic, facetoface, wechat)."""

from __future__ import annotations

import random
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import Any, Final

from werewolf.core.events import MODERATOR, PUBLIC, Event
from werewolf.core.table import Table
from werewolf.roles import ROLES
from werewolf.rulesets.options import DayNightOptions, Weight

# Votes a candidate got: a sum of vote weights (whole votes, or halves where a sheriff's 1.5 counts),
# typed as the weights are, and for the same reason (the log shows 2 votes as 2).
Votes = Weight


class Player:
    __slots__ = (
        "seat", "role", "dealt", "alive", "pending", "death_phase", "cause",
        "faction",  # current faction: wolf, good, third, piper, white_wolf, ...
        "category",  # current 屠邊 category: god, villager, wolf, none
        "idiot_revealed", "silenced_day", "wounded", "lives", "swapped",
        "transformed", "disabled",
        "pack_card",  # the card's own role wakes with the pack (ROLES[role].pack), kept by become()
    )

    def __init__(self, seat: int, role: str) -> None:
        self.seat = seat
        self.dealt = role
        self.alive = True  # changed through DayNightTable.mark_dead / mark_alive, which keep living() current
        self.pending = False  # killed in the night, not yet announced
        self.death_phase = ""
        self.cause = ""
        self.idiot_revealed = False
        self.silenced_day = 0
        self.wounded = False
        self.lives = 2
        self.swapped = False
        self.transformed = False
        self.disabled = False  # lost its powers (elder penalty, infection, charm death)
        self.become(role)

    def become(self, role: str) -> None:
        """Take ``role``'s card; in play, through ``DayNightTable.become`` (it keeps the table's index)."""
        r = ROLES[role]
        self.role = role
        self.faction = r.faction
        self.category = r.category
        self.pack_card = r.pack and role not in _NEVER_WITH_PACK

    def copy(self) -> Player:
        q = Player(self.seat, self.dealt)
        q.role, q.alive, q.pending = self.role, self.alive, self.pending
        q.death_phase, q.cause = self.death_phase, self.cause
        q.faction, q.category, q.pack_card = self.faction, self.category, self.pack_card
        q.idiot_revealed, q.silenced_day, q.wounded, q.lives = (self.idiot_revealed, self.silenced_day, self.wounded,
                                                                self.lives)
        q.swapped, q.transformed, q.disabled = self.swapped, self.transformed, self.disabled
        return q

    @property
    def wolf(self) -> bool:
        """Wolf-faction now (pack wolves, hidden wolf, transformed child, ...)."""
        return self.faction == "wolf"

    def __repr__(self) -> str:
        return f"<{self.seat}:{self.role}{'' if self.alive else ' dead'}>"


def wallclock_minute() -> int:
    """The minute on the moderator's clock (000's clock rule, option ``clock_source="wallclock"``)."""
    return time.localtime().tm_min


class DayNightTable(Table):
    def __init__(self, ruleset: str, opts: DayNightOptions, seats: list[str], center: list[str],
                 seed: int, rng: random.Random | None = None) -> None:
        super().__init__(seed, rng)
        self.ruleset = ruleset
        self.opts = opts
        self.n = len(seats)
        self.players: list[Player] = [Player(i + 1, r) for i, r in enumerate(seats)]
        # Each seat's audience of one, made once: most private events are for one player.
        self.alone: tuple[frozenset[int], ...] = (frozenset(),) + tuple(frozenset((p.seat,)) for p in self.players)
        # Kept up to date as players die and take cards: read far more often than they change.
        self._living: tuple[Player, ...] | None = None
        self.by_role: dict[str, list[Player]] = {}
        for p in self.players:
            self.by_role.setdefault(p.role, []).append(p)
        self.center = list(center)
        self.in_deck = frozenset(seats) | frozenset(center)
        self.day = 0
        self.night = 0
        # sheriff
        self.sheriff: int | None = None
        self.badge_gone = False
        self.election_postponed = False
        self.last_direction: str | None = None
        # night memory ("not the same as last night" rules compare labels)
        self.guard_last: int | None = None
        self.guarded_ever: set[int] = set()
        self.silence_last: int | None = None
        self.charm_last: int | None = None
        self.charmed: int | None = None  # the wolf beauty's active charm (effective player)
        self.dream_last: int | None = None
        self.dreamer: int | None = None  # tonight's dreamer (effective player)
        self.antidote = True
        self.poison = True
        self.knight_used = False
        # lovers (cupid)
        self.lovers: tuple[int, int] | None = None
        self.lovers_mixed = False
        self.lovers_double_wolf = False
        self.cupid: int | None = None
        # wild child
        self.model: int | None = None
        self.transform_due: str | None = None  # "dawn" or "night"
        # deaths waiting for the dawn announcement, in order
        self.night_dead: list[int] = []
        self.knife_voice: int | None = None  # a self-destructed wolf who names tonight's kill
        # The deaths of the game's most recent moment (speech_without_sheriff="last_dead_coin"):
        # ``last_moment`` orders them, (2k-1, 0) for night k and (2k, n) for the n-th death of a day.
        self.last_dead: list[int] = []
        self.last_moment: tuple[int, int] = (0, 0)
        self.day_moments = 0
        self.bear_silent_announced = False
        self.last_words_left = 0  # the wolf quota (last_words="wolf_quota")
        self.start_categories: frozenset[str] = frozenset()
        self.dawn_count = 0  # deaths announced this morning
        self.announced_today: list[int] = []
        self.announced_day = 0
        self.exile_rule = ""  # the rule that decided today's exile (the ``rule`` of the ``exile`` event)
        self.stop_after_day: int | None = None
        self.live_speech = False

    def copy(self, rng: random.Random) -> DayNightTable:
        other = type(self)(self.ruleset, self.opts, [], [], self.seed, rng)  # no seats: they are copied
        self.copy_into(other)
        return other

    def copy_into(self, other: Table) -> None:
        super().copy_into(other)
        assert isinstance(other, DayNightTable)
        o = other
        o.n = self.n
        o.players = [p.copy() for p in self.players]
        o.alone = self.alone
        o.by_role = {role: [o.players[p.seat - 1] for p in held] for role, held in self.by_role.items()}
        o.center, o.in_deck = list(self.center), self.in_deck
        o.day, o.night = self.day, self.night
        o.sheriff, o.badge_gone, o.election_postponed = self.sheriff, self.badge_gone, self.election_postponed
        o.last_direction = self.last_direction
        o.guard_last, o.guarded_ever, o.silence_last = self.guard_last, set(self.guarded_ever), self.silence_last
        o.charm_last, o.charmed, o.dream_last, o.dreamer = self.charm_last, self.charmed, self.dream_last, self.dreamer
        o.antidote, o.poison, o.knight_used = self.antidote, self.poison, self.knight_used
        o.lovers, o.lovers_mixed, o.lovers_double_wolf = self.lovers, self.lovers_mixed, self.lovers_double_wolf
        o.cupid, o.model, o.transform_due = self.cupid, self.model, self.transform_due
        o.night_dead, o.knife_voice = list(self.night_dead), self.knife_voice
        o.last_dead, o.last_moment, o.day_moments = list(self.last_dead), self.last_moment, self.day_moments
        o.bear_silent_announced, o.last_words_left = self.bear_silent_announced, self.last_words_left
        o.start_categories, o.dawn_count = self.start_categories, self.dawn_count
        o.announced_today, o.announced_day = list(self.announced_today), self.announced_day
        o.exile_rule, o.stop_after_day, o.live_speech = self.exile_rule, self.stop_after_day, self.live_speech

    def coin(self) -> int:
        """The clock rule: the seeded coin, or the minute on the wall clock (odd = ascending/clockwise)."""
        if self.opts.clock_source == "wallclock":
            return wallclock_minute() % 2
        return super().coin()

    # -- seats -----------------------------------------------------------------
    def p(self, seat: int) -> Player:
        return self.players[seat - 1]

    def living(self) -> tuple[Player, ...]:
        living = self._living
        if living is None:
            living = self._living = tuple([p for p in self.players if p.alive])
        return living

    def living_seats(self) -> list[int]:
        return [p.seat for p in self.living()]

    def mark_dead(self, p: Player) -> None:
        p.alive = False
        self._living = None

    def mark_alive(self, p: Player) -> None:
        p.alive = True
        self._living = None

    def become(self, p: Player, role: str) -> None:
        """``p`` now holds ``role`` (the thief's card, the devoted servant's take)."""
        self.by_role[p.role].remove(p)
        p.become(role)
        holders = self.by_role.setdefault(role, [])
        holders.append(p)
        holders.sort(key=lambda q: q.seat)

    def holders(self, role: str) -> list[Player]:
        return list(self.by_role.get(role, ()))

    def holder(self, role: str) -> Player | None:
        holders = self.by_role.get(role)
        return holders[0] if holders else None

    def left(self, seat: int) -> int | None:
        """The first living seat clockwise from ``seat`` (seat + 1, ...)."""
        for i in range(1, self.n):
            s = (seat - 1 + i) % self.n + 1
            if self.players[s - 1].alive:
                return s
        return None

    def right(self, seat: int) -> int | None:
        for i in range(1, self.n):
            s = (seat - 1 - i) % self.n + 1
            if self.players[s - 1].alive:
                return s
        return None

    def walk(self, start: int, clockwise: bool) -> list[int]:
        """Every living seat from ``start`` (included) going one way round."""
        seats = self.living_seats()  # ascending
        if clockwise:
            i = bisect_left(seats, start)
            return seats[i:] + seats[:i]
        i = bisect_right(seats, start)  # counterclockwise: down from start, then down from the top
        return seats[:i][::-1] + seats[i:][::-1]

    def pack(self) -> list[Player]:
        """The living wolves that wake together to kill."""
        # The hidden wolf never wakes with the pack; a transformed wild child, a
        # thief who took a wolf card and an infected player do.
        return [p for p in self.living()
                if p.pack_card or (p.faction == "wolf" and p.role not in _NEVER_WITH_PACK)]

    def lover_of(self, seat: int) -> int | None:
        if self.lovers and seat in self.lovers:
            a, b = self.lovers
            return b if seat == a else a
        return None

    def roles_by_seat(self) -> dict[int, str]:
        return {p.seat: p.role for p in self.players}

    # -- events ----------------------------------------------------------------
    def tell(self, whom: int, type: str, /, **data: Any) -> None:
        """A private event for one player's eyes."""
        self.events.append(Event(type, self.phase, data, self.alone[whom]))

    def tell_group(self, group: Iterable[int], type: str, /, **data: Any) -> None:
        """A private event to some seats (the pack, the lovers, ...)."""
        self.events.append(Event(type, self.phase, data, frozenset(group)))

    def log(self, type: str, /, **data: Any) -> None:
        """An event for the moderator's log only."""
        self.events.append(Event(type, self.phase, data, MODERATOR))

    def say(self, type: str, /, **data: Any) -> None:
        """A public event."""
        self.events.append(Event(type, self.phase, data, PUBLIC))


_NEVER_WITH_PACK: Final = frozenset({"hidden_wolf", "cupid"})
