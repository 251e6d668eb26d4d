"""The phones' pages under the app's security headers, in headless Chromium: nothing the CSP blocks, the
WebSocket's token in its subprotocol, and the host told when the join link is a loopback one."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_browser import phone, server  # noqa: F401  (server: a fixture)


def test_the_pages_run_under_the_csp_and_warn_of_a_loopback_link(browser: Any, server: Server) -> None:  # noqa: F811
    host = phone(browser)
    blocked: list[str] = []
    host.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    sockets: list[Any] = []
    host.on("websocket", lambda ws: sockets.append(ws))
    host.goto(server.url + "/")
    host.select_option("#ruleset", "classic")
    host.select_option("#deck", "classic9")
    host.click("#create")
    host.wait_for_selector("#share img.qr")
    warning = host.wait_for_selector("#link-warning")
    assert "--public-url" in warning.inner_text()
    room = host.url.rsplit("/", 1)[1]
    assert host.inner_text("#share .link-line a") == f"http://127.0.0.1:{server.port}/r/{room}"
    host.fill("#name", "Ann")
    host.click("#join")
    host.wait_for_selector("text=Ann")  # the lobby's seats came over the WebSocket
    assert sockets and all("token" not in ws.url for ws in sockets)
    assert not blocked, blocked
    host.context.close()
