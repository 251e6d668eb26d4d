"""Structured speech acts: what a bot says at its speaking turn, as data and as sentences.

The engine's log records *that* a seat spoke (``speech``, ``last_words``), not
what it said (live play: the text). Agents talk through speech acts: claim a role,
report a check, accuse, defend, vouch, state a vote intention, and the sheriff's
call of the vote. Acts are public: the ``Host`` (``werewolf.agents``) puts each in
every seat's view as a ``statement`` event, in the order said, and keeps them in a
``Channel`` (one per game, a transcript); text is read into acts by ``werewolf.agents.parse``.
``render`` turns an act into a sentence in any language of ``werewolf.i18n``
(the messages live in ``werewolf/i18n/speech_<lang>.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources

from mypy_extensions import mypyc_attr

from werewolf.i18n import DEFAULT_LANG, LANGS, normalize_lang, role_name, t

# claim: "I am the <role>"; check: "I checked <target>: <result>" (one-night: <role>, the card seen);
# accuse: "<target> is a wolf"; defend: "I am good"; vouch: "<target> is good";
# call: the sheriff calls the vote on <target>; vote: "I will vote for <target>" (an intention).
KINDS = ("claim", "check", "accuse", "defend", "vouch", "call", "vote")


class Act:
    """One speech act: ``seat`` says ``kind`` (about ``target``, ``role``, ``result``); made once, never changed."""

    # A class with slots, not a NamedTuple, as the core's Event: as cheap in CPython, and made
    # natively by the compiled bots, where a NamedTuple's __new__ is interpreted code.
    __slots__ = ("seat", "kind", "target", "role", "result", "phase")

    def __init__(self, seat: int, kind: str, target: int | None = None, role: str | None = None,
                 result: str | None = None, phase: str = "") -> None:
        self.seat = seat
        self.kind = kind
        self.target = target
        self.role = role
        self.result = result
        self.phase = phase

    def as_tuple(self) -> tuple[int, str, int | None, str | None, str | None, str]:
        return (self.seat, self.kind, self.target, self.role, self.result, self.phase)

    def __eq__(self, other: object) -> bool:
        return self.as_tuple() == other.as_tuple() if isinstance(other, Act) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return (f"Act(seat={self.seat!r}, kind={self.kind!r}, target={self.target!r}, role={self.role!r}, "
                f"result={self.result!r}, phase={self.phase!r})")


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (scripts/compile.py); the terminal's TableTalk extends it
class Channel:
    """The table's public talk: every speech act, in the order it was said."""

    __slots__ = ("acts",)

    def __init__(self) -> None:
        self.acts: list[Act] = []

    def post(self, act: Act) -> None:
        self.acts.append(act)

    def __len__(self) -> int:
        return len(self.acts)

    def __iter__(self) -> Iterator[Act]:
        return iter(self.acts)

    def transcript(self, lang: str = DEFAULT_LANG) -> list[str]:
        """Every act as a sentence, with its speaker (``Seat 3: I am the Seer.``)."""
        return [render(a, lang, speaker=True) for a in self.acts]


@cache
def messages(lang: str) -> Mapping[str, str]:
    """The speech messages of ``lang`` (``speech_<lang>.json`` beside the main catalogues)."""
    if lang not in LANGS:
        raise KeyError(f"no speech catalogue for language {lang!r}")
    text = resources.files("werewolf.i18n").joinpath(f"speech_{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"speech_{lang}.json must map keys to strings")
    return data


def key(act: Act) -> str:
    """The message key of an act (its variant: a check's result, a one-night card)."""
    if act.kind == "check":
        if act.result is not None:
            return f"speech.check.{act.result}"
        return "speech.check.role"
    return f"speech.{act.kind}"


def render(act: Act, lang: str = DEFAULT_LANG, *, speaker: bool = False) -> str:
    """The act as a sentence in ``lang``; ``speaker`` puts the speaking seat in front."""
    lang = normalize_lang(lang)
    k = key(act)
    template = messages(lang).get(k) or messages(DEFAULT_LANG)[k]
    fields = {
        "target": t("fmt.seat", lang, n=act.target) if act.target is not None else t("fmt.none", lang),
        "role": role_name(act.role, lang) if act.role else "",
    }
    text = template.format(**fields)
    if speaker:
        return (messages(lang).get("speech.say") or messages(DEFAULT_LANG)["speech.say"]).format(
            speaker=t("fmt.seat", lang, n=act.seat), text=text)
    return text


def speech_text(acts: list[Act], lang: str = DEFAULT_LANG) -> str | None:
    """A speaking turn's acts as one paragraph (live play's ``speak`` answer); None for silence."""
    if not acts:
        return None
    join = messages(normalize_lang(lang)).get("speech.join")  # Chinese joins sentences with nothing
    return (" " if join is None else join).join(render(a, lang) for a in acts)
