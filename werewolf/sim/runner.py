"""Playing one game of a simulation and reducing it to a few counts.

Everything here is a function of ``(config, i)``: ``play_game`` builds game
``i`` from ``game_seed(config.seed, i)``, seats the bots by the side of the card
each seat was dealt, and plays it out; ``run_chunk`` plays a range of games and
returns their ``Stats`` (and, when asked, their logs). Workers of every backend
call ``run_chunk``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from werewolf.agents import Host
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.speech import Channel
from werewolf.core.events import Event
from werewolf.core.game import Game, Setup
from werewolf.sim.config import SimConfig, game_seed, stream_seed, team_key
from werewolf.sim.stats import Stats

# Events worth counting as "a special rule fired", by the name they are counted under.
SPECIAL_EVENTS = {
    "pk": "pk",  # an exile tie: PK speeches and a re-vote
    "sheriff_pk": "sheriff_pk",  # a tied sheriff election
    "election_postponed": "election_postponed",  # a self-destruct postponed the election
    "explode": "self_destruct",
    "duel": "duel",
    "claw": "white_wolf_king_claw",
    "bomb": "bomb",
    "shoot": "shot_on_death",
    "reveal": "idiot_reveal",
    "elder_penalty": "elder_penalty",
    "second_vote": "second_vote",
    "servant": "devoted_servant",
    "ban": "scapegoat_ban",
    "ballots_void": "ballots_void",
    "infection": "infection",
    "transformed": "transformed",
}
BADGE_REASONS = {"torn": "badge_torn", "lost to a self-destruct": "badge_lost_to_self_destruct",
                 "the idiot revealed": "badge_lost_to_idiot", "tie": "sheriff_tie_no_sheriff"}

_ALL_HEURISTIC = frozenset({"heuristic"})

# Every event type that ``summarize`` counts.
_COUNTED = frozenset({"death", "day", "ruling", "sheriff", "game_over", *SPECIAL_EVENTS})


def base_setup(config: SimConfig) -> Setup:
    return Setup(config.ruleset, options=dict(config.options), deck=config.deck, players=config.players)


def dealt_roles(game: Game) -> dict[int, str]:
    """Each seat's dealt card, from the moderator's log (the harness sees everything)."""
    return {e.data["seat"]: e.data["role"] for e in game.events if e.type == "role"}


def play_game(config: SimConfig, i: int, setup: Setup | None = None, channel: Channel | None = None) -> Game:
    """Game ``i`` of the run, played to its end by the configured bots (who talk on ``channel``)."""
    seed = game_seed(config.seed, i)
    game = Game((setup or base_setup(config)).with_seed(seed))
    if config.agents:  # any agent kind in any seat (``--agent``): built here, in the worker
        from werewolf.sim.seating import play_seated

        return play_seated(config, i, game, channel)
    bots = config.bots
    if bots.default == "random" and not bots.teams:
        game.play_out(random.Random(stream_seed(seed, 1)))  # random agents: every request answered at once
        return game
    if channel is None:  # an empty channel of the caller's is still the one to talk on
        channel = Channel()
    # A request's answers go in together and unchecked, as the random seats' do: what the
    # bots read (the setup, the log) cannot change before its last answer. The bots' tests
    # play their moves through the checking ``Game.answer`` (agents.play), which catches an illegal one.
    answer_all = game.answer_all
    if (bots.default == "heuristic" and not bots.teams) or bots.kinds == _ALL_HEURISTIC:
        # Every seat a heuristic bot: no seat to sort by its card, and no random stream for random
        # seats to seed (seeding a Mersenne Twister costs a tenth of the bots' work in a one-night game).
        bot = HeuristicAgent(random.Random(stream_seed(seed, 2)), ruleset=config.ruleset)
        host = Host(game, default=bot, talk=channel)  # each bot seat answers from its own seat view
        values = host.values
        while not game.over:
            answer_all(values(bot))
        return game
    rng = random.Random(stream_seed(seed, 1))
    kinds = {s: bots.kind(team_key(r)) for s, r in dealt_roles(game).items()}
    heuristic_seats = [s for s, k in kinds.items() if k == "heuristic"]
    if not heuristic_seats:
        game.play_out(rng)  # random agents: every request answered at once
        return game
    bot = HeuristicAgent(random.Random(stream_seed(seed, 2)), seats=heuristic_seats, ruleset=config.ruleset)
    host = Host(game, dict.fromkeys(heuristic_seats, bot), talk=channel)
    value, view, sync = bot.value_of, host.view, host.sync
    while not game.over:
        sync()
        answer_all([value(view(d.seat, d)) if kinds.get(d.seat) == "heuristic" else d.random_value(rng)
                    for d in game.request])
    return game


def summarize(events: Iterable[Event]) -> tuple[list[str], int, list[str], list[str], str | None]:
    """(winning teams, days played, death causes, special rules fired, the rule that ended it)."""
    teams: list[str] = []
    days = 0
    causes: list[str] = []
    fired: list[str] = []
    ending = None
    special = SPECIAL_EVENTS
    counted = _COUNTED
    for e in [e for e in events if e.type in counted]:  # most (speeches, steps, votes) count for nothing
        t = e.type
        if t == "death":
            causes.append(e.data["cause"])
        elif t == "day":
            days = e.data["number"]
        elif t == "ruling":
            fired.append(e.data["rule"])
        elif t in special:
            fired.append(special[t])
        elif t == "sheriff":
            reason = BADGE_REASONS.get(e.data.get("reason"))  # type: ignore[arg-type]
            if reason is not None and e.data.get("seat") is None:
                fired.append(reason)
        elif t == "game_over":
            teams = list(e.data["teams"])
            ending = e.data.get("rule") or None
            if ending and not ending.endswith("_wins"):
                fired.append(ending)
    return teams, days, causes, fired, ending


# The events a power's use shows in, for ``powers_used`` (cheap to test before reading an event).
_POWER_EVENTS = frozenset({"potions", "check", "guarded", "shoot", "duel", "explode", "claw", "sheriff", "took",
                           "thief_keeps", "lovers_linked", "swapped", "dreamed", "charmed", "silenced", "infect",
                           "cursed", "shielded", "reveal", "bomb", "bear", "exchange", "pack_choice", "ban",
                           "servant"})
# Powers named after the event alone (the rest are worked out from the event's fields below).
_PLAIN_POWERS = {"claw": "white_wolf_king_claw", "swapped": "magician_swap", "dreamed": "dreamcatcher_dream",
                 "charmed": "piper_charm", "infect": "wolf_father_infect", "cursed": "curse", "shielded": "shield",
                 "reveal": "idiot_reveal", "bomb": "bomber_bomb", "thief_keeps": "thief_kept_own_card",
                 "ban": "scapegoat_ban", "servant": "devoted_servant"}
_BADGE = {"vote": "sheriff_elected", "sole candidate": "sheriff_elected", "passed": "badge_passed",
          "torn": "badge_torn"}


def _day_of(phase: str) -> int:
    """The number of ``night3`` or ``day3`` (a night comes before the day of its number); 0 for the setup."""
    digits = phase.lstrip("abcdefghijklmnopqrstuvwxyz_")
    return int(digits) if digits.isdigit() else 0


def seat_outcomes(events: list[Event]) -> list[tuple[str, bool, int]]:
    """Each seat's (dealt card, on the winning side, the day it died or 0 if it lived)."""
    dealt: dict[int, str] = {}
    died: dict[int, int] = {}
    winners: set[int] = set()
    for e in events:
        t = e.type
        if t == "role" and e.phase == "setup":
            dealt[e.data["seat"]] = e.data["role"]
        elif t == "death":
            seat = e.data["seat"]
            if seat not in died:
                died[seat] = max(1, _day_of(e.phase))
        elif t == "game_over":
            winners = set(e.data.get("seats") or ())
    return [(role, seat in winners, died.get(seat, 0)) for seat, role in sorted(dealt.items())]


def powers_used(events: list[Event]) -> list[str]:
    """Every use of a power or a choice a rule offers, by name (``witch_self_save``, ``hunter_shot``, ...)."""
    used: list[str] = []
    for e in events:
        t = e.type
        if t not in _POWER_EVENTS:
            continue
        d = e.data
        if t in _PLAIN_POWERS:
            used.append(_PLAIN_POWERS[t])
        elif t == "potions":
            if d.get("save") is not None:
                used.append("witch_save")
                if d["save"] == d.get("seat"):
                    used.append("witch_self_save" if e.phase == "night1" else "witch_self_save_after_night1")
            if d.get("poison") is not None:
                used.append("witch_poison")
        elif t == "check":
            used.append("seer_check")
            if d.get("result") == "wolf":
                used.append("seer_found_wolf")
        elif t == "guarded":
            if d.get("target") is not None:
                used.append("guard_self_protect" if d["target"] == d.get("seat") else "guard_protect")
        elif t == "shoot":
            used.append(f"{d.get('role')}_shot")
        elif t == "duel":
            used.append("knight_duel_found_wolf" if d.get("result") == "wolf" else "knight_duel_missed")
        elif t == "explode":
            used.append(f"{d.get('role')}_self_destruct")
        elif t == "sheriff":
            badge = _BADGE.get(str(d.get("reason")))
            if badge is not None:
                used.append(badge)
        elif t == "took":
            used.append(f"thief_took_{d.get('role')}")
        elif t == "lovers_linked":
            used.append("cupid_link_mixed" if d.get("mixed") else "cupid_link_same_side")
        elif t == "silenced":
            if "target" in d:  # the night's choice (the day's public notice repeats it)
                used.append("silencer_silence")
        elif t == "bear":
            if d.get("roared"):
                used.append("bear_roar")
        elif t == "exchange":
            used.append(f"{d.get('role')}_exchange")
        elif t == "pack_choice":
            if d.get("target") is None:
                used.append("wolves_kill_nobody")
    return used


def run_chunk(config: SimConfig, start: int, stop: int, keep_logs: bool = False
              ) -> tuple[Stats, list[dict[str, Any]] | None]:
    """Games ``start`` to ``stop - 1``: their statistics, and their logs if asked."""
    stats = Stats()
    logs: list[dict[str, Any]] | None = [] if keep_logs else None
    setup = base_setup(config)
    for i in range(start, stop):
        try:
            game = play_game(config, i, setup)
        except Exception as e:  # an engine or bot bug: count it, keep going, show it in the report
            stats.add_error(i, game_seed(config.seed, i), f"{type(e).__name__}: {e}")
            continue
        teams, days, causes, fired, ending = summarize(game.events)
        events = game.events
        stats.add(teams, days, causes, fired, ending, game.answered, seat_outcomes(events), powers_used(events))
        if logs is not None:
            logs.append({"game": i, "seed": game.setup.seed, "teams": teams, "days": days,
                         "events": [e.as_json() for e in game.events]})
    return stats, logs
