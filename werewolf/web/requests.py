"""Every request body the API accepts, checked once at the edge: types, ranges, lengths.

The models are strict (pydantic's strict mode: ``"12"`` is not a number, ``true`` is
not a seat, ``"yes"`` is not a boolean), refuse unknown fields, and accept only finite
numbers (``Infinity``, ``NaN`` and ``1e309``, which Python's JSON reader turns into
``inf``, are refused). The rules of the game itself (which options a ruleset has, the
values each takes, which moves are legal) are the engine's: a room's options go on to
``werewolf.rulesets.options`` and a move to the open decision, each with its own error.
Here only the shape and size of what comes in is checked, so that nothing unbounded
reaches the engine, the database or an error message.

``error_text`` turns a validation error into the one-line ``{"error": ...}`` message:
the field, the rule, and at most a short prefix of the value given.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from werewolf.core.errors import quoted
from werewolf.printable import printable
from werewolf.web import names
from werewolf.web.names import check_name
from werewolf.web.timers import MAX_SPEECH, MIN_SPEECH, NO_TURNS

MAX_SEAT = 99  # no deck has more seats; a room's own range (1..players) is checked by the room
MAX_SEED = 2**63 - 1
MAX_TIMEOUT = 86400.0  # a day: longer is "wait for ever" (0)
MAX_INT = 10**9  # any other integer (an option, a move's field)
MAX_NAME = 40  # a player's name, once trimmed
MAX_TEXT = 2000  # a speech (the engine's Speak.MAX) or any other string in a move
MAX_ITEMS = 64  # a list in an option or a move

LANG_TAG = r"^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8}){0,3}$"  # a language tag (stored with the room: no free text)
# A field name inside an option set or a move: the engine's vocabulary is snake_case.
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
Ident = Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")]


# -- JSON values of bounded size (options, moves) ------------------------------------------------
def _json_value(value: Any, depth: int) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not -MAX_INT <= value <= MAX_INT:
            raise ValueError(f"integers must be between {-MAX_INT} and {MAX_INT}")
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_INT:
            raise ValueError(f"numbers must be finite, between {-MAX_INT} and {MAX_INT}")
        return value
    if isinstance(value, str):  # a speech, any text of a move or an option: checked before it is stored
        if len(value) > 4 * MAX_TEXT:  # (longer than any text can be once folded: not worth folding)
            raise ValueError(f"strings must be at most {MAX_TEXT} characters")
        return printable(value, "text", MAX_TEXT, empty=True)
    if isinstance(value, list):
        if depth <= 0:
            raise ValueError("lists may be nested at most two deep")
        if len(value) > MAX_ITEMS:
            raise ValueError(f"lists must have at most {MAX_ITEMS} items")
        return [_json_value(v, depth - 1) for v in value]
    raise ValueError("expected null, true/false, a number, a string or a list of them")


def _fields(value: Any, what: str, most: int) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must be a JSON object")
    if len(value) > most:
        raise ValueError(f"{what} may have at most {most} fields")
    out: dict[str, Any] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not NAME.fullmatch(k):
            raise ValueError(f"field name {quoted(k)} is not a snake_case name of at most 40 characters")
        try:
            out[k] = _json_value(v, 2)
        except ValueError as err:
            raise ValueError(f"{k}: {err} (got {quoted(v)})") from None
    return out


_SCALAR_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": "null"}, {"type": "boolean"}, {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT},
    {"type": "string", "maxLength": MAX_TEXT}]}
_VALUE_SCHEMA: dict[str, Any] = {"anyOf": [
    *_SCALAR_SCHEMA["anyOf"], {"type": "number", "minimum": -MAX_INT, "maximum": MAX_INT},
    {"type": "array", "maxItems": MAX_ITEMS, "items": {"anyOf": [
        *_SCALAR_SCHEMA["anyOf"], {"type": "array", "maxItems": MAX_ITEMS, "items": _SCALAR_SCHEMA}]}}]}
_KEY_SCHEMA: dict[str, Any] = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$", "maxLength": 40}

Options = Annotated[
    dict[str, Any], PlainValidator(lambda v: _fields(v, "options", 100)),
    WithJsonSchema({"type": "object", "maxProperties": 100, "propertyNames": _KEY_SCHEMA,
                    "additionalProperties": _VALUE_SCHEMA,
                    "description": "the ruleset's named options (`werewolf options`, RULES.md §1.7)"})]


def move_fields(value: Any) -> dict[str, Any]:
    """The body of ``/act``: a JSON object with an ``act`` (a name) and a few bounded fields."""
    move = _fields(value, "a move", 8)
    seat = move.get("seat")
    if "seat" in move and (not isinstance(seat, int) or isinstance(seat, bool)):  # 1.0 == True == 1 in Python
        raise ValueError(f"seat: a seat is an integer, your own seat's number (got {quoted(seat)})")
    act = move.get("act")
    if not isinstance(act, str):
        raise ValueError("a move needs an 'act' (a string), e.g. {\"act\": \"vote\", \"target\": 4}")
    if not 1 <= len(act) <= 40:
        raise ValueError("act must be a name of at most 40 characters")
    return move


Move = Annotated[
    dict[str, Any], PlainValidator(move_fields),
    WithJsonSchema({"type": "object", "required": ["act"], "maxProperties": 8, "propertyNames": _KEY_SCHEMA,
                    "properties": {"act": {"type": "string", "minLength": 1, "maxLength": 40}},
                    "additionalProperties": _VALUE_SCHEMA,
                    "examples": [{"act": "vote", "target": 4}]})]


# -- names ----------------------------------------------------------------------------------------
def clean_name(name: str) -> str:
    """A player's name as shown: NFC, runs of spaces made one, trimmed; printable characters only.

    Refused: control and format characters (bidi overrides, zero-width ones: Unicode's C*
    categories), line and paragraph separators, private-use and unassigned code points; and a name
    that looks blank or like a seat label (``werewolf.web.names``).
    """
    return check_name(printable(name, "name", MAX_NAME))


def name_key(name: str) -> str:
    """What two names must not share in one room: their confusable skeleton (``werewolf.web.names``)."""
    return names.name_key(name)


# -- the bodies -----------------------------------------------------------------------------------
class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


Seat = Annotated[int, Field(ge=0, le=MAX_SEAT)]
# A seat as a JSON object's key ("3"), and a bot seat's kind (werewolf.web.seats): heuristic, random, llm or
# llm:MODEL, a model id of letters, digits and . _ - / : (the server says which models it offers).
SeatKey = Annotated[str, StringConstraints(pattern=r"^[1-9][0-9]?$")]
BotKind = Annotated[str, StringConstraints(
    max_length=84, pattern=r"^(heuristic|random|llm(:[A-Za-z0-9][A-Za-z0-9._/:\-]{0,79})?)$")]
RoleId = Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"^[a-z][a-z0-9_]*$")]


def speech_seconds(v: float) -> float:
    if 0 < v < MIN_SPEECH:
        raise ValueError(f"a speech of under {MIN_SPEECH:g} seconds leaves no time to speak; 0 means no limit")
    return v


SpeechTime = Annotated[float, Field(ge=0, le=MAX_SPEECH), AfterValidator(speech_seconds)]


class CreateRoom(Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"ruleset": "classic", "deck": "classic12", "options": {}, "bots": [2, 3, 4], "mode": "online",
         "lang": "en"}]})

    ruleset: Ident = Field("classic", description="classic, facetoface, wechat, onuw or onenight")
    deck: Ident | Annotated[list[RoleId], Field(min_length=1, max_length=MAX_SEAT)] | None = Field(
        None, description="a deck id (GET /api/decks) or a list of role ids; null: the ruleset's standard deck "
                          "for `players`")
    options: Options = Field(default_factory=dict)
    bots: list[Seat] = Field(default_factory=list, max_length=MAX_SEAT, description="seat numbers that bots play")
    bot_kind: Literal["heuristic", "random", "llm"] = Field(
        "heuristic", description="how the bots play: heuristic bots use what they know and talk; random ones "
                                 "pick any legal answer; llm: a language model each, when the server names one "
                                 "(WEREWOLF_LLM_MODEL, with OPENAI_BASE_URL and OPENAI_API_KEY)")
    bot_kinds: Annotated[dict[SeatKey, BotKind], Field(max_length=MAX_SEAT)] = Field(
        default_factory=dict, description="a kind per bot seat, over bot_kind: {\"3\": \"llm:MODEL\", \"4\": "
                                          "\"random\"}; each seat must be in bots; heuristic, random, llm (the "
                                          "server's model) or llm:MODEL (a model the server offers)")
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = Field(
        None, description="seed of the deal and the rules' chance; null: drawn from the server's secret "
                          "randomness and never shown before the end. A seed given here marks the room "
                          "\"fixed deal\" everywhere")
    mode: Literal["online", "face_to_face"] = "online"
    lang: Annotated[str, StringConstraints(max_length=16, pattern=LANG_TAG)] = Field(
        "en", description="en, zh-Hant or zh-Hans (the moderator's voice in face-to-face play; others: en)")
    players: Annotated[int, Field(ge=1, le=MAX_SEAT)] | None = Field(
        None, description="seats of the standard deck, when no deck is given")
    live_speech: bool = Field(True, description="speaking turns wait for their speaker (an act `speak` with "
                                                "the text, or none for \"done\")")
    timeout: Annotated[float, Field(ge=0, le=MAX_TIMEOUT)] | None = Field(
        None, description="seconds a person has for a decision before its default is taken; 0 waits for ever; "
                          "null: the server's --timeout")
    speech_time: SpeechTime | None = Field(
        None, description=f"seconds a speech lasts before the server ends it (a warning 15 s before: the views' "
                          f"speaker_deadline and speech_warning); 0: no limit but `timeout`; {MIN_SPEECH:g} to "
                          f"{MAX_SPEECH:g}; null: the ruleset's default (120 s; none in the one-night games)")
    pace: Annotated[list[Annotated[float, Field(ge=0, le=120)]], Field(min_length=2, max_length=2)] | None = Field(
        None, description="[shortest, longest] seconds a night step lasts, whoever holds it (a step of a dead or "
                          "absent role too); each step's length is drawn in this range (0 to 120), and where a "
                          "person may take longer, as long as this room's people take, up to 45 s, when a person "
                          "is declined; null: the server's --pace. A shortest step under 2 s marks the room "
                          "\"instant nights\" everywhere (its info's instant_nights): its timing shows which roles "
                          "are dead")


    @model_validator(mode="after")
    def _speech_applies(self) -> CreateRoom:
        if self.speech_time and self.ruleset in NO_TURNS:
            raise ValueError(f"speech_time: the {self.ruleset} game has no speaking turns (its discussion has its "
                             "own clock, the option discussion_seconds): leave speech_time out")
        return self

    @field_validator("bot_kinds")
    @classmethod
    def _kinds_of_bots(cls, kinds: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        bots = info.data.get("bots")
        if bots is not None:  # (else bots was refused: that error is the one to read)
            for key in kinds:
                if int(key) not in bots:
                    shown = ", ".join(map(str, sorted(set(bots)))) or "none"
                    raise ValueError(f"seat {key} is not a bot seat (bots: {shown}); name it in bots too")
        return kinds

    def seat_kinds(self) -> dict[int, str]:
        """``bot_kinds`` by seat number."""
        return {int(k): v for k, v in self.bot_kinds.items()}


class Join(Strict):
    name: Annotated[str, StringConstraints(max_length=4 * MAX_NAME), AfterValidator(clean_name)] = Field(
        ..., description=f"trimmed; printable characters only; at most {MAX_NAME}; unique in the room "
                         "(case-insensitive)")
    seat: Seat | None = Field(None, description="a seat to take; null: the first free seat")


class Start(Strict):
    fill_with_bots: bool = Field(False, description="bots take the seats nobody took")


class Pick(Strict):
    """A wolf's pick at the pack's knife (``werewolf.web.pack``), seen at once by the pack only."""

    target: Seat | None = Field(..., description="the seat the wolf names tonight; null: nobody")
    confirm: bool = Field(False, description="final, unless changed again: once every person of the pack has "
                                             "confirmed, the picks are the pack's answers")


def _chat_line(text: str) -> str:
    from werewolf.web.pack import CHAT_MAX

    return printable(text, "line", CHAT_MAX)


class PackChat(Strict):
    text: Annotated[str, StringConstraints(max_length=4 * MAX_TEXT), AfterValidator(_chat_line)] = Field(
        ..., description="a line to the pack (online rooms, at the knife): trimmed, printable, at most 300 "
                         "characters")


class SeatMove(Strict):
    seat: Seat | None = Field(None, description="the seat to move (the host: anyone's); null: the caller's own")
    to: Seat = Field(..., description="the seat to move to (a player: a free one; the host: any, swapping)")


class Remove(Strict):
    seat: Seat = Field(..., description="the seat to free: its bot leaves, or its player, whose token stops working")


class PlayAgain(Strict):
    start: bool = Field(True, description="start the next game at once; false: leave it in its lobby first")


# -- error messages -------------------------------------------------------------------------------
def error_text(errors: list[Any]) -> str:
    """``field: rule (got …)`` for each error pydantic found (a union's alternatives: the first)."""
    parts: list[str] = []
    seen: set[str] = set()
    for e in errors:
        loc = [str(x) for x in e.get("loc", ()) if x != "body"]
        # A union's errors name the alternative tried (``int``, ``list[...]``): keep the field's path.
        path = ".".join(x for x in loc if not _is_alternative(x))
        if path in seen:
            continue
        seen.add(path)
        msg = str(e.get("msg", "invalid"))
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        got = e.get("input", None)
        shown = "" if e.get("type") in ("missing", "json_invalid") or "(got " in msg else f" (got {quoted(got)})"
        parts.append(f"{path}: {msg}{shown}" if path else f"{msg}{shown}")
        if len(parts) == 3:
            break
    return "; ".join(parts)


def _is_alternative(part: str) -> bool:
    return (part.startswith(("constrained-", "function-", "list[", "dict[", "tagged-union[", "literal["))
            or part in ("int", "str", "float", "bool", "none", "list", "dict"))
