"""The HTTP protocol the server runs: uvicorn's h11 protocol with a deadline for a request's head
(`uvicorn app.main:app --http app.serving:HeaderTimeoutProtocol`; `make run`, `tokvis serve` and
the Dockerfile serve through it).

uvicorn closes an idle kept-alive connection (`--timeout-keep-alive`), but it has no timeout for
reading a request: a connection that has sent part of a request line or of its headers stays
open for good. 300 sockets that each send a byte now and then hold 300 connections, and past
`--limit-concurrency` every new one gets 503 (slowloris). Here a connection whose request head
(the request line and headers) is not complete within TOKVIS_HEADER_TIMEOUT seconds (default
10) is closed: with a 408 and a line saying why when it sent part of a head, silently when it
sent nothing (a browser's preconnect, which it retries). The clock starts when the connection
opens, and on a kept-alive connection again when the first bytes of the next request arrive
(until then uvicorn's keep-alive timeout applies, 5 s as the Makefile and `tokvis serve` set it).

This is nginx's `client_header_timeout` and Go's `http.Server.ReadHeaderTimeout`; a deployment
behind such a proxy has it twice. What it does not time: a request body sent slowly once its
head is complete (the route reading it waits; nginx's `client_body_timeout` is the bound there).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import header_timeout_from_env

# Read once, when uvicorn imports the protocol: a bad value stops the server's start, with the
# ValueError naming the variable, rather than failing every connection.
HEADER_TIMEOUT = header_timeout_from_env()


def request_timeout(seconds: float) -> bytes:
    """The 408 sent to a connection whose request head came too slowly (then it is closed).

    >>> request_timeout(10).split(b"\\r\\n")[0]
    b'HTTP/1.1 408 Request Timeout'
    """
    body = (
        f"the request's line and headers did not arrive within {seconds:g} seconds "
        "(TOKVIS_HEADER_TIMEOUT)\n"
    ).encode()
    return (
        b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol; a connection whose request head is late is closed.

    The head clock (`head_deadline`) runs while the connection waits for a request head that
    has not all come: from `connection_made` for the first request, from the first bytes of a
    later one. After every read (`handle_events`) the state h11 reached says which: once h11
    has the whole head (their state leaves IDLE) the clock stops, and the request runs as
    uvicorn runs it.
    """

    header_timeout: float = HEADER_TIMEOUT

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_head_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_clock()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        self._watch_head()

    def _watch_head(self) -> None:
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            self._stop_head_clock()  # the head is here (or the connection is done)
        elif self.conn.trailing_data[0]:
            self._start_head_clock()  # part of the next head (no-op if it runs already)
        # else: idle between requests, which the keep-alive timeout bounds

    def _start_head_clock(self) -> None:
        if self.head_deadline is None:
            self.head_deadline = self.loop.call_later(self.header_timeout, self._head_too_late)

    def _stop_head_clock(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _head_too_late(self) -> None:
        self.head_deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.trailing_data[0]:  # part of a head came: say why it is closed
            self.transport.write(request_timeout(self.header_timeout))
        try:
            self.conn.send(h11.ConnectionClosed())
        except h11.LocalProtocolError:
            pass
        self.transport.close()
