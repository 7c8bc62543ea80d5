"""What the compile page's guard (token, Host, Origin checks) costs per request.

    .venv/bin/python benchmarks/web_guard.py [--requests 500] [--repeat 3]

The app is called in process (Starlette's ``TestClient``: the ASGI app, its middleware
and routes, no socket — over loopback TCP the figure is ~45 ms of delayed-ACK waiting
for both apps alike, which hides the guard); one client sending the launch's token as
a Bearer header (as the page's script does)
sends ``--requests`` GETs of
``/api/v1/targets`` (a small JSON answer, so the guard is a large share of the work) and
POSTs of a form that is refused at once (no source given), with a same-origin
``Origin``. The floor is the same two routes in a bare FastAPI app without the guard,
called the same way. Each figure is the median time per request over
``--repeat`` rounds, printed with its ratio to the floor.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import httpx
from fastapi import FastAPI, Form
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient

from gibberish.export.web.app import create_app


def bare_app() -> FastAPI:
    app = FastAPI()

    @app.get("/api/v1/targets")
    def targets() -> dict:
        return {"targets": [{"id": "gemini-toml"}], "agents": []}

    @app.post("/api/v1/preview")
    def preview(target: str = Form("gemini-toml")) -> JSONResponse:
        return JSONResponse({"error": "Give exactly one source.", "hint": ""}, status_code=400)

    return app


def per_request(call: Callable[[], httpx.Response], count: int, repeat: int) -> float:
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(count):
            call()
        rounds.append((time.perf_counter() - start) / count)
    return statistics.median(rounds)


def measure(app: FastAPI, token: str | None, count: int, repeat: int) -> tuple[float, float]:
    base = "http://127.0.0.1:8765"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with TestClient(app, base_url=base, headers=headers) as client:
        origin = {"Origin": base}
        get = per_request(lambda: client.get("/api/v1/targets"), count, repeat)
        post = per_request(
            lambda: client.post("/api/v1/preview", data={"target": "x"}, headers=origin),
            count,
            repeat,
        )
        assert client.get("/api/v1/targets").status_code == 200
    return get, post


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    guarded = create_app(lambda: [])
    get, post = measure(guarded, guarded.state.token, args.requests, args.repeat)
    floor_get, floor_post = measure(bare_app(), None, args.requests, args.repeat)
    for what, value, floor in (("GET", get, floor_get), ("refused POST", post, floor_post)):
        print(
            f"{what:<13} guarded {value * 1e3:6.3f} ms/request   bare FastAPI "
            f"{floor * 1e3:6.3f} ms   ratio {value / floor:4.2f}"
        )


if __name__ == "__main__":
    main()
