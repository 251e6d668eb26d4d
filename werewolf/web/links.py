"""The address phones use to reach this server: the join links and their QR codes.

Never taken from a request (its ``Host`` header is the client's to choose): it is
``--public-url`` when given, else this machine's own address on its network (the
interface its default route leaves by), with the port the server listens on. When
the server listens on loopback only, or no network address is known, the link is a
loopback one and ``Link.reachable`` is false: the host's page says how to fix it.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

WILDCARD = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def detect_address() -> str | None:
    """This machine's address on its network (no packet is sent), or None when it has only loopback."""
    candidates: list[str] = []
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))  # a UDP "connect" only picks the route
                candidates.append(str(s.getsockname()[0]))
        except OSError:
            continue
    try:
        candidates += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    for host in candidates:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            continue
        if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local):
            return host
    return None


def check_public_url(value: str) -> str:
    """``--public-url`` as every join link will start: an http(s) address with a host, and nothing a link
    cannot be built on (credentials, a query, a fragment, a bad port). Raises ValueError saying what is wrong."""
    text = value.strip()
    if not text or any(c.isspace() or ord(c) < 0x21 for c in text):
        raise ValueError(f"{value!r} is not an address: no spaces or control characters")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{value!r} must start with http:// or https://")
    try:
        port = parts.port  # raises for a port that is not a number in 0..65535
    except ValueError as err:
        raise ValueError(f"{value!r} has a bad port ({err})") from None
    if not parts.hostname:
        raise ValueError(f"{value!r} names no host")
    if port == 0:
        raise ValueError(f"{value!r} has port 0, which no phone can reach")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{value!r} holds credentials, which every join link would then show")
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        raise ValueError(f"{value!r} has a query or a fragment: join links are built on its path")
    return text.rstrip("/")


@dataclass(frozen=True)
class Link:
    base: str  # scheme://host:port, no trailing slash
    reachable: bool  # False: a loopback address, which no phone can open


def server_link(public_url: str | None, listen_host: str, port: int,
                address: str | None) -> Link:
    """The base of every join link: ``public_url``, the listening address, or the detected ``address``."""
    if public_url:
        return Link(public_url.rstrip("/"), True)
    if listen_host not in WILDCARD and not is_loopback(listen_host):
        host: str | None = listen_host
    else:
        host = address if listen_host in WILDCARD else None
    if host is None:
        return Link(f"http://127.0.0.1:{port}", False)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return Link(f"http://{host}:{port}", True)
