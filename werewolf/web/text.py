"""The words of a view, rendered on the server from the message catalogues (``werewolf.i18n``).

``render`` adds to a seat's view everything its phone shows as text: each event
narrated for that seat, the role card, the phase, each pending decision's prompt
and option labels, the result. The browser only lays it out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from werewolf.core.decisions import AnyOf, Decision, Flag, Move
from werewolf.core.events import Event
from werewolf.i18n import (
    faction_name,
    has,
    narrate,
    normalize_lang,
    phase_name,
    role_description,
    role_name,
    t,
)
from werewolf.roles import ROLES

if TYPE_CHECKING:
    from werewolf.core.game import Setup


class Room(Protocol):
    """A room as its words read it (``werewolf.web.room.Room``): what is out, what is asked, and the
    narrations made so far (kept by the room, filled here)."""

    @property
    def setup(self) -> Setup: ...
    @property
    def status(self) -> str: ...
    @property
    def narrations(self) -> dict[tuple[int | None, str], list[str | None]]: ...
    @property
    def told(self) -> dict[tuple[bool, str], dict[int, str | None]]: ...
    @property
    def worded(self) -> dict[tuple[int, str], Worded]: ...
    def shown(self) -> Sequence[Event]: ...
    def pending(self, seat: int | None = None) -> list[Decision]: ...


# A seat's open decisions as last worded (``Room.worded``, by seat and language): the decisions themselves
# (the engine's objects, compared by identity), the role they were worded for, and their words.
Worded = tuple[tuple[Decision, ...], str | None, list[dict[str, Any]]]


def _t(key: str, lang: str, fallback: str | None = None, **fields: Any) -> str:
    """The message ``key`` (else ``fallback``, else the key itself), remembered: the catalogues never change,
    and every push of every seat asks the same few hundred messages again (its labels, prompts, names)."""
    try:
        return _words(key, lang, fallback, tuple((k, type(v), v) for k, v in fields.items()))
    except TypeError:  # a field that cannot be a key (a list): made each time
        return _message(key, lang, fallback, fields)


@functools.lru_cache(maxsize=8192)  # bounded: a server's memory stays flat
def _words(key: str, lang: str, fallback: str | None, fields: tuple[tuple[str, type, Any], ...]) -> str:
    # (each field's type is in the key: 1, 1.0 and True are equal keys, but not the same text)
    return _message(key, lang, fallback, {k: v for k, _, v in fields})


def _message(key: str, lang: str, fallback: str | None, fields: dict[str, Any]) -> str:
    if has(key, lang):
        try:
            return t(key, lang, **fields)
        except (KeyError, IndexError, ValueError):
            pass
    return fallback if fallback is not None else key


def involves(e: Event, seat: int) -> bool:
    """Whether an event names ``seat`` (its ``seat``, ``target`` or ``seats``): only such an event is
    narrated differently for that seat ("you") than for any other seat (``werewolf.i18n``'s viewer)."""
    d = e.data
    if d.get("seat") == seat or d.get("target") == seat:
        return True
    seats = d.get("seats")
    if isinstance(seats, list):
        return seat in seats
    if isinstance(seats, dict):
        return seat in seats or str(seat) in seats
    return False


PACK_WORDS = ("title", "hint", "none", "ready", "bot", "confirm", "chat", "say", "send", "you", "split")

BYSTANDER = 0  # a viewer no event names: a seated player's narration of an event that is not about them


def _narrate(e: Event, lang: str, viewer: int | None) -> str | None:
    try:
        return narrate(e.as_json(with_audience=False), lang, viewer)
    except Exception:  # noqa: BLE001 - a missing message must not break the view
        return None


def narrations(room: Room, seat: int | None, lang: str, events: Sequence[Event],
               index: Sequence[int] | None = None) -> list[str | None]:
    """Each visible event as a sentence for ``seat`` (cached: a seat's visible events only grow).

    An event is narrated once per language for every seat it does not name (``room.told``, by its
    position in the game's log, given as ``index``), and only for the seats it names on its own."""
    cache = room.narrations.setdefault((seat, lang), [])
    if len(cache) > len(events):  # the room was rebuilt
        cache.clear()
    told = room.told.setdefault((seat is None, lang), {})
    for k in range(len(cache), len(events)):
        e = events[k]
        if seat is not None and involves(e, seat):
            cache.append(_narrate(e, lang, seat))
            continue
        i = index[k] if index is not None else -1
        if i < 0:
            cache.append(_narrate(e, lang, None if seat is None else BYSTANDER))
            continue
        if i not in told:
            told[i] = _narrate(e, lang, None if seat is None else BYSTANDER)
        cache.append(told[i])
    return cache


def render(room: Room, v: Mapping[str, Any], seat: int | None, lang: str, events: Sequence[Event],
           index: Sequence[int] | None = None) -> dict[str, Any]:
    """The words of the view ``v`` (``events``: the events it shows; ``index``: their places in the log)."""
    lang = normalize_lang(lang)
    ruleset = room.setup.ruleset
    role = v.get("role")
    out: dict[str, Any] = {
        "lang": lang,
        "ruleset": _t(f"ruleset.{ruleset}", lang, ruleset),
        "phase": _phase(v["phase"], lang) if v["phase"] != "lobby" else "",
        "events": narrations(room, seat, lang, events, index),
        "seat": _t("fmt.seat", lang, str(seat), n=seat) if seat is not None else None,
        "role": None,
        "decisions": [],
        "result": None,
    }
    if role:
        out["role"] = dict(_role_card(role, lang, ruleset))
    if seat is not None and room.status == "playing":
        out["decisions"] = list(_decisions_text(room, seat, lang, role, events))
    # Whose speaking turn it is (public: the moderator announces it); in the one-night discussion
    # everyone may talk at once, and the phones show who is ready instead.
    talk = v.get("discussion")
    out["speaking"] = [turn_text(d, lang, None) for d in room.pending() if d.act == "speak"] \
        if room.status == "playing" and talk is None else []
    out["discussion"] = None if talk is None else discussion_text(talk, lang)
    # The pack's words (werewolf.web.pack), null where the view has none: every key is always there, so
    # that a delta (which only sets keys) takes them away too.
    out["pack"] = out["pack_why"] = out["interrupts"] = None
    if v.get("pack_why"):  # a wolf who self-destructed and still names the victim: the rule, from the book
        out["pack_why"] = table_why(room, str(v["pack_why"]), lang)
    if v.get("pack") is not None or v.get("pack_chat") is not None:  # the pack's card and chat
        out["pack"] = {k: _t(f"ui.pack.{k}", lang) for k in PACK_WORDS}
    if v.get("interrupts"):  # the seat's any-moment buttons
        out["interrupts"] = [interrupt_text(x, lang, seat, events) for x in v["interrupts"]]
    result = v.get("game_over")
    if result is not None:
        teams = result.get("teams") or []
        names = [_t(f"team.{x}", lang, x) for x in teams]
        out["result"] = {
            "winners": _t("ui.winners", lang, ", ".join(names), teams=_t("fmt.list_sep", lang, ", ").join(names))
            if teams else _t("ui.draw", lang, "draw"),
            "you": None if seat is None else _t("ui.you_won" if seat in result.get("seats", []) else "ui.you_lost",
                                                lang),
            "roles": final_roles(room, lang),
            **final_table(room, lang),
        }
    return out


@functools.lru_cache(maxsize=1024)  # bounded: (phase, language) pairs, a few hundred in a long game
def _phase(phase: str, lang: str) -> str:
    return phase_name(phase, lang)


@functools.lru_cache(maxsize=1024)  # (role, language, ruleset): a few hundred at most
def _role_card(role: str, lang: str, ruleset: str) -> dict[str, str]:
    faction = ROLES[role].faction if role in ROLES else None
    return {
        "name": _safe(role_name, role, lang, default=role),
        "description": _safe(role_description, role, lang, ruleset, default=""),
        "side": _t("ui.side", lang, "", faction=faction_name(faction, lang)) if faction else "",
    }


def _decisions_text(room: Room, seat: int, lang: str, role: str | None, events: Sequence[Event]
                    ) -> list[dict[str, Any]]:
    """The words of the seat's open decisions, worded once per decision: a decision is asked once every
    event before it is out, and its words read only those (tonight's victim for the witch, the centre
    cards for the thief), so the events that come out while it waits (the others' speeches and votes)
    change none of them."""
    pending = tuple(room.pending(seat))
    last = room.worded.get((seat, lang))
    if last is not None and last[1] == role and len(last[0]) == len(pending) \
            and all(a is b for a, b in zip(last[0], pending)):
        return last[2]
    words = [decision_text(room, d, seat, lang, role, events) for d in pending]
    room.worded[(seat, lang)] = (pending, role, words)
    return words


def _safe(fn: Any, *args: Any, default: str) -> str:
    try:
        return str(fn(*args))
    except (KeyError, TypeError, ValueError):
        return default


def discussion_text(talk: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The one-night discussion's words: its length, the "ready to vote" button, who is ready."""
    seconds = talk.get("seconds")
    ready = talk.get("ready") or []
    return {
        "title": _t("part.discussion", lang, "discussion"),
        "clock": _t("event.discussion.unlimited", lang) if seconds is None
        else _t("event.discussion", lang, seconds=int(seconds)),
        "ready_button": _t("ui.ready", lang),
        "ready": _t("ui.talk_ready", lang, seats=_t("fmt.list_sep", lang, ", ").join(
            seat_label(s, lang) for s in ready)) if ready else "",
        "waiting": _t("ui.talk_waiting", lang),
    }


def final_roles(room: Room, lang: str) -> list[dict[str, Any]]:
    """Every seat's role, from the public ``roles`` event of the game's end."""
    for e in reversed(room.shown()):
        if e.type == "roles" and e.to is None:
            roles = e.data.get("roles") or {}
            return [{"seat": int(s), "role": r, "name": _safe(role_name, r, lang, default=r)}
                    for s, r in sorted(roles.items(), key=lambda kv: int(kv[0]))]
    return []


RESULT_WORDS = ("final_table", "dealt", "at_dawn", "centre", "why_won", "died")


def final_table(room: Room, lang: str) -> dict[str, Any]:
    """The table at the end, for the result card (only ever in a view whose game is over): each seat's card as
    dealt and at dawn (the one-night games move cards), the centre cards, and why the side won (the rule of
    ``game_over``, from the rule book). All of it from the public ``roles`` and ``game_over`` events."""
    out: dict[str, Any] = {"dealt": None, "center": None, "why": None,
                           "labels": {k: _t(f"ui.result.{k}", lang) for k in RESULT_WORDS}}
    for e in reversed(room.shown()):
        if e.to is not None:
            continue
        if e.type == "roles" and out["dealt"] is None:
            dealt = e.data.get("dealt") or {}
            if dealt:
                out["dealt"] = {str(s): _safe(role_name, r, lang, default=r) for s, r in dealt.items()}
            center = e.data.get("center")
            if center:
                out["center"] = [_safe(role_name, r, lang, default=r) for r in center]
        elif e.type == "game_over" and out["why"] is None and e.data.get("rule"):
            out["why"] = table_why(room, str(e.data["rule"]), lang)
    return out


def table_why(room: Room, rule: str, lang: str) -> dict[str, Any]:
    """A rule as it reads at this table: the explanation chosen by its ruleset and the options it plays
    (werewolf.i18n.rules.explain), as the replay and the phones' "Why?" choose it."""
    from werewolf.i18n.rules import explain

    setup = room.setup
    return explain(rule, lang, setup.ruleset, _options_in_force(setup.ruleset, _frozen(setup.options)))


def _frozen(options: Mapping[str, Any] | None) -> str:
    import json

    return json.dumps(dict(options or {}), sort_keys=True, default=str)


@functools.lru_cache(maxsize=256)
def _options_in_force(ruleset: str, options: str) -> Mapping[str, Any] | None:
    import json

    from werewolf.core.errors import WerewolfError
    from werewolf.rulesets.options import in_force

    try:
        return in_force(ruleset, json.loads(options) or None)
    except (ValueError, WerewolfError):  # a table the engine set up has options it takes; else: the plain text
        return None


def turn_text(d: Decision, lang: str, viewer: int | None) -> str:
    """A speaking turn announced: "Seat 3 speaks." / "Your turn to speak."."""
    return _turn_words(d.seat, getattr(d, "part", "discussion"), lang, viewer)


@functools.lru_cache(maxsize=4096)  # (seat, part, language, viewer): bounded
def _turn_words(seat: int, part: str, lang: str, viewer: int | None) -> str:
    event = ({"type": "last_words", "phase": "", "seat": seat} if part == "last_words"
             else {"type": "speech", "phase": "", "seat": seat, "part": part})
    try:
        return narrate(event, lang, viewer) or ""
    except Exception:  # noqa: BLE001
        return ""


def decision_text(room: Room, d: Decision, seat: int, lang: str, role: str | None,
                  events: Sequence[Event]) -> dict[str, Any]:
    acts = d.acts
    if d.act == "speak":
        prompt = turn_text(d, lang, seat)
    elif isinstance(d, AnyOf):
        prompt = _t("prompt.any_of", lang, d.act,
                    acts=_t("fmt.list_sep", lang, ", ").join(act_name(a, lang) for a in acts))
    else:
        prompt = next((_t(k, lang) for k in (f"prompt.{d.act}.{role}", f"prompt.{d.act}") if has(k, lang)),
                      act_name(d.act, lang))
    options = d.options()
    return {
        "act": d.act,
        "kind": type(d).__name__.lower(),
        "title": " / ".join(act_name(a, lang) for a in acts),
        "prompt": prompt,
        "interrupt": d.interrupt,
        "arg": getattr(d, "arg", None),
        "targets": list(getattr(d, "targets", ()) or ()),
        "most": getattr(d, "most", None),
        "part": getattr(d, "part", None),
        "options": [{"move": o, "label": option_label(d, o, lang, seat, events)} for o in options],
    }


def interrupt_text(x: Mapping[str, Any], lang: str, seat: int | None, events: Sequence[Event]) -> dict[str, Any]:
    """An interrupt button's words: its act, each option's label, and the line that says it waits."""
    act = str(x.get("act"))
    d, me = Decision(seat or 0, act), seat or 0
    return {"act": act, "title": act_name(act, lang),
            "options": [{"move": o, "label": option_label(d, o, lang, me, events)} for o in x.get("options", [])],
            "armed": _t("ui.interrupt_armed", lang) if x.get("armed") else None,
            "hint": _t("ui.interrupt_hint", lang)}


def act_name(act: str, lang: str) -> str:
    return _t(f"act.{act}", lang, act)


def seat_label(n: Any, lang: str) -> str:
    return _t("fmt.none", lang, "-") if n is None else _t("fmt.seat", lang, str(n), n=n)


def option_label(d: Decision, move: Move, lang: str, seat: int, events: Sequence[Event]) -> str:
    act = str(move.get("act"))
    args = {k: v for k, v in move.items() if k not in ("act", "seat", "when")}
    alternatives = isinstance(d, AnyOf)
    if args.get("value") is False or (args and all(v is None for v in args.values())):
        if alternatives:
            return _t("option.pass", lang, "-")
        kind = "no" if "value" in args else "none"
        return _t(f"option.{kind}.{act}", lang, _t(f"option.{kind}", lang, kind))
    if act == "explode" and args.get("target") is not None:
        return _t("option.explode_target", lang, act, target=seat_label(args["target"], lang))
    if not args or args == {"value": True}:
        if act == "save":
            victim = tonight_victim(events, seat)
            if victim is not None:
                target = _t("fmt.yourself", lang) if victim == seat else seat_label(victim, lang)
                return _t("option.save_target", lang, act, target=target)
        if has(f"option.yes.{act}", lang):
            return _t(f"option.yes.{act}", lang)
        if alternatives or not isinstance(d, Flag):
            return act_name(act, lang)
        return _t("option.yes", lang, "yes")
    sep = _t("fmt.list_sep", lang, ", ")
    text = sep.join(arg_text(k, v, lang, seat, events) for k, v in args.items())
    return _t("option.act", lang, text, act=act_name(act, lang), arg=text) if alternatives else text


def arg_text(name: str, value: Any, lang: str, seat: int, events: Sequence[Event]) -> str:
    if value is None:
        return _t("fmt.none", lang, "-")
    if name in ("target", "seat"):
        if value == seat:  # the player's own seat, said so ("Seat 2 (yourself)")
            return _t("fmt.seat_yourself", lang, seat_label(value, lang), seat=seat_label(value, lang))
        return seat_label(value, lang)
    if name == "card":
        return card_label(value, lang, seat, events)
    if name == "cards" and isinstance(value, list) and len(value) == 2:
        return _t("fmt.pair", lang, str(value), a=card_label(value[0], lang, seat, events),
                  b=card_label(value[1], lang, seat, events))
    if isinstance(value, list) and not value:
        return _t("option.none", lang, "-")
    if isinstance(value, list) and len(value) == 2:
        return _t("fmt.pair", lang, str(value), a=seat_label(value[0], lang), b=seat_label(value[1], lang))
    if isinstance(value, list):
        return _t("fmt.list_sep", lang, ", ").join(seat_label(v, lang) for v in value)
    return _t(f"value.{name}.{value}", lang, str(value))


def card_label(n: int, lang: str, seat: int, events: Sequence[Event]) -> str:
    """A centre card, with its role when this seat has been shown the cards (the thief)."""
    for e in reversed(events):
        if e.type == "bottom_cards" and e.data.get("seat") == seat:
            cards = e.data.get("cards") or []
            if 1 <= n <= len(cards):
                return _t("fmt.card_role", lang, str(n), n=n, role=_safe(role_name, cards[n - 1], lang,
                                                                          default=cards[n - 1]))
            break
    return _t("fmt.card", lang, str(n), n=n)


def tonight_victim(events: Sequence[Event], seat: int) -> int | None:
    """Tonight's victim as shown to this seat (the witch), if any."""
    for e in reversed(events):
        if e.type == "victim" and e.data.get("seat") == seat:
            target = e.data.get("target")
            return target if isinstance(target, int) else None
        if e.type in ("night", "day"):
            break
    return None
