"""``llm:`` agent kinds: which model, on which server, with which settings, for one seat.

    llm:MODEL                      OPENAI_BASE_URL / OPENAI_API_KEY, the defaults below
    llm:MODEL@http://host:8000/v1  another server (its key: OPENAI_API_KEY, or key_env=)
    llm:MODEL@NAME                 a named endpoint of the ``--endpoints`` TOML file
    llm:MODEL?temperature=0.2&seed=7&max_tokens=400&timeout=30&retries=3

Settings after ``?`` (``&``-separated; quote the kind in a shell): ``temperature``, ``seed``,
``max_tokens``, ``timeout`` (seconds a call may take), ``retries`` (of a call that failed for a
rate limit, a server error, a timeout), ``backoff`` (the first retry's wait, seconds, doubled each
time), ``max_wait``, ``price_in``/``price_out`` (per million tokens, for the cost in the reports),
``key_env`` (the environment variable holding the key), ``structured`` (0: do not ask for a JSON
schema) and ``beliefs`` (1: ask, with each move, for the model's belief of every seat's role).

An endpoints file names servers, so that several providers play in one run and no key is ever
written on a command line or in a report (keys come from the environment)::

    [endpoints.groq]
    base_url = "https://api.groq.com/openai/v1"
    key_env = "GROQ_API_KEY"
    price_in = 0.05          # optional: any setting above, the endpoint's default
    price_out = 0.08

    [endpoints.local]
    base_url = "http://127.0.0.1:8000/v1"
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from werewolf.core.errors import SetupError

PARAMS: dict[str, type] = {"temperature": float, "seed": int, "max_tokens": int, "timeout": float, "retries": int,
                           "backoff": float, "max_wait": float, "price_in": float, "price_out": float,
                           "key_env": str, "structured": bool, "beliefs": bool}

# Endpoints as they travel in a run's config: (name, ((key, value), ...)), picklable and hashable.
Endpoints = tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]


@dataclass(frozen=True)
class LLMSpec:
    model: str
    base_url: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def agent_kwargs(self) -> dict[str, Any]:
        """``LLMAgent``'s keyword arguments (the key read from the environment now)."""
        kw = {k: v for k, v in self.params.items() if k != "key_env"}
        key_env = self.params.get("key_env")
        if key_env:
            kw["api_key"] = os.environ.get(key_env)
        if self.base_url:
            kw["base_url"] = self.base_url
        return kw


def _value(kind: str, key: str, raw: Any) -> Any:
    if key not in PARAMS:
        raise SetupError(f"agent kind {kind!r}: unknown setting {key!r} (known: {', '.join(PARAMS)})")
    want = PARAMS[key]
    try:
        if want is bool:
            if isinstance(raw, bool):
                return raw
            if str(raw).lower() in ("1", "true", "yes", "on"):
                return True
            if str(raw).lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        value = want(raw)
    except (TypeError, ValueError):
        raise SetupError(f"agent kind {kind!r}: {key}={raw!r} is not a {want.__name__}") from None
    if key in ("timeout", "backoff", "max_wait", "price_in", "price_out", "max_tokens", "retries") and value < 0:
        raise SetupError(f"agent kind {kind!r}: {key} cannot be negative")
    if key in ("timeout", "max_tokens") and value == 0:
        raise SetupError(f"agent kind {kind!r}: {key} must be more than 0")
    return value


def parse_llm(kind: str, endpoints: Endpoints | Mapping[str, Mapping[str, Any]] = ()) -> LLMSpec:
    """The spec of an ``llm:`` kind (``SetupError`` naming what is wrong)."""
    body = kind.strip()
    if not body.startswith("llm:"):
        raise SetupError(f"{kind!r} is not an llm: kind")
    body = body[4:]
    body, _, query = body.partition("?")
    model, at, where = body.partition("@")
    model = model.strip()
    if not model:
        raise SetupError(f"agent kind {kind!r}: no model name (llm:MODEL)")
    named = dict(endpoints) if not isinstance(endpoints, Mapping) else endpoints
    params: dict[str, Any] = {}
    base_url = None
    if at:
        where = where.strip()
        if "://" in where:
            base_url = where
        elif where in named:
            ep = dict(named[where])
            base_url = ep.pop("base_url", None)
            params.update({k: _value(kind, k, v) for k, v in ep.items()})
        else:
            known = ", ".join(named) or "none: give --endpoints FILE.toml"
            raise SetupError(f"agent kind {kind!r}: no endpoint named {where!r} (known: {known}); or give a URL")
    for key, raw in parse_qsl(query, keep_blank_values=True, strict_parsing=False):
        params[key] = _value(kind, key, raw)
    key_env = params.get("key_env")
    if key_env and key_env not in os.environ:
        raise SetupError(f"agent kind {kind!r}: its key's variable {key_env} is not set")
    return LLMSpec(model, base_url, params)


def load_endpoints(path: str | None) -> Endpoints:
    """The ``[endpoints.NAME]`` tables of a TOML file, checked."""
    if not path:
        return ()
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise SetupError(f"cannot read {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SetupError(f"{path} is not valid TOML: {e}") from None
    tables = doc.get("endpoints")
    if not isinstance(tables, dict) or not tables:
        raise SetupError(f"{path}: no [endpoints.NAME] table")
    out: list[tuple[str, tuple[tuple[str, Any], ...]]] = []
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise SetupError(f"{path}: endpoints.{name} is not a table")
        if "api_key" in table:
            raise SetupError(f"{path}: endpoints.{name} holds a key; name its environment variable with key_env")
        url = table.get("base_url")
        if not isinstance(url, str) or "://" not in url:
            raise SetupError(f"{path}: endpoints.{name} needs base_url = \"http(s)://…\"")
        for k, v in table.items():
            if k != "base_url":
                _value(f"llm:…@{name}", k, v)
        out.append((name, tuple(sorted(table.items()))))
    return tuple(out)
