"""Mode detection with fake providers, and the real probes degrading quietly."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from gibberish.desktop.focus import (
    FocusInfo,
    MicrophoneProbe,
    describe_process,
    run_quiet,
)
from gibberish.desktop.modes import (
    AppLists,
    ModeContext,
    ModeDetector,
    available,
    normalize_app_name,
    resolve_mode,
)
from gibberish.desktop.x11 import X11FocusProvider
from gibberish.skills.model import Mode, SkillDefinition


class FakeFocus:
    def __init__(self, app: str | None, cwd: Path | None = None) -> None:
        self.info = None if app is None else FocusInfo(pid=4242, app=app, cwd=cwd)

    def focused(self) -> FocusInfo | None:
        return self.info


class FakeMic(MicrophoneProbe):
    def __init__(self, in_use: bool | None) -> None:
        self._in_use = in_use

    def in_use(self) -> bool | None:
        return self._in_use


def detector(app=None, mic=None, running=()) -> ModeDetector:
    return ModeDetector(
        focus=FakeFocus(app), microphone=FakeMic(mic), process_names=lambda: set(running)
    )


@pytest.mark.parametrize("app", ["kitty", "gnome-terminal-server", "konsole", "Alacritty"])
def test_a_focused_terminal_means_dev(app: str) -> None:
    ctx = detector(app).detect()
    assert ctx.mode is Mode.DEV and ctx.automatic
    assert "terminal" in ctx.reason and app in ctx.reason
    assert ctx.focus is not None and ctx.focus.app == app


@pytest.mark.parametrize("app", ["code", "codium", "pycharm", "emacs", ".code-wrapped"])
def test_a_focused_ide_means_dev(app: str) -> None:
    ctx = detector(app).detect()
    assert ctx.mode is Mode.DEV
    assert "code editor" in ctx.reason


@pytest.mark.parametrize("app", ["obsidian", "joplin", "logseq", "soffice.bin"])
def test_a_focused_notes_app_means_writer(app: str) -> None:
    ctx = detector(app).detect()
    assert ctx.mode is Mode.WRITER
    assert "notes" in ctx.reason


def test_meeting_needs_a_meeting_app_and_a_microphone_in_use() -> None:
    ctx = detector("kitty", mic=True, running={"zoom", "bash"}).detect()
    assert ctx.mode is Mode.MEETING
    assert "zoom" in ctx.reason and "microphone" in ctx.reason
    # either alone is not a meeting
    assert detector("kitty", mic=False, running={"zoom"}).detect().mode is Mode.DEV
    assert detector("kitty", mic=None, running={"zoom"}).detect().mode is Mode.DEV
    assert detector("kitty", mic=True, running={"bash", "firefox"}).detect().mode is Mode.DEV
    assert detector(None, mic=True, running={"teams-for-linux"}).detect().mode is Mode.MEETING


def test_processes_are_only_listed_when_the_microphone_is_in_use() -> None:
    calls: list[int] = []

    def names() -> set[str]:
        calls.append(1)
        return {"zoom"}

    ModeDetector(focus=FakeFocus("kitty"), microphone=FakeMic(False), process_names=names).detect()
    assert calls == []


def test_without_asking_the_microphone_its_last_answer_stands_in() -> None:
    mic = FakeMic(True)
    found = ModeDetector(focus=FakeFocus("kitty"), microphone=mic, process_names=lambda: {"zoom"})
    assert found.detect(ask_microphone=False).mode is Mode.DEV  # no answer yet: no meeting
    assert found.microphone_moved() is True  # asked now: in use, which is news
    assert found.detect(ask_microphone=False).mode is Mode.MEETING
    assert found.microphone_moved() is False  # the same answer again
    mic._in_use = False
    assert found.detect(ask_microphone=False).mode is Mode.MEETING  # not asked: as it was
    assert found.microphone_moved() is True
    assert found.detect(ask_microphone=False).mode is Mode.DEV


def test_anything_else_is_global_and_says_why() -> None:
    ctx = detector("firefox", mic=False).detect()
    assert ctx.mode is Mode.GLOBAL and ctx.automatic
    assert "firefox" in ctx.reason


def test_nothing_available_degrades_to_global_with_a_reason() -> None:
    ctx = detector(None, mic=None).detect()
    assert ctx == ModeContext(Mode.GLOBAL, True, None, ctx.reason)
    assert "Global" in ctx.reason and "microphone" in ctx.reason


def test_failing_providers_never_raise() -> None:
    class Boom:
        def focused(self):
            raise RuntimeError("x")

    class BoomMic(MicrophoneProbe):
        def __init__(self) -> None:
            pass

        def in_use(self):
            raise RuntimeError("y")

    def boom_names() -> set[str]:
        raise RuntimeError("z")

    d = ModeDetector(focus=Boom(), microphone=BoomMic(), process_names=boom_names)
    assert d.detect().mode is Mode.GLOBAL
    assert d.focused() is None


def test_app_lists_from_mapping_replace_or_extend() -> None:
    lists = AppLists.from_mapping({"terminals": ["MyTerm"], "meetings": []})
    assert lists.terminals == frozenset({"myterm"})
    assert lists.meetings == frozenset()
    assert lists.ides == AppLists().ides
    extended = AppLists.from_mapping({"notes": ["zettlr"]}, extend=True)
    assert "zettlr" in extended.notes and "obsidian" in extended.notes
    d = ModeDetector(apps=lists, focus=FakeFocus("myterm"), microphone=FakeMic(None))
    assert d.detect().mode is Mode.DEV
    assert (
        ModeDetector(apps=lists, focus=FakeFocus("kitty"), microphone=FakeMic(None)).detect().mode
        is Mode.GLOBAL
    )


@pytest.mark.parametrize(
    "bad", [{"shells": ["bash"]}, {"terminals": "kitty"}, {"terminals": [1]}, {"ides": 3}]
)
def test_app_lists_from_a_bad_mapping_is_a_clear_value_error(bad) -> None:
    with pytest.raises(ValueError, match="app list"):
        AppLists.from_mapping(bad)


def test_default_app_lists() -> None:
    lists = AppLists()
    assert {"gnome-terminal-server", "konsole", "kitty", "wezterm-gui", "xterm"} <= lists.terminals
    assert {"code", "codium", "pycharm", "emacs"} <= lists.ides
    assert {"obsidian", "joplin", "logseq"} <= lists.notes
    assert {"zoom", "teams", "skypeforlinux", "webex"} <= lists.meetings
    assert lists.kind_of("Kitty") == "terminal"
    assert lists.kind_of("firefox") is None


def test_normalize_app_name() -> None:
    assert normalize_app_name(" Code ") == "code"
    assert normalize_app_name(".kitty-wrapped") == "kitty"
    assert normalize_app_name("soffice.bin") == "soffice"
    assert normalize_app_name("Obsidian.AppImage") == "obsidian"


def test_available_follows_the_skill_modes() -> None:
    def s(*modes: Mode) -> SkillDefinition:
        return SkillDefinition(name="x", source_path=Path("/x/SKILL.md"), modes=modes)

    assert available(s(Mode.GLOBAL), Mode.MEETING)
    assert available(s(Mode.DEV), Mode.DEV)
    assert not available(s(Mode.DEV), Mode.WRITER)
    assert not available(s(Mode.DEV), Mode.GLOBAL)
    assert available(s(Mode.DEV, Mode.WRITER), Mode.WRITER)


def test_resolve_mode_manual_wins_but_keeps_the_focus() -> None:
    d = detector("kitty")
    ctx = resolve_mode(Mode.WRITER, d)
    assert ctx.mode is Mode.WRITER and ctx.automatic is False
    assert ctx.focus is not None and ctx.focus.app == "kitty"
    assert "You chose Writer" in ctx.reason
    assert resolve_mode(Mode.MEETING, None).focus is None


def test_resolve_mode_automatic() -> None:
    assert resolve_mode(None, detector("kitty")).mode is Mode.DEV
    ctx = resolve_mode(None, None)
    assert ctx.mode is Mode.GLOBAL and ctx.automatic and ctx.reason


# -- the real providers -----------------------------------------------------------------


def test_x11_provider_returns_none_without_display() -> None:
    assert "DISPLAY" not in os.environ  # conftest removes it
    assert X11FocusProvider().focused() is None
    calls: list[list[str]] = []
    provider = X11FocusProvider(env={}, run=lambda argv: calls.append(argv) or "")
    assert provider.focused() is None
    assert calls == []  # does not even try


def test_x11_provider_returns_none_in_a_wayland_session() -> None:
    calls: list[list[str]] = []
    env = {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}
    assert X11FocusProvider(env=env, run=lambda a: calls.append(a) or "").focused() is None
    assert calls == []


def test_x11_provider_returns_none_when_xprop_is_missing(tmp_path: Path) -> None:
    env = {"DISPLAY": ":0", "PATH": str(tmp_path)}  # an empty PATH: no xprop
    assert X11FocusProvider(env=env).focused() is None


@pytest.mark.parametrize(
    "outputs",
    [
        [None],
        ["_NET_ACTIVE_WINDOW(WINDOW): window id # 0x0"],
        ["garbage"],
        ["_NET_ACTIVE_WINDOW(WINDOW): window id # 0x3a00007", "_NET_WM_PID:  not found."],
        ["_NET_ACTIVE_WINDOW(WINDOW): window id # 0x3a00007", None],
    ],
)
def test_x11_provider_returns_none_on_odd_xprop_output(outputs) -> None:
    answers = iter(outputs)
    provider = X11FocusProvider(env={"DISPLAY": ":0"}, run=lambda argv: next(answers))
    assert provider.focused() is None


def test_x11_provider_asks_xprop_with_argv_lists_then_psutil(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    pid = os.getpid()

    def fake(argv: list[str]) -> str:
        calls.append(argv)
        if argv[1] == "-root":
            return "_NET_ACTIVE_WINDOW(WINDOW): window id # 0x3a00007\n"
        return f"_NET_WM_PID(CARDINAL) = {pid}\n"

    info = X11FocusProvider(env={"DISPLAY": ":0"}, run=fake).focused()
    assert calls == [
        ["xprop", "-root", "_NET_ACTIVE_WINDOW"],
        ["xprop", "-id", "0x3a00007", "_NET_WM_PID"],
    ]
    assert info is not None
    assert info.pid == pid
    assert info.app == psutil.Process(pid).name()


def test_focus_cwd_is_that_of_the_newest_shell_below_the_app(tmp_path: Path) -> None:
    older = tmp_path / "older"
    newer = tmp_path / "newer"
    older.mkdir()
    newer.mkdir()
    shells = []
    try:
        for folder in (older, newer):
            shells.append(
                subprocess.Popen(["sh", "-c", "sleep 30; :"], cwd=folder, stdin=subprocess.DEVNULL)
            )
            time.sleep(0.05)  # distinct create times
        # wait until both children exec'd as "sh"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            names = [psutil.Process(p.pid).name() for p in shells]
            if names == ["sh", "sh"]:
                break
            time.sleep(0.01)
        info = describe_process(os.getpid())
        assert info.cwd == newer
    finally:
        for proc in shells:
            try:
                for child in psutil.Process(proc.pid).children(recursive=True):
                    child.kill()
            except psutil.NoSuchProcess:
                pass
            proc.kill()
            proc.wait(timeout=5)


def test_describe_process_of_a_vanished_pid() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=10)
    info = describe_process(proc.pid)
    assert info == FocusInfo(pid=proc.pid, app=None, cwd=None)


def test_microphone_probe_reads_pactl_short_output() -> None:
    calls: list[list[str]] = []

    def fake(output):
        def run(argv: list[str]):
            calls.append(argv)
            return output

        return run

    line = "42\t1\t17\tfloat32le 1ch 48000Hz\n"
    assert MicrophoneProbe(run=fake(line)).in_use() is True
    assert MicrophoneProbe(run=fake("")).in_use() is False
    assert MicrophoneProbe(run=fake(None)).in_use() is None
    assert calls[0] == ["pactl", "list", "source-outputs", "short"]


@pytest.mark.parametrize(
    ("output", "in_use"),
    [
        ("0\t0\t-\tmodule-remap-source.c\ts16le 1ch 16000Hz\n", False),
        ("3\t2\t-\tmodule-echo-cancel.c\tfloat32le 1ch 32000Hz\n", False),
        ("0\t0\t-\tmodule-loopback.c\ts16le 2ch 44100Hz\n\n", False),
        ("0\t0\t-\tmodule-remap-source.c\ts16le 1ch 16000Hz\n"
         "1\t1\t3\tprotocol-native.c\ts16le 2ch 44100Hz\n", True),
        ("7\t1\t52\tPipeWire\tfloat32le 1ch 48000Hz\n", True),
    ],
)  # fmt: skip
def test_only_a_program_recording_is_a_microphone_in_use(output: str, in_use: bool) -> None:
    assert MicrophoneProbe(run=lambda _argv: output).in_use() is in_use


def test_microphone_probe_without_pactl_is_none(tmp_path: Path) -> None:
    probe = MicrophoneProbe(
        run=lambda argv: run_quiet(argv, timeout=1, env={"PATH": str(tmp_path)})
    )
    assert probe.in_use() is None


def test_run_quiet_times_out_quickly_and_leaves_nothing_behind() -> None:
    start = time.monotonic()
    assert run_quiet(["sleep", "10"], timeout=0.2) is None
    assert time.monotonic() - start < 5
    assert not [c for c in psutil.Process().children() if c.name() == "sleep"]


def test_run_quiet_never_uses_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    out = run_quiet(["echo", f"hi; touch {marker}"], timeout=5)
    assert out == f"hi; touch {marker}\n"
    assert not marker.exists()
    assert run_quiet(["false"], timeout=5) is None
