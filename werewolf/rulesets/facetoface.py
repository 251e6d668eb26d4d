"""`facetoface`: the community face-to-face rules, revised (rule book 001; RULES.md §1.2, §3.3, §4.2, §5.2)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

from werewolf.core.errors import SetupError, quoted
from werewolf.roles import FACETOFACE_ROLES
from werewolf.rulesets.daynight import night as N
from werewolf.rulesets.daynight.moderator import Moderator
from werewolf.rulesets.daynight.night import Step
from werewolf.rulesets.daynight.ruleset import DayNightRuleset
from werewolf.rulesets.daynight.state import Player
from werewolf.rulesets.options import DayNightOptions

# 「盜賊丘比特情侶守衛長老狼人女巫預言家獵人白癡」; from Night 2 「直接從守衛開始」.
NIGHT_ORDER = (
    Step("thief", "thief", N.thief, first_night_only=True),
    Step("cupid", "cupid", N.cupid, first_night_only=True),
    Step("lovers", "cupid", N.lovers, first_night_only=True),
    Step("", "", N.setup_done, first_night_only=True),
    Step("guard", "guard", N.guard),
    Step("elder", "elder", None),
    Step("wolves", "werewolf", N.pack),
    Step("witch", "witch", N.witch),
    Step("seer", "seer", N.seer),
    Step("", "", N.resolve),
    Step("hunter", "hunter", N.hunter_signal),
    Step("idiot", "idiot", None),
)

W, V = "werewolf", "villager"
_CUPID_SMALL = {"win_mode": "tu_cheng", "cupid_double_wolf_team": "wolf", "witch_self_save": "first_night_only"}


def _preset(roles: tuple[str, ...], **rules: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    return roles, rules


# id → (deck, the options the preset fixes). 屠城 = tu_cheng, 屠邊 = tu_bian.
PRESETS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "ff7_cupid": _preset(("witch", "seer", "cupid", W, W, V, V), **_CUPID_SMALL),
    "ff8_cupid": _preset(("witch", "seer", "cupid", W, W, V, V, V), **_CUPID_SMALL),
    "ff9_cupid": _preset(("witch", "seer", "cupid", W, W, W, V, V, V), win_mode="tu_cheng",
                         cupid_double_wolf_team="good", witch_self_save="first_night_only"),
    "ff9_standard": _preset(("hunter", "witch", "seer", W, W, W, V, V, V), win_mode="tu_cheng"),
    "ff10_333_cupid": _preset(("hunter", "witch", "seer", "cupid", W, W, W, V, V, V), win_mode="tu_cheng",
                              cupid_double_wolf_team="wolf"),
    "ff11_4wolf_cupid": _preset(("hunter", "witch", "seer", "cupid", W, W, W, W, V, V, V), win_mode="tu_cheng",
                                cupid_double_wolf_team="good"),
    "ff12_444_guard": _preset(("hunter", "witch", "seer", "guard") + (V,) * 4 + (W,) * 4, win_mode="tu_bian"),
    "ff12_444_idiot": _preset(("hunter", "witch", "seer", "idiot") + (V,) * 4 + (W,) * 4, win_mode="tu_bian"),
    "ff12_444_elder": _preset(("hunter", "witch", "seer", "elder") + (V,) * 4 + (W,) * 4, win_mode="tu_bian"),
    "ff12_cupid_thief": _preset(("hunter", "witch", "seer", "idiot", "cupid", "thief") + (V,) * 5 + (W,) * 3,
                                win_mode="tu_bian", cupid_double_wolf_team="wolf"),
}
# A deck that matches no preset (RULES.md §1.7).
NO_PRESET = {"win_mode": "tu_bian", "cupid_double_wolf_team": "wolf", "witch_self_save": "never"}


def preset_of(cards: list[str]) -> str | None:
    key = Counter(cards)
    for pid, (deck, _) in PRESETS.items():
        if Counter(deck) == key:
            return pid
    return None


class FaceToFaceModerator(Moderator):
    def chain_hook(self, p: Player, batch: list[Player]) -> None:
        # 「長老若被女巫毒死、白天票死、獵人帶走則一擊斃命」, and the village pays for it.
        if p.role == "elder" and p.cause in ("poison", "exile", "shot"):
            self.elder_penalty(p, batch)

    def powerless_woken(self, q: Player) -> None:
        # 「女巫如果在長老死之前解藥沒用的.法官還是要向女巫指示刀法.只不過女巫如果選擇用藥法官只會搖頭示意其不能用
        # 技能了」⟨001⟩: a powerless witch is still shown the victim while her antidote is unused.
        if q.role == "witch":
            informed, victim = self.witch_shown(q)
            if informed:
                self.t.tell(q.seat, "victim", seat=q.seat, target=victim)


class FaceToFaceRuleset(DayNightRuleset):
    def decks(self) -> dict[str, tuple[str, ...]]:
        return {pid: deck for pid, (deck, _) in PRESETS.items()}

    def adjust_options(self, opts: DayNightOptions, deck: list[str],
                       overrides: Mapping[str, Any] | None) -> DayNightOptions:
        """The preset a deck matches fixes 屠城/屠邊, cupid's team and the witch's self-save.

        An option given by name wins over its preset's value; the preset's other rules still hold.
        """
        pid = opts.preset or preset_of(deck)
        if pid is not None and pid not in PRESETS:
            raise SetupError(f"unknown facetoface preset {quoted(pid)} for the option 'preset' "
                             f"(known: {', '.join(PRESETS)})")
        rules: dict[str, Any] = dict(NO_PRESET)
        if pid is not None:
            rules.update({"witch_self_save": "never"}, **PRESETS[pid][1])
        given = {k for k, v in (overrides or {}).items() if not (k == "win_mode" and v == "preset")}
        opts = dataclasses.replace(opts, preset=pid, **{k: v for k, v in rules.items() if k not in given})
        self.check_tie_priority(opts, deck)
        return opts


RULESET = FaceToFaceRuleset(
    name="facetoface",
    roles=FACETOFACE_ROLES,
    night_order=NIGHT_ORDER,
    deck_table={},
    standard_deck=lambda n: next(deck for deck, _ in PRESETS.values() if len(deck) == n),
    min_players=7,
    max_players=12,
    moderator=FaceToFaceModerator,
)
