"""uvicorn's own answer to a request it cannot even parse (a control character in a header, a broken
request line) is a plain-text 400; these protocols send it as JSON, with the security headers, like
every other error of the app. ``serve`` runs uvicorn with ``http=protocol()``."""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from werewolf.web.headers import APP_CSP, COMMON


def _error(msg: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = json.dumps({"error": f"malformed request: {msg[:200]}"}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *COMMON, (b"content-security-policy", APP_CSP.encode())]
    return headers, body


class JsonErrorsH11(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        headers, body = _error(msg)
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()


def protocol() -> type:
    """The HTTP protocol class for uvicorn: httptools' when installed (uvicorn's own choice), else h11's."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return JsonErrorsH11

    class JsonErrorsHttpTools(HttpToolsProtocol):
        def send_400_response(self, msg: str) -> None:
            headers, body = _error(msg)
            head = b"HTTP/1.1 400 Bad Request\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
            self.transport.write(head + b"\r\n" + body)
            self.transport.close()

    return JsonErrorsHttpTools
