"""Another server on this computer learns nothing from the browser that opens the page.

Cookies ignore ports: a cookie set by the page on ``127.0.0.1:PORT`` is sent to every
other server on ``127.0.0.1`` and ``localhost`` — another local user's included. So a
real headless Chromium opens the compile page (the printed link, and an old-style
``?token=`` link), uses it, then visits a second real HTTP server on another loopback
port by both names, by navigation, by a cross-origin ``fetch`` with credentials and by
an image; that server records every byte of every request. Nothing it received may be
the token, and replaying whatever it received (each header, as a header and as a
Bearer token) against the page must open nothing.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import ClassVar

import httpx
import pytest

from tests.interop.test_web_browser import Served, browser_page, server  # noqa: F401

pytestmark = pytest.mark.slow


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, list[tuple[str, str]]]]] = []

    def do_GET(self) -> None:
        self.seen.append((self.requestline, list(self.headers.items())))
        body = b"<html><body>another server</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_listener() -> Iterator[tuple[int, list[tuple[str, list[tuple[str, str]]]]]]:
    seen: ClassVar[list[tuple[str, list[tuple[str, str]]]]] = []
    handler = type("Recorder", (_Recorder,), {"seen": seen})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.mark.parametrize("link", ["fragment", "old query"])
def test_another_local_server_learns_nothing_that_opens_the_page(
    server: Served,  # noqa: F811
    browser_page,  # noqa: F811
    other_listener,
    link: str,
) -> None:
    page = browser_page
    port, seen = other_listener
    start = server + "/" if link == "fragment" else f"{server.base}/?token={server.token}"
    page.goto(start)
    page.wait_for_selector("body[data-ready=true]")
    assert "notes" in page.inner_text("#installed")  # the page really works, token and all
    assert server.token not in page.url
    page.reload()  # a reload keeps working: the token is in the tab, not the address
    page.wait_for_selector("body[data-ready=true]")
    for name in ("127.0.0.1", "localhost"):
        page.evaluate(
            "url => fetch(url, {credentials: 'include', mode: 'no-cors'}).catch(() => null)",
            f"http://{name}:{port}/fetched",
        )
        page.evaluate(
            "url => new Promise(done => { const i = new Image(); i.onload = i.onerror = done;"
            " i.src = url; })",
            f"http://{name}:{port}/image.png",
        )
    for name in ("127.0.0.1", "localhost"):
        page.goto(f"http://{name}:{port}/visited")
    assert page.context.cookies() == []
    assert len(seen) >= 6, seen

    received = repr(seen)
    assert server.token not in received
    bare = httpx.get(f"{server.base}/api/v1/skills", timeout=5)
    assert bare.status_code == 403
    for _line, headers in seen:
        for key, value in headers:
            if key.lower() == "host":
                continue
            replayed = httpx.get(f"{server.base}/api/v1/skills", headers={key: value}, timeout=5)
            assert replayed.status_code == 403, (key, value)
            for word in value.replace(";", " ").replace("=", " ").split():
                bearer = {"Authorization": f"Bearer {word}"}
                answer = httpx.get(f"{server.base}/api/v1/skills", headers=bearer, timeout=5)
                assert answer.status_code == 403, (key, word)
