"""Who may talk to the compile page: this person's browser tab, and nothing else.

A server on 127.0.0.1 is reachable by every web page the person has open (a cross-origin
``multipart/form-data`` POST needs no CORS preflight), by DNS-rebinding sites, and by
every other user of the computer. So:

* **A per-launch secret token, never in a cookie.** Cookies ignore ports: whatever a
  cookie for ``127.0.0.1``/``localhost`` holds, the browser also sends to every other
  server on those names — another local user's included — which could replay it here.
  So ``gibberish web`` prints (and opens) a link carrying the token in its *fragment*
  (``/#token=…``), which a browser never sends to any server; the page moves it into
  its tab's ``sessionStorage`` (per origin: scheme, host *and* port) and drops it from
  the address bar, then sends it as ``Authorization: Bearer <token>`` with every API
  call. Every ``/api`` request needs that header or ``?token=`` (API clients); anything
  else gets 403, and no response sets a cookie. The page's shell — the packaged HTML,
  script, style and the OpenAPI description, none of which holds anything of the
  person's — is served without the token; an old ``/?token=…`` link is redirected to
  the fragment form. ADR 0061.
* **Host allowlist**: exactly the bound address and ``localhost`` (DNS rebinding).
* **Origin / Sec-Fetch-Site** on every state-changing request: a browser's cross-site
  request is refused even if it carried the token.
* A body larger than the upload cap is refused from its Content-Length, before reading.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import quote, urlsplit

from fastapi import Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FORM_OVERHEAD = 64 * 1024
"""Room for the form fields and multipart framing around an upload."""

NEEDS_TOKEN = (
    "Open the page with the link `gibberish web` printed (it carries a token); "
    "other pages and other users of this computer are not served."
)

SHELL_PATHS = frozenset({"/", "/docs", "/openapi.json", "/favicon.ico"})
"""Served without the token (GET/HEAD only): the packaged page, not the person's data."""
SHELL_PREFIX = "/static/"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def is_shell(request: Request) -> bool:
    """The page's packaged files, which hold nothing of the person's (GET/HEAD only)."""
    if request.method not in ("GET", "HEAD") or "token" in request.query_params:
        return False
    path = request.url.path
    return path in SHELL_PATHS or path.startswith(SHELL_PREFIX)


def split_host(header: str) -> tuple[str, int | None]:
    """``Host`` header → (hostname, port); ``[::1]:8765`` → (``::1``, 8765)."""
    try:
        parts = urlsplit(f"//{header}")
        port = parts.port
    except ValueError:  # "[", a port that is not a number: no host we serve
        return "", None
    return (parts.hostname or "").lower(), port


def allowed_hosts(bound: str) -> frozenset[str]:
    return frozenset({bound.strip("[]").lower(), "localhost"})


def _refuse(status: int, error: str, hint: str = "") -> JSONResponse:
    return JSONResponse({"error": error, "hint": hint}, status_code=status)


def _given_token(request: Request) -> str:
    """The Bearer header or the ``token`` parameter; a cookie never counts."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.query_params.get("token", "")


def _cross_site(request: Request) -> str | None:
    """Why a state-changing request looks cross-site, or None."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"Sec-Fetch-Site is {site!r}"
    origin = request.headers.get("origin")
    if origin is not None and origin.lower() != "http://" + request.headers.get("host", "").lower():
        return f"the request comes from {origin!r}"
    return None


def size_text(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count >= 1024 * 1024 else f"{count // 1024} KiB"


TOO_LARGE_HINT = "Send a smaller archive: one skill folder, without build output."


def _too_large(request: Request) -> JSONResponse | None:
    cap = request.app.state.max_upload
    length = request.headers.get("content-length", "")
    if not length.isdigit():
        hint = "Send the form with a Content-Length (browsers and curl do)."
        return _refuse(411, "Length required.", hint)
    if int(length) > cap + FORM_OVERHEAD:
        return _refuse(413, f"The upload is larger than {size_text(cap)}.", TOO_LARGE_HINT)
    return None


async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """The checks above, in order: host, token (except for the shell), origin, size."""
    state = request.app.state
    host, _port = split_host(request.headers.get("host", ""))
    if host not in state.allowed_hosts:
        return _refuse(403, "Only local requests are served.", "Use http://127.0.0.1 or localhost.")
    if is_shell(request):
        shell = await call_next(request)
        shell.headers.setdefault("Referrer-Policy", "no-referrer")
        return shell
    given = _given_token(request)
    if not given or not hmac.compare_digest(given.encode(), state.token.encode()):
        return _refuse(403, "This page needs its token.", NEEDS_TOKEN)
    if request.method not in SAFE_METHODS:
        why = _cross_site(request)
        if why:
            return _refuse(403, f"Refused a request from another site ({why}).", NEEDS_TOKEN)
        too_large = _too_large(request)
        if too_large is not None:
            return too_large
    if request.method == "GET" and request.url.path == "/" and "token" in request.query_params:
        # an old-style link: the token moves to the fragment, which is never sent again
        response: Response = RedirectResponse(f"/#token={quote(given, safe='')}", status_code=303)
    else:
        response = await call_next(request)
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response
