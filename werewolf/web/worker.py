"""One worker process of ``werewolf serve --workers N`` (``werewolf.web.routing``): the whole app, served
on the connections its parent hands it over a Unix socket, as if it had accepted them itself."""

from __future__ import annotations

import asyncio
import json
import os
import socket

import uvicorn

from werewolf.web.homes import PLACE_ENV, Place
from werewolf.web.routing import CHANNEL_ENV, SETTINGS_ENV


class HandedServer(uvicorn.Server):
    """uvicorn's server with no listening socket of its own: each connection comes over ``channel``."""

    def __init__(self, config: uvicorn.Config, channel: socket.socket) -> None:
        super().__init__(config)
        self.channel = channel

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])
        loop = asyncio.get_running_loop()
        loop.add_reader(self.channel.fileno(), self._take, loop)

    def _protocol(self) -> asyncio.Protocol:
        # As uvicorn's own listener makes one for each connection it accepts.
        return self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state)

    def _take(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            try:
                msg, fds, _, _ = socket.recv_fds(self.channel, 16, 64)
            except BlockingIOError:
                return
            except OSError:
                msg, fds = b"", []
            if not msg and not fds:  # the parent is gone: finish what is open, and stop
                loop.remove_reader(self.channel.fileno())
                self.should_exit = True
                return
            for fd in fds:
                sock = socket.socket(fileno=fd)
                sock.setblocking(False)
                loop.create_task(self._serve_one(loop, sock))

    async def _serve_one(self, loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
        if self.should_exit:
            sock.close()
            return
        try:
            await loop.connect_accepted_socket(self._protocol, sock)
        except OSError:
            sock.close()


def main() -> None:
    from werewolf.web import _app, uvicorn_settings
    from werewolf.web.runtime import serving

    place = Place.parse(os.environ[PLACE_ENV])
    channel = socket.socket(fileno=int(os.environ[CHANNEL_ENV]))
    channel.setblocking(False)
    settings = json.loads(os.environ[SETTINGS_ENV])
    level = settings.pop("log_level", "info")
    header_timeout = settings.pop("header_timeout", None)
    app = _app(settings, place=place)
    serving()  # each worker is a process of its own: its own collector and thread turns
    HandedServer(uvicorn.Config(app, **uvicorn_settings(level, header_timeout)), channel).run(sockets=[])


if __name__ == "__main__":
    main()
