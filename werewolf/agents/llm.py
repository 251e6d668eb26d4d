"""LLM seats: an ``Agent`` that plays any seat through an OpenAI-compatible chat-completions API.

``LLMAgent("gpt-4o-mini")`` talks to ``OPENAI_BASE_URL`` (default: OpenAI's) with
``OPENAI_API_KEY`` through the ``openai`` package (``pip install 'werewolf[llm]'``);
any server that implements ``/v1/chat/completions`` works (vLLM, llama.cpp's server,
Ollama's ``/v1``, LM Studio, a proxy...).

Each call sends the seat's whole view as text in the agent's language
(``werewolf.agents.prompt``): the ruleset's rules in brief and the seat's role as
the system message; the seat's log, the question and the legal moves by stable id
as the user message. The reply is asked for as structured output (a JSON schema
through ``response_format``: ``{"option": id}`` with the legal ids as an enum, or
``{"speech": text}``); a server that refuses schemas is asked again without, and
the reply is read from its text (a JSON object anywhere in it, else the one legal
id it names). An illegal or unreadable reply is asked again once, with the reason
(the engine's, for a move it refuses); after that the decision gets its default.
A speech is the text the model said: the ``Host`` parses it into statements the
bots weigh.

Every call goes to the ``Transcript`` (JSON Lines), when one is given: the game,
the seat, its role, the phase, the messages sent, the reply, the move read, the
outcome, the tokens and the latency.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from functools import lru_cache
from typing import IO, Any

from werewolf.agents import Agent, Said
from werewolf.agents.prompt import Prompter
from werewolf.core.decisions import Move, Speak
from werewolf.core.errors import WerewolfError
from werewolf.core.views import SeatView
from werewolf.i18n import normalize_lang, t


class LLMError(WerewolfError):
    """The chat-completions server could not be reached or refused the request (not a bad reply)."""


class LLMUnavailable(LLMError):
    """The server stayed unavailable (rate limits, 5xx, timeouts, connection errors) through every retry."""


class Transcript:
    """Every call of the LLM seats of a game, one JSON object a line, in ``path`` (appended to).

    ``game`` (any JSON value: a game number, a seed) goes into every record. Shared by the
    seats of one game; safe to write from several threads.
    """

    def __init__(self, path: str | os.PathLike[str] | IO[str], game: Any = None) -> None:
        self.game = game
        self._own = not hasattr(path, "write")
        self._path = path
        self._file: IO[str] | None = None if self._own else path  # type: ignore[assignment]
        self._lock = threading.Lock()
        self.records = 0

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps({"game": self.game, **record}, ensure_ascii=False)
        with self._lock:
            if self._file is None:
                self._file = open(self._path, "a", encoding="utf-8")  # type: ignore[arg-type]  # noqa: SIM115
            self._file.write(line + "\n")
            self._file.flush()
            self.records += 1

    def close(self) -> None:
        with self._lock:
            if self._own and self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _client(base_url: str | None, api_key: str | None, timeout: float) -> Any:
    # A local server needs no key, but the client insists on one.
    # Keyed by the process too: a worker forked from a process that made calls must not share its
    # connections (two processes on one socket read each other's replies).
    return _shared_client(base_url or os.environ.get("OPENAI_BASE_URL") or None,
                          api_key or os.environ.get("OPENAI_API_KEY") or "none", timeout, os.getpid())


@lru_cache(maxsize=16)
def _shared_client(base_url: str | None, api_key: str, timeout: float, pid: int) -> Any:
    """One client (and its connection pool) per server in a process, for every seat of every game."""
    try:
        import openai
    except ImportError:
        raise LLMError("LLM seats need the openai package: pip install 'werewolf[llm]'") from None
    # No retries in the client: ``LLMAgent.call`` retries itself, with its own backoff and count.
    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)


def retry_after(err: Any) -> float | None:
    """The seconds a refusal asks to wait (``retry-after-ms``, ``Retry-After`` in seconds or as a date)."""
    response = getattr(err, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    try:
        if ms is not None:
            return max(0.0, float(ms) / 1000)
    except ValueError:
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


class Usage:
    """What one agent's calls cost: calls, tokens, retries, fallbacks, time, and money when priced."""

    FIELDS = ("calls", "prompt_tokens", "completion_tokens", "retries", "failed_calls", "fallbacks")

    def __init__(self) -> None:
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.retries = 0  # calls sent again after a transient failure
        self.failed_calls = 0  # calls that failed through every retry
        self.fallbacks = 0  # decisions answered by the fallback (the default) for want of a reply
        self.latency_s = 0.0

    def as_json(self, price_in: float | None = None, price_out: float | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {f: getattr(self, f) for f in self.FIELDS}
        out["total_tokens"] = self.prompt_tokens + self.completion_tokens
        out["latency_s"] = round(self.latency_s, 4)
        out["cost"] = (None if price_in is None and price_out is None else
                       round((self.prompt_tokens * (price_in or 0) + self.completion_tokens * (price_out or 0))
                             / 1e6, 6))
        return out


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """``usage`` added into ``total`` (both ``Usage.as_json`` dicts; a cost known in either is kept)."""
    for k, v in usage.items():
        if k == "cost":
            total[k] = None if v is None and total.get(k) is None else round((total.get(k) or 0) + (v or 0), 6)
        elif isinstance(v, (int, float)):
            total[k] = round(total.get(k, 0) + v, 4) if isinstance(v, float) else total.get(k, 0) + v
    return total


_DECODER = json.JSONDecoder()

# A reasoning model's draft: its thinking comes first, between tags, and may hold JSON of its own
# (a move it then changes its mind about). An unclosed tag is a draft cut short: all of it is thinking.
_THINK = re.compile(r"<(think|thinking|reasoning|reflection)>(.*?)(?:</\1>|\Z)", re.S | re.I)


def split_reasoning(text: str) -> tuple[str, str]:
    """(the answer, the reasoning): the text outside ``<think>``-like tags, and the text inside them."""
    parts: list[str] = []

    def keep(m: re.Match[str]) -> str:
        parts.append(m.group(2).strip())
        return " "

    answer = _THINK.sub(keep, text)
    return answer.strip(), "\n\n".join(p for p in parts if p)


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object of ``text`` read from left to right (an object inside another is not counted twice)."""
    out: list[dict[str, Any]] = []
    start = text.find("{")
    while start != -1:
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            obj, end = None, start + 1
        if isinstance(obj, dict):
            out.append(obj)
        else:
            end = start + 1
        start = text.find("{", end)
    return out


def json_object(text: str, key: str | None = None) -> dict[str, Any] | None:
    """The answer's JSON object in ``text``: the last one holding ``key`` (any, when None), outside the
    reasoning if there is one there: a model drafts, then answers; its last word is its answer."""
    answer, _ = split_reasoning(text)
    for part in (answer, text):  # a reply that is all thinking: its last object, rather than nothing
        objs = json_objects(part)
        if key is not None:
            objs = [o for o in objs if key in o] or objs
        if objs:
            return objs[-1]
    return None


def _named_ids(text: str, ids: list[str]) -> list[str]:
    """The legal ids ``text`` names as whole tokens (``vote:4`` is not in ``vote:41``)."""
    found = []
    for oid in ids:
        if re.search(r"(?<![\w:,])" + re.escape(oid) + r"(?![\w:,])", text):
            found.append(oid)
    return found


class LLMAgent(Agent):
    """Plays seats through a chat-completions model. One agent per seat is usual (each its own calls),
    but one may play several: every call carries only the asking seat's view.

    ``model``: the model's name on the server; ``base_url``/``api_key``: else ``OPENAI_BASE_URL`` and
    ``OPENAI_API_KEY``; ``lang``: the language of the prompts and of its speech; ``transcript``: where
    every call is recorded; ``temperature``/``seed``/``max_tokens``: passed on when given; ``structured``:
    ask for a JSON schema (turned off by itself when the server refuses it); ``client``: an
    ``openai.OpenAI`` (or anything with its ``chat.completions.create``) instead of one made here;
    ``discussion_rounds``: the most rounds of a live one-night discussion it talks in; ``structured_only``:
    it reads the table's talk as statements only, never the words said; ``beliefs``: see below.

    A flaky server: ``timeout`` bounds each call (seconds); a rate limit (429), a server error (5xx),
    a timeout or a lost connection is retried ``retries`` times, waiting ``backoff`` × 2^k seconds
    (with jitter, at most ``max_wait``) or as long as the server's ``Retry-After`` asks, whichever is
    longer. A decision whose call still fails gets its fallback, the decision's default (a speech:
    silence), recorded as ``fallback`` in the transcript and counted in ``usage``; the game goes on.
    A refusal that retrying cannot mend (a bad key, an unknown model) raises ``LLMError``.
    ``price_in``/``price_out``: the price per million prompt/completion tokens, for ``usage``'s cost.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None, lang: str = "en",
                 transcript: Transcript | None = None, temperature: float | None = None, seed: int | None = None,
                 structured: bool = True, timeout: float = 120.0, client: Any = None,
                 discussion_rounds: int = 3, max_tokens: int | None = None, retries: int = 4,
                 backoff: float = 1.0, max_wait: float = 60.0, price_in: float | None = None,
                 price_out: float | None = None, beliefs: bool = False, structured_only: bool = False) -> None:
        self.model = model
        self.lang = normalize_lang(lang)
        self.transcript = transcript
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.structured = structured
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = max(0.0, backoff)
        self.max_wait = max_wait
        self.price_in = price_in
        self.price_out = price_out
        self.client = client if client is not None else _client(base_url, api_key, timeout)
        self.prompter = Prompter(self.lang, structured_only)
        self.calls = 0
        self.tokens = 0
        self.stats = Usage()
        # ``beliefs``: each move comes with the model's belief of every seat's role, kept by seat for the
        # datasets (``werewolf.sim.dataset``): the latest a seat stated is ``belief[seat]``.
        self.beliefs = beliefs
        self.belief: dict[int, dict[int, str]] = {}
        self._jitter = random.Random()
        # A live one-night discussion goes on while anyone talks: a model that always has something to
        # say is ready to vote after this many rounds.
        self.discussion_rounds = discussion_rounds
        self.rounds: dict[int, int] = {}

    # -- the agent ----------------------------------------------------------------------------
    def act(self, view: SeatView) -> Move | None:
        d = view.decision
        if d is None:
            return None
        options = view.options()
        if not options:
            return None
        if len(options) == 1:  # nothing to choose: no call
            return next(iter(options.values()))
        ids = list(options)
        schema: dict[str, Any] = {"type": "object", "properties": {"option": {"type": "string", "enum": ids}},
                                  "required": ["option"], "additionalProperties": False}
        messages = self.prompter.act_messages(view)
        if self.beliefs and view.players:
            seats = [str(s) for s in range(1, view.players + 1)]
            schema["properties"]["beliefs"] = {"type": "object", "properties": {s: {"type": "string"} for s in seats},
                                               "required": seats, "additionalProperties": False}
            schema["required"] = ["option", "beliefs"]
            messages = [*messages[:-1], {"role": "user", "content": messages[-1]["content"] + "\n\n"
                                         + self.t("llm.answer_beliefs")}]
        for attempt in (1, 2):
            try:
                reply, meta = self.call(messages, "move", schema)
            except LLMUnavailable as e:
                self.stats.fallbacks += 1
                self.record(view, "act", attempt, messages, "", {}, option=None, outcome="fallback", reason=str(e))
                return None  # the decision's default: the game goes on without this reply
            move, oid, reason = self.read_move(view, reply)
            outcome = "ok" if move is not None else ("unreadable" if reason == self.t("llm.unreadable")
                                                      else "illegal")
            if move is None and attempt == 2:
                outcome += ", default"
            belief = self.read_beliefs(reply, view.players) if self.beliefs else None
            if belief:
                self.belief[view.seat] = belief
                meta = {**meta, "beliefs": {str(k): v for k, v in belief.items()}}
            self.record(view, "act", attempt, messages, reply, meta, option=oid, outcome=outcome, reason=reason)
            if move is not None:
                return move
            messages = [*messages, {"role": "assistant", "content": reply},
                        {"role": "user", "content": self.t("llm.retry", reason=reason)}]
        return None  # the decision's default

    def speak(self, view: SeatView) -> Said:
        if view.live_speech and view.part == "discussion":
            done = self.rounds[view.seat] = self.rounds.get(view.seat, 0) + 1
            if done > self.discussion_rounds:
                return None  # ready to vote
        schema = {"type": "object", "properties": {"speech": {"type": "string"}}, "required": ["speech"],
                  "additionalProperties": False}
        messages = self.prompter.speak_messages(view)
        try:
            reply, meta = self.call(messages, "speech", schema)
        except LLMUnavailable as e:
            self.stats.fallbacks += 1
            self.record(view, "speak", 1, messages, "", {}, speech="", outcome="fallback", reason=str(e))
            return None
        obj = json_object(reply, "speech")
        speech = obj.get("speech") if obj is not None else split_reasoning(reply)[0]
        text = speech.strip()[:Speak.MAX] if isinstance(speech, str) else ""
        self.record(view, "speak", 1, messages, reply, meta, speech=text, outcome="ok" if text else "silent")
        return text or None

    # -- reading a reply ----------------------------------------------------------------------
    def read_move(self, view: SeatView, reply: str) -> tuple[Move | None, str | None, str | None]:
        """(the move, its id, why it was not accepted) read from ``reply``."""
        options = view.options()
        obj = json_object(reply, "option")
        if obj is not None:
            oid = obj.get("option", obj.get("id"))
            if isinstance(oid, str):
                oid = oid.strip()
                if oid in options:
                    return options[oid], oid, None
                return None, oid, self.t("llm.unknown_option", option=oid, legal=", ".join(options))
            if "act" in obj:  # a move written out: the engine says whether it is legal, and why not
                d = view.decision
                assert d is not None
                move = {k: v for k, v in obj.items() if k != "seat"}
                reason = d.check(move)
                if reason is None:
                    from werewolf.core.views import option_id

                    return move, option_id(move), None
                return None, None, reason
        named = _named_ids(split_reasoning(reply)[0], list(options))
        if len(named) == 1:
            return options[named[0]], named[0], None
        return None, None, self.t("llm.unreadable")

    def read_beliefs(self, reply: str, players: int) -> dict[int, str]:
        """The role the reply says each seat has (role ids, as read by the speech parser's names), if any."""
        obj = json_object(reply, "option")
        raw = obj.get("beliefs") if obj is not None else None
        if not isinstance(raw, dict):
            return {}
        from werewolf.agents.parse import role_id

        out: dict[int, str] = {}
        for k, v in raw.items():
            if str(k).isdigit() and 1 <= int(k) <= players and isinstance(v, str):
                out[int(k)] = role_id(v) or "unknown"
        return out

    def t(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    # -- the server ---------------------------------------------------------------------------
    def usage(self) -> dict[str, Any]:
        """Calls, tokens, retries, fallbacks, latency and cost (None when unpriced) so far."""
        return self.stats.as_json(self.price_in, self.price_out)

    def wait(self, attempt: int, asked: float | None) -> float:
        """Seconds before retry ``attempt`` (0-based): exponential with jitter, or what the server asked."""
        backoff = self.backoff * (2 ** attempt) * (0.5 + self._jitter.random() / 2)
        return min(self.max_wait, max(backoff, asked or 0.0))

    def call(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The model's reply to ``messages`` (its text) and the call's tokens and latency."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": self.timeout}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.seed is not None:
            kwargs["seed"] = self.seed
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if self.structured:
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": name, "schema": schema, "strict": True}}
        import openai

        transient = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                     openai.APIConnectionError)
        retried: list[str] = []
        start = time.perf_counter()
        for attempt in range(self.retries + 1):
            start = time.perf_counter()
            try:
                response = self.client.chat.completions.create(**kwargs)
                break
            except openai.BadRequestError as e:
                if not self.structured:
                    raise LLMError(f"the model server refused the request: {e}") from None
                self.structured = False  # a server without JSON schemas: read the answer from the text
                return self.call(messages, name, schema)
            except transient as e:
                if (isinstance(e, openai.APIConnectionError) and not isinstance(e, openai.APITimeoutError)
                        and self.stats.calls == 0):
                    # never reached at all: a wrong address more likely than a blip; say so at once
                    raise LLMError(f"the model server failed ({type(e).__name__}: {e}); check OPENAI_BASE_URL, "
                                   f"OPENAI_API_KEY and the model name {self.model!r}") from None
                status = getattr(e, "status_code", None)
                what = f"{type(e).__name__}" + (f" {status}" if status else "")
                retried.append(what)
                if attempt == self.retries:
                    self.stats.failed_calls += 1
                    raise LLMUnavailable(f"the model server failed {len(retried)} times ({', '.join(retried)}) "
                                         f"for {self.model!r}") from None
                self.stats.retries += 1
                time.sleep(self.wait(attempt, retry_after(e)))  # a backoff, not a wait for a condition
            except openai.OpenAIError as e:
                raise LLMError(f"the model server failed ({type(e).__name__}: {e}); check OPENAI_BASE_URL, "
                               f"OPENAI_API_KEY and the model name {self.model!r}") from None
        latency = time.perf_counter() - start
        self.calls += 1
        choice = response.choices[0] if response.choices else None
        content = (choice.message.content if choice is not None else None) or ""
        # The reasoning, kept apart from the answer: a server's own field (DeepSeek's and vLLM's
        # ``reasoning_content``, OpenRouter's ``reasoning``), and any <think> draft in the text.
        message = choice.message if choice is not None else None
        extra = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
        drafted = split_reasoning(content)[1]
        reasoning = "\n\n".join(r for r in (extra if isinstance(extra, str) else "", drafted) if r)
        usage = getattr(response, "usage", None)
        tokens = {"prompt": getattr(usage, "prompt_tokens", None),
                  "completion": getattr(usage, "completion_tokens", None),
                  "total": getattr(usage, "total_tokens", None)}
        self.tokens += tokens["total"] or 0
        st = self.stats
        st.calls += 1
        st.prompt_tokens += tokens["prompt"] or 0
        st.completion_tokens += tokens["completion"] or 0
        st.latency_s += latency
        meta: dict[str, Any] = {"tokens": tokens, "latency_s": round(latency, 4), "structured": self.structured}
        if retried:
            meta["retried"] = retried
        if reasoning:
            meta["reasoning"] = reasoning
        return content, meta

    def record(self, view: SeatView, call: str, attempt: int, messages: list[dict[str, str]], reply: str,
               meta: dict[str, Any], **fields: Any) -> None:
        if self.transcript is None:
            return
        self.transcript.write({"seat": view.seat, "role": view.role, "phase": view.phase, "call": call,
                               "attempt": attempt, "model": self.model, "messages": messages, "reply": reply,
                               **fields, **meta})
