"""Help for every command, internal errors that leave a trace, probes that say why."""

from __future__ import annotations

import logging
import sys

import click
import pytest
from click.testing import CliRunner

from gibberish.cli import cli, logfile, main
from gibberish.desktop.focus import MicrophoneProbe
from gibberish.desktop.modes import ModeDetector, resolve_mode
from gibberish.desktop.x11 import X11FocusProvider


def _walk(command: click.Command, path: tuple[str, ...] = ()):
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _walk(sub, (*path, name))


def test_every_command_and_option_has_help() -> None:
    missing = []
    for path, command in _walk(cli):
        if not command.help:
            missing.append(" ".join(path) or "gibberish")
        for param in command.params:
            if isinstance(param, click.Option) and not param.help:
                missing.append(f"{' '.join(path)} {param.opts[0]}")
    assert missing == []


@pytest.mark.parametrize(
    "group",
    [(), ("skills",), ("export",), ("trust",), ("voice",), ("approvals",), ("secrets",), ("mode",)],
)
def test_command_lists_are_never_cut_short(group: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*group, "--help"], terminal_width=80)
    listed = result.output.split("Commands:" if group else "Run and ask:")[1]
    assert "..." not in listed
    command = cli
    for name in group:
        command = command.commands[name]
    for sub in command.commands.values():
        if sub.hidden:  # an old spelling, listed on its shelf
            continue
        first = " ".join(sub.help.split("\n\n")[0].split()).split(". ")[0].rstrip(".")
        assert first in " ".join(listed.split())


@pytest.fixture
def clean_logging():
    """Every handler ``main`` adds is removed again (they are process-wide)."""
    root = logging.getLogger("gibberish")
    before, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in before:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
    logfile._state["debug"] = False


def _crash(monkeypatch, capsys, *args: str) -> str:
    def boom(*_a, **_k):
        raise RuntimeError("boom in a bug")

    monkeypatch.setattr("gibberish.cli.skills.skill_to_dict", boom)
    monkeypatch.setattr(sys, "argv", ["gibberish", *args, "skills", "list", "--json"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    return capsys.readouterr().err


def test_an_internal_error_names_the_log_that_holds_its_traceback(
    monkeypatch, capsys, clean_logging
) -> None:
    err = _crash(monkeypatch, capsys)
    path = logfile.log_path()
    assert f"internal error: RuntimeError: boom in a bug (the traceback is in {path}" in err
    assert "run again with --debug" in err and "Traceback" not in err
    logged = path.read_text()
    assert "Traceback (most recent call last)" in logged and "boom in a bug" in logged


def test_debug_prints_the_traceback_on_stderr(monkeypatch, capsys, clean_logging) -> None:
    err = _crash(monkeypatch, capsys, "--debug")
    assert "Traceback (most recent call last)" in err and "RuntimeError: boom in a bug" in err
    assert "--debug to see it" not in err


def test_the_log_rotates(clean_logging) -> None:
    logfile.configure()
    log = logging.getLogger("gibberish.cli")
    for _ in range(3 * logfile.LOG_BYTES // 1000):
        log.info("x" * 1000)
    rotated = sorted(p.name for p in logfile.log_path().parent.glob(logfile.LOG_NAME + "*"))
    assert rotated[:2] == ["cli.log", "cli.log.1"] and len(rotated) <= logfile.LOG_BACKUPS + 1


def test_probes_log_why_detection_failed(caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="gibberish")
    assert X11FocusProvider(env={}).focused() is None
    assert "DISPLAY is not set" in caplog.text

    def broken(argv):
        raise ValueError("xprop printed nonsense")

    assert X11FocusProvider(env={"DISPLAY": ":0"}, run=broken).focused() is None
    assert "finding the focused window failed: xprop printed nonsense" in caplog.text
    assert MicrophoneProbe(run=lambda argv: None).in_use() is None
    assert "pactl is missing or no sound server answered" in caplog.text

    class Broken(ModeDetector):
        def detect(self, *, ask_microphone: bool = True):
            raise OSError("no /proc here")

    assert resolve_mode(None, Broken()).reason.startswith("Mode detection failed")
    assert "mode detection failed: no /proc here" in caplog.text
