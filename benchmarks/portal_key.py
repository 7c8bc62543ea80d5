"""A global shortcut through the desktop portal: from the portal's ``Activated`` signal to
gibberish's handler, against the same signal read by a bare D-Bus connection.

    .venv/bin/python benchmarks/portal_key.py [--repeat 200]

A private ``dbus-daemon`` is started with the portal played by the test double
(``tests/desktop/portal_double.py``; no real GlobalShortcuts backend runs without its
compositor). Then ``--repeat`` times each, alternating:

* *gibberish* — ``PortalShortcuts`` (jeepney's receiving thread, the session and sender
  checks, our dispatch thread) until its ``on_pressed`` callback runs;
* *floor* — a bare jeepney connection with a match rule for the same signal, blocking
  in ``receive``.

Prints min and median of each and the ratio. Target: the median under 5 ms, which a
person holding a key cannot notice. Also prints how long a start takes when the
shortcuts are already bound (CreateSession + ListShortcuts, no bind).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jeepney import MatchRule  # noqa: E402
from jeepney.bus_messages import message_bus  # noqa: E402
from jeepney.io.blocking import open_dbus_connection  # noqa: E402

from gibberish.desktop import shortcuts  # noqa: E402
from gibberish.desktop.portal import PortalShortcuts  # noqa: E402
from tests.desktop.portal_double import PortalDouble  # noqa: E402
from tests.desktop.sessionbus import session_bus  # noqa: E402


def _ms(values: list[float]) -> str:
    return f"min {min(values) * 1000:.2f} ms, median {statistics.median(values) * 1000:.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp, session_bus(Path(tmp) / "bus") as address:
        portal = PortalDouble(address)
        pressed = threading.Event()
        client = PortalShortcuts(lambda _i: pressed.set(), lambda _i: None, address=address)
        client.start(shortcuts.wanted())
        client.close()
        began = time.perf_counter()
        client = PortalShortcuts(lambda _i: pressed.set(), lambda _i: None, address=address)
        client.start(shortcuts.wanted())
        start_time = time.perf_counter() - began
        bare = open_dbus_connection(address)
        rule = MatchRule(type="signal", interface="org.freedesktop.portal.GlobalShortcuts")
        bare.send_and_get_reply(message_bus.AddMatch(rule))
        ours: list[float] = []
        floor: list[float] = []
        try:
            for _ in range(repeat):
                pressed.clear()
                t0 = time.perf_counter()
                portal.press("listen-hold")
                pressed.wait(5)
                ours.append(time.perf_counter() - t0)
                bare.receive(timeout=5)  # the same signal, seen by the bare connection
                t0 = time.perf_counter()
                portal.release("listen-hold")
                bare.receive(timeout=5)
                floor.append(time.perf_counter() - t0)
        finally:
            bare.close()
            client.close()
            portal.close()
    ratio = statistics.median(ours) / statistics.median(floor)
    print(f"key press → handler, gibberish: {_ms(ours)}")
    print(f"key press → bare D-Bus receive (floor): {_ms(floor)}")
    print(f"ratio of medians: {ratio:.2f} x floor (target: median < 5 ms)")
    print(f"start with the shortcuts already bound (no bind): {start_time * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
