"""A fake chat-completions server on loopback, for tests and examples: no network, no model.

``with FakeLLM() as server: LLMAgent("fake", base_url=server.base_url)`` serves
``POST /v1/chat/completions`` from a thread of this process. Each reply is the next
of ``replies`` (a string, or a function of the request's JSON returning one); once
they run out, the server plays by itself: for a move it picks one of the legal ids
of the request's JSON schema (with its own seeded random stream), for a speech it
says ``speech`` (silence by default). ``requests`` keeps every request's JSON.

It misbehaves on demand, as real providers do: ``faults`` is a list of what the next
requests meet, one each, before any reply is used up: ``"429"`` (rate limited, with
``Retry-After: 0``), ``"429:0.05"`` (with ``Retry-After: 0.05``), ``"500"``, ``"503"`` or
``"slow:2"`` (the reply comes 2 s late: past a short client timeout). ``think=True`` makes its
own replies a reasoning model's: a ``<think>`` draft naming another legal id in JSON, then the
answer; ``reasoning`` puts a ``reasoning_content`` field in every message.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | Callable[[dict[str, Any]], str]


def schema_of(request: dict[str, Any]) -> dict[str, Any]:
    fmt = request.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("schema") or {}


class FakeLLM:
    """A scripted OpenAI-compatible server: ``base_url``, ``requests``, ``close()`` (or use ``with``)."""

    def __init__(self, replies: Iterable[Reply] = (), *, seed: int = 0, speech: str = "",
                 structured: bool = True, faults: Iterable[str] = (), think: bool = False,
                 reasoning: str | None = None, stateless: bool = False) -> None:
        self.replies: list[Reply] = list(replies)
        self.faults: list[str] = list(faults)
        self.faulted: list[str] = []  # the faults served, in order
        self.keys: set[str] = set()  # the API keys requests came with (their Authorization headers)
        self.think = think
        self.reasoning = reasoning
        self._closing = threading.Event()
        # stateless: its own picks are a function of the request alone (not of the order requests come
        # in), so games are the same whichever process plays them when: for resumed and parallel runs
        self.stateless = stateless
        self.requests: list[dict[str, Any]] = []
        self.rng = random.Random(seed)
        self.speech = speech
        self.structured = structured  # False: answer 400 to a response_format, as servers without schemas do
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        # a client that hangs up (its timeout, a killed run) is no error of the server's: no traceback
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def reply(self, request: dict[str, Any]) -> str:
        with self._lock:
            self.requests.append(request)
            if self.replies:
                r = self.replies.pop(0)
                return r(request) if callable(r) else r
            props = schema_of(request).get("properties") or {}
            rng = self.rng
            if self.stateless:
                digest = hashlib.sha256(json.dumps(request.get("messages"), sort_keys=True).encode()).digest()
                rng = random.Random(digest)
            if "option" in props:
                ids = props["option"].get("enum") or []
                if not ids:
                    return "{}"
                pick = rng.choice(ids)
                out: dict[str, Any] = {"option": pick}
                if "beliefs" in props:  # a guess for every seat asked about
                    seats = props["beliefs"].get("required") or []
                    out["beliefs"] = {s: rng.choice(("werewolf", "villager", "seer", "unknown")) for s in seats}
                answer = json.dumps(out)
                if self.think:
                    draft = next((i for i in ids if i != pick), pick)
                    return (f'<think>At first: {{"option": "{draft}"}}. On second thought, no: {pick} is '
                            f"better.</think>\n{answer}")
                return answer
            if "speech" in props:
                return json.dumps({"speech": self.speech})
            return self.speech  # no schema: plain text

    def fault(self) -> str | None:
        with self._lock:
            if not self.faults:
                return None
            f = self.faults.pop(0)
            self.faulted.append(f)
            return f

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: the client reuses its connection
            disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                fake.keys.add(str(self.headers.get("Authorization", "")).removeprefix("Bearer "))
                size = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(size) or b"{}")
                if not fake.structured and "response_format" in request:
                    self._send(400, {"error": {"message": "response_format is not supported",
                                               "type": "invalid_request_error"}})
                    return
                fault = fake.fault()
                if fault is not None:
                    code, _, arg = fault.partition(":")
                    if code == "slow":
                        if fake._closing.wait(float(arg or 1)):
                            return
                    else:
                        headers = {"Retry-After": arg or "0"} if code == "429" else {}
                        self._send(int(code), {"error": {"message": f"fake fault {fault}", "type": "fault"}},
                                   headers)
                        return
                content = fake.reply(request)
                message: dict[str, Any] = {"role": "assistant", "content": content}
                if fake.reasoning is not None:
                    message["reasoning_content"] = fake.reasoning
                prompt = sum(len(str(m.get("content", ""))) for m in request.get("messages", [])) // 4
                completion = len(content) // 4
                self._send(200, {
                    "id": f"fake-{len(fake.requests)}", "object": "chat.completion", "created": 0,
                    "model": request.get("model", "fake"),
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion}})

            def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (its timeout) before the reply

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet

        return Handler

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str] | None = None) -> None:
    """``python -m werewolf.agents.fakellm``: serve on loopback until interrupted, printing the base URL."""
    import argparse

    ap = argparse.ArgumentParser(description="A fake OpenAI-compatible chat-completions server (loopback).")
    ap.add_argument("--speech", default="", help="What it says when asked to speak.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fault", action="append", default=[], help="A fault for the next request (429, 429:0.5, "
                    "500, slow:3); repeatable, in order.")
    ap.add_argument("--think", action="store_true", help="Reply as a reasoning model (a <think> draft first).")
    ap.add_argument("--stateless", action="store_true", help="Its picks a function of each request alone.")
    args = ap.parse_args(argv)
    server = FakeLLM(seed=args.seed, speech=args.speech, faults=args.fault, think=args.think,
                     stateless=args.stateless)
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.close()


if __name__ == "__main__":
    main()
