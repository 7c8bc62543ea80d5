"""Fixtures for the Qt tests: skill folders under tmp_path, a real Engine, a started controller.

Dialogs that would block (the parameter form, the approval dialog) are answered through
the controller's ``Seams`` by recorders given to its constructor (``forms``,
``approvals``); what it tells the person is recorded from its ``notified`` signal;
nothing needs a real tray (``tray_available`` is injected).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.engine.run_flow import Answer
from tests.helpers.processes import host_pids
from tests.skills.fixtures.skillkit import make_skill, param_table, tool_block

__all__ = ["param_table", "tool_block", "write_skill"]


def write_skill(
    root: Path,
    name: str,
    tools: list[str],
    *,
    description: str | None = None,
    extra: str = "",
    scripts: dict[str, str] | None = None,
) -> Path:
    """A skill folder ``root/name`` with a SKILL.md made of ``tools`` blocks."""
    return make_skill(
        root,
        name,
        tools=tools,
        scripts=scripts,
        description=description or f"Test skill {name}. Use it in tests.",
        extra=extra.strip(),
    )


def standard_skills(root: Path) -> Path:
    """A small library: a read-only echo skill, a skill with every parameter type, a sleeper."""
    write_skill(
        root,
        "hello",
        [
            tool_block("say_hello", "Print a friendly greeting.", "echo hello from gibberish"),
            tool_block(
                "echo_text",
                "Print the text you give it.",
                "echo {{text}}",
                param_table([("text", "string", "yes", "What to print")]),
            ),
        ],
        description="Say hello. Use to check that gibberish runs tools.",
        extra="read_only: true",
    )
    write_skill(
        root,
        "kinds",
        [
            tool_block(
                "all_types",
                "Take one parameter of every type.",
                "echo {{name}} {{count}} {{ratio}} {{verbose:--verbose}} {{items}}",
                param_table(
                    [
                        ("name", "string", "yes", "A name to print"),
                        ("count", "integer", "no", "How many (default: 3)"),
                        ("ratio", "number", "no", "A ratio (default: 0.5)"),
                        ("verbose", "boolean", "no", "Say more"),
                        ("items", "array", "no", "Extra words"),
                    ]
                ),
            )
        ],
        description="Parameters of every type. Use in form tests.",
    )
    write_skill(
        root,
        "slow",
        [
            tool_block("nap", "Sleep for a long time.", "./nap.sh"),
            tool_block("fail", "Exit with an error.", "./fail.sh"),
            tool_block("missing", "Run a program that does not exist.", "./not-there.sh"),
        ],
        description="Slow and failing tools. Use in run tests.",
        extra="timeout: 2",
        scripts={
            "nap.sh": '#!/bin/sh\necho started\nsleep 30 &\necho $$ $! > "$HOME/nap.pids"\nwait\n',
            "fail.sh": "#!/bin/sh\necho 'something broke' >&2\nexit 3\n",
        },
    )
    return root


class FakeApprovals:
    """Answers approval prompts with ``answer`` and records what it was shown."""

    def __init__(self, answer: Answer = Answer.ONCE) -> None:
        self.answer = answer
        self.seen: list[Any] = []

    def ask(self, prepared: Any, parent: Any = None) -> Answer:
        self.seen.append(prepared)
        return self.answer


class FakeForms:
    """Answers the parameter form with ``values`` (or cancels with None); records the calls.

    ``calls`` holds (``skill.tool``, prefilled arguments); ``extras`` the ``note`` and
    ``missing`` fields a proposal came with, in the same order.
    """

    def __init__(self, values: dict[str, Any] | None = None, *, cancel: bool = False) -> None:
        self.values = values
        self.cancel = cancel
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.extras: list[dict[str, Any]] = []

    def ask(
        self, skill, tool, render, prefilled=None, parent=None, *, note="", missing=(), folder=None
    ):
        self.calls.append((f"{skill.name}.{tool.name}", dict(prefilled or {})))
        self.extras.append({"note": note, "missing": tuple(missing), "folder": folder})
        if self.cancel:
            return None
        values = dict(prefilled or {})
        values.update(self.values or {})
        render(values)  # the form never accepts what does not render
        return values


@pytest.fixture(autouse=True)
def collect_qt_garbage_on_the_gui_thread() -> Iterator[None]:
    """Collect each test's cyclic garbage here, on the GUI thread, then freeze the rest.

    Tests leave Qt objects behind that only the cyclic garbage collector frees (a
    Controller whose signals are connected to its own methods …). Left alone, the next
    collection may run on any thread that allocates — a runner, the fake model server, a
    model worker — and a QObject destroyed there cannot unregister its socket notifiers
    from the GUI thread's event dispatcher: heap corruption, and a crash in some later
    test. ``gc.freeze`` moves what survives out of the collector's sight, so the next
    test's collection is cheap and never reaches back. (The app itself collects on the GUI
    thread only: ``gui_gc.py``.)
    """
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    return standard_skills(tmp_path / "skills")


@pytest.fixture
def engine(skills_dir: Path) -> Engine:
    return Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False)
    )


def make_controller(engine: Any, *, tray: bool = True, **seams: Any) -> Any:
    """A controller (not started) whose seams are ``seams`` (``forms``, ``approvals`` …)."""
    from gibberish.ui.controller import Controller
    from gibberish.ui.seams import Seams

    return Controller(engine, tray_available=tray, seams=Seams(**seams))


@pytest.fixture
def approvals() -> FakeApprovals:
    return FakeApprovals()


@pytest.fixture
def forms() -> FakeForms:
    return FakeForms()


@pytest.fixture
def opened_urls() -> list[Any]:
    return []


@pytest.fixture
def controller(
    qtbot, engine: Engine, approvals: FakeApprovals, forms: FakeForms, opened_urls: list[Any]
) -> Iterator[Any]:
    """A started controller in tray mode (the tray itself is never shown for real)."""
    ctl = make_controller(engine, forms=forms, approvals=approvals, open_url=opened_urls.append)
    ctl.start()
    yield ctl
    ctl.shutdown()
    ctl.deleteLater()


@pytest.fixture
def notifications(controller: Any) -> list[tuple[str, str, bool]]:
    """What ``controller`` told the person, in order: (title, body, failed)."""
    seen: list[tuple[str, str, bool]] = []
    controller.notified.connect(lambda title, body, failed: seen.append((title, body, failed)))
    return seen


def wait_for_result(qtbot, session, timeout: int = 10_000) -> None:
    qtbot.waitUntil(lambda: session.result is not None, timeout=timeout)


def live_processes(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def read_pids(path: Path, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file():
            text = path.read_text().split()
            if len(text) >= 2:
                return host_pids([int(t) for t in text])  # sandboxed: namespace pids
        time.sleep(0.02)
    raise AssertionError(f"{path} was not written")
