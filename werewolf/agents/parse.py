"""Reading statements from free text: what a seat said, as speech acts (``werewolf.agents.speech.Act``).

Table-driven: the text is normalized (full-width forms, case, Chinese seat numerals), its seat
numbers become ``#N`` and its role names (every role, in every language of ``werewolf.i18n``)
become ``@role``; then each clause is matched against ``RULES``, a table of patterns in order of
precedence (a span taken by one rule is not read again by a later one). It reads the sentences the
engine itself renders (``speech_<lang>.json``, in all three languages: ``parse(render(act))`` gives
the act back) and the common forms players type:

- claims: "I'm the seer", "I claim witch", 「我是預言家」, 「我跳預言家」, 「本人女巫」;
- check reports: "I checked 5: a werewolf", 「5號查殺」, 「查殺5號」, 「3號金水」, 「我驗了4號，好人」;
  after a seer claim in the same text, a bare "5 is a wolf" / "5 is good" is a check report too
  (with an accusation when it names a wolf);
- the witch's "I saved 5", 「救了5號」, 「5號銀水」 (a vouch: the wolves' victim is good);
- accusations ("5 is a wolf", "vote 5 out", 「5號是狼」, 「5號悍跳」), defences ("I am good",
  「我是好人」, 「別投我」), vouches ("I trust 3", 「3號好人」), vote intentions ("I will vote 5",
  「我投5號」) and the sheriff's call ("I call the vote on 3", 「歸票3號」).

A check report's result is ``wolf``/``good`` (``not_village``/``village`` for the camp forms);
a one-night card report ("I saw seat 4's card: Seer") has the role instead.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Final

from werewolf.agents.speech import Act
from werewolf.i18n import LANGS, role_name
from werewolf.roles import ROLES

# Extra names players use for roles, besides each role's name in every language.
ROLE_ALIASES: Final[dict[str, str]] = {
    "prophet": "seer", "wolf king": "wolf_king", "bodyguard": "guard", "protector": "guard",
    "villager": "villager", "村民": "villager", "預言": "seer", "预言": "seer",
    "白癡": "idiot", "白痴": "idiot", "守衛": "guard", "守卫": "guard", "獵人": "hunter", "猎人": "hunter",
    "預家": "seer", "预家": "seer", "平民": "villager",
}

# Camp phrases (wechat's checks), replaced before role names (「村民陣營」 holds the villager's name).
CAMPS: Final = (("not on the village's side", "~nv~"), ("not on the village side", "~nv~"),
                ("非村民陣營", "~nv~"), ("非村民阵营", "~nv~"),
                ("on the village's side", "~v~"), ("on the village side", "~v~"),
                ("村民陣營", "~v~"), ("村民阵营", "~v~"))

_CN_DIGITS: Final = {"一": 1, "二": 2, "兩": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
                     "九": 9}

T: Final = r"#(?P<t>\d+)"
R: Final = r"@(?P<r>[a-z_]+)"
WOLF: Final = r"(?:@werewolf|werewolf|wolf|wolves|bad|evil|狼人|狼|查殺|查杀|~nv~)"
GOOD: Final = r"(?:good|innocent|clean|clear|~v~|好人|金水)"
WORD: Final = rf"(?P<w>{WOLF}|{GOOD})"
BE_EN: Final = r"(?:is|was|'s|must be|is definitely|is surely)"
NOT_EN: Final = (r"(?:is not|isn't|is no|was not|wasn't|'s not|is definitely not|is surely not|is probably not|"
                 r"must not be|can't be|cannot be|is hardly)")
NOT_ZH: Final = r"(?:應該|应该|肯定|一定|絕對|绝对|並|并|也)?\s*(?:不是|不像|不會是|不会是)"
THINK_NOT_ZH: Final = r"(?:我)?(?:不覺得|不觉得|不認為|不认为|不相信|不信|不覺|不觉)"
EACH_ZH: Final = r"(?:一?[張张]|一?[個个])?"


def _result(word: str) -> str:
    if word == "~nv~":
        return "not_village"
    if word == "~v~":
        return "village"
    return "wolf" if re.fullmatch(WOLF, word) else "good"


# (kind, pattern): kinds ``check``, ``card`` (a one-night card seen), ``saved``, ``claim``, ``call``,
# ``vote``, ``defend``, ``vouch``, ``accuse`` and ``bare`` ("5 is a wolf": a seer's check report after
# a seer claim, else an accusation or a vouch). Order is precedence.
RULES: Final[tuple[tuple[str, str], ...]] = (
    # negations first, so that no later rule reads their words as if unnegated: a doubt about a wolf
    # (``not_wolf``: a vouch, or a seer's good report), about a good seat (``not_good``: an accusation),
    # distrust (an accusation), "don't vote X" (a vouch), "I won't vote X", "not sure" (nothing), "I'm not
    # the seer" (``not_role``: nothing, or a defence for a wolf's card)
    ("none", rf"\bnot (?:sure|certain) (?:if |whether |that )?{T}\s*{BE_EN}?\s*(?:a |an |the )?{WORD}"),
    ("none", rf"(?:不確定|不确定|不知道)\s*{T}\s*(?:是不是|是否|是)?\s*{EACH_ZH}\s*{WORD}"),
    ("not_wolf", rf"\bi (?:don't|do not|dont|didn't|did not) (?:think|believe|feel|suspect|reckon)(?: that)? {T}\s*"
                 rf"{BE_EN}?\s*(?:a |an |the )?{WOLF}"),
    ("not_good", rf"\bi (?:don't|do not|dont|didn't|did not) (?:think|believe|feel|reckon)(?: that)? {T}\s*"
                 rf"{BE_EN}?\s*(?:a |an |the )?{GOOD}"),
    ("not_wolf", rf"{T}\s*{NOT_EN}\s*(?:a |an |the )?{WOLF}"),
    ("not_wolf", rf"{T}\b[^.,;]*?\bbut not (?:a |an |the )?{WOLF}"),
    ("not_good", rf"{T}\s*{NOT_EN}\s*(?:a |an |the )?{GOOD}"),
    ("not_wolf", rf"{THINK_NOT_ZH}\s*{T}\s*(?:是|會是|会是)?\s*{EACH_ZH}\s*{WOLF}"),
    ("not_good", rf"{THINK_NOT_ZH}\s*{T}\s*(?:是|會是|会是)?\s*{EACH_ZH}\s*{GOOD}"),
    ("not_wolf", rf"{T}\s*[^,.;]*?{NOT_ZH}\s*{EACH_ZH}\s*{WOLF}"),
    ("not_good", rf"{T}\s*{NOT_ZH}\s*{EACH_ZH}\s*{GOOD}"),
    ("distrust", rf"\bi (?:don't|do not|dont|can't|cannot|no longer) (?:trust|believe in|believe) {T}"),
    ("distrust", rf"(?:我)?(?:不信任|不相信|不信)\s*{T}"),
    ("none", rf"\bi(?:'m| am)? (?:not|won't|will not|wouldn't|would not|am not going to|'m not going to|do not|"
             rf"don't) (?:be )?(?:voting|vote) (?:for |against |on )?{T}"),
    ("keep", rf"(?<!我)(?:別|别|不要|不能)\s*(?:投|出|推)\s*{T}"),  # said to the table; "我不要投" is mine
    ("none", rf"我?(?:不會|不会|不要|不想|不)\s*投\s*(?:給|给)?\s*{T}"),
    ("keep", rf"\b(?:don't|do not|dont|never) vote (?:for |against )?{T}(?: out)?"),
    ("not_role", rf"\bi(?:'m| am) not (?:the |a |an |really the )?{R}"),
    ("not_role", rf"(?:我|本人)\s*(?:不是|並不是|并不是)\s*{R}"),
    # one-night: a card seen
    ("card", rf"\bi (?:saw|looked at|viewed) {T}(?:'s)? card\s*[:,]?\s*(?:it |that )?(?:is |was |'s )?"
             rf"(?:the |a |an )?{R}"),
    ("card", rf"我?(?:看到|看了|看)了?\s*{T}\s*的牌\s*[:,]?\s*(?:是)?\s*{R}"),
    # check reports
    ("check", rf"\bi (?:checked|check|verified|investigated|saw) {T}(?: last night| tonight| yesterday)?\s*"
              rf"[:,-]?\s*(?:and )?(?:(?:they|he|she|it)\s*(?:'s|'re|is|was|are)?\s*)?"
              rf"(?:is |was |as |are )?(?:a |an |on the )?{WORD}"),
    ("check", rf"(?:查驗|查验|驗|验|查)了?\s*{T}\s*[:,]?\s*(?:他|她|它)?\s*(?:是|為|为|,)?\s*{EACH_ZH}\s*{WORD}"),
    ("check", rf"{T}\s*(?:是|為|为)?\s*(?:我的)?\s*(?P<w>查殺|查杀|金水)"),
    ("check", rf"(?:給|给|發|发)?\s*(?P<w>查殺|查杀|金水)\s*(?:給|给|是)?\s*{T}"),
    # the witch's save: the wolves' victim is good
    ("saved", rf"\bi saved {T}"),
    ("saved", rf"(?:救了|救的是|救)\s*{T}"),
    ("saved", rf"{T}\s*(?:是)?\s*(?:銀水|银水)"),
    # the sheriff's call and vote intentions
    ("call", rf"\bcall(?:s|ed|ing)? the vote on {T}"),
    ("call", rf"(?:票)?(?:歸|归)(?:給|给|票)?\s*{T}"),
    ("vote", rf"\bi(?:'ll| will| am going to|'m going to|'m| am)? (?:vote|voting) (?:for |against |on )?{T}(?! out)"),
    ("vote", rf"\bmy vote (?:goes |is going |will go )?(?:to|is on|is for|on|for|is)\s*{T}"),
    ("vote", rf"我(?:會|会|要|就)?投\s*{T}"),
    ("vote", rf"我的票\s*(?:給|给|投給|投给|是|投)\s*{T}"),
    # claims
    ("claim", rf"\bi(?:'m| am)\s+(?:just |only |simply )?(?:the |a |an |really the |the real )?{R}"),
    ("claim", rf"\bi (?:claim|jump)\s+(?:the |a |an )?{R}"),
    ("claim", rf"(?:我|本人)\s*(?:只是|是|跳|就是|才是|是真|是真的)?\s*(?:真)?\s*{R}"),
    ("claim", rf"跳\s*{R}"),
    # defences
    ("defend", r"\bi(?:'m| am) (?:a )?(?:good|innocent|not a (?:were)?wolf|a good person|on the good side)"),
    ("defend", r"\b(?:do not|don't|dont) vote (?:for )?me"),
    ("defend", r"我是好人|我不是狼|不要投我|別投我|别投我|不要出我|別出我|别出我"),
    # vouches
    ("vouch", rf"\bi (?:trust|believe|vouch for) {T}"),
    ("vouch", rf"(?:我)?(?:相信|信任|信)\s*{T}"),
    # accusations
    ("accuse", rf"\bvote {T} out"),
    ("accuse", rf"{T}\s*(?:是|就是|肯定是|一定是|必是)?\s*(?:悍跳|假預言家|假预言家)"),
    ("accuse", rf"(?:把\s*)?{T}\s*(?:投出去|出局|推出去)"),
    ("accuse", rf"(?:投出|推|出)\s*{T}"),
    # "5 is a wolf" / "5 is good": what it means depends on who speaks (see ``parse``)
    ("bare", rf"{T}\s*:?\s*{BE_EN}?\s*(?:a |an |the |on the )?{WORD}"),
    ("bare", rf"{T}\s*(?:是|就是|肯定是|一定是|為|为)?\s*(?:一?[張张]|一?[個个])?\s*{WORD}"),
)

_SPLIT: Final = re.compile(r"[。.!！?？;；\n]+")


@cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((kind, re.compile(p)) for kind, p in RULES)


@cache
def _role_names() -> tuple[tuple[str, str], ...]:
    """(name, role id), longest name first, for every role in every language and every alias."""
    names: dict[str, str] = {}
    for role in ROLES:
        names[role.replace("_", " ")] = role
        for lang in LANGS:
            names[role_name(role, lang).lower()] = role
    names.update(ROLE_ALIASES)
    return tuple(sorted(names.items(), key=lambda kv: -len(kv[0])))


@cache
def _role_pattern() -> re.Pattern[str]:
    parts = []
    for name, _ in _role_names():
        esc = re.escape(name)
        # English names are whole words; a Chinese name is matched anywhere.
        parts.append(rf"\b{esc}\b" if name.isascii() else esc)
    return re.compile("|".join(parts))


def role_id(name: str) -> str | None:
    """The role id a name stands for (a role id, a role's name in any language, an alias), or None."""
    n = unicodedata.normalize("NFKC", name).strip().lower()
    if n.replace(" ", "_") in ROLES:
        return n.replace(" ", "_")
    return dict(_role_names()).get(n)


def _cn_number(m: re.Match[str]) -> str:
    s = m.group(1)
    if s.startswith("十"):
        n = 10 + (_CN_DIGITS[s[1]] if len(s) > 1 else 0)
    elif len(s) == 2 and s[1] == "十":
        n = _CN_DIGITS[s[0]] * 10
    elif len(s) >= 2 and "十" in s:
        n = _CN_DIGITS[s[0]] * 10 + _CN_DIGITS[s[-1]]
    else:
        n = _CN_DIGITS[s]
    return f"#{n} "


def normalize(text: str) -> str:
    """The text as the rules read it: ``#N`` for seats, ``@role`` for role names, ``~v~``/``~nv~`` for camps."""
    s = unicodedata.normalize("NFKC", text).lower()
    s = s.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    s = s.replace("「", '"').replace("」", '"').replace("（", "(").replace("）", ")")
    for phrase, token in CAMPS:
        s = s.replace(phrase, f" {token} ")
    roles = dict(_role_names())
    s = _role_pattern().sub(lambda m: f" @{roles[m.group(0)]} ", s)
    s = re.sub(r"([一二兩两三四五六七八九十]{1,3})\s*[號号]", _cn_number, s)
    s = re.sub(r"(\d+)\s*[號号](?:玩家|位)?", r"#\1 ", s)
    s = re.sub(r"\b(?:seat|player|no\.|number|p)\s*#?(\d+)", r"#\1", s)
    s = re.sub(r"(?<![#\d@a-z_])(\d+)", r"#\1", s)
    s = re.sub(r"#\s+(\d)", r"#\1", s)
    return re.sub(r"[ \t]+", " ", s)


def parse(text: str, seat: int, *, claimed: str | None = None) -> list[Act]:
    """The statements of ``seat`` in ``text``, in the order said (each once).

    ``claimed``: the role the seat claimed before this text, if any (a bare "5 is a wolf" from a
    seat that claims the seer is a check report)."""
    out: list[Act] = []
    seen: set[tuple[str, int | None, str | None, str | None]] = set()

    def say(kind: str, target: int | None = None, role: str | None = None, result: str | None = None) -> None:
        k = (kind, target, role, result)
        if k not in seen:
            seen.add(k)
            out.append(Act(seat, kind, target, role, result))

    seer = claimed == "seer"
    checked: set[int | None] = set()
    for clause in _SPLIT.split(normalize(text)):
        found: list[tuple[int, str, dict[str, str | None]]] = []
        c = clause
        for kind, pattern in _compiled():
            found += [(m.start(), kind, m.groupdict()) for m in pattern.finditer(c)]
            c = pattern.sub(lambda m: " " * len(m.group(0)), c)  # a span read once, by the first rule
        for _, kind, groups in sorted(found, key=lambda x: x[0]):
            t, role, word = groups.get("t"), groups.get("r"), groups.get("w")
            target = int(t) if t else None
            if kind == "card":
                say("check", target, role=role)
                checked.add(target)
            elif kind == "check" and word is not None:
                say("check", target, result=_result(word))
                checked.add(target)
            elif kind == "saved" or kind == "vouch":
                if target != seat:
                    say("vouch", target)
            elif kind == "claim":
                if role in ROLES:
                    say("claim", role=role)
                    seer = role == "seer"
            elif kind in ("call", "vote", "accuse"):
                say(kind, target)
            elif kind == "defend":
                say("defend")
            elif kind == "not_wolf":  # "4 is not a wolf": as "4 is good" said
                if seer and target != seat and target not in checked:
                    say("check", target, result="good")
                    checked.add(target)
                elif not seer and target != seat:
                    say("vouch", target)
            elif kind in ("not_good", "distrust"):  # "4 is not good", "I don't trust 4": suspicion
                if target != seat:
                    say("accuse", target)
            elif kind == "keep":  # "don't vote 4 out"
                if target != seat:
                    say("vouch", target)
            elif kind == "not_role":  # "I'm not the seer": no claim; "I'm not a werewolf": a defence
                if role in ROLES and ROLES[role].faction == "wolf":
                    say("defend")
            elif kind == "bare" and word is not None:
                result = _result(word)
                if seer and target != seat and target not in checked:  # reported once, as said first
                    say("check", target, result=result)
                    checked.add(target)
                if result in ("wolf", "not_village"):
                    say("accuse", target)
                elif not seer:
                    say("vouch", target)
    return out
