"""Regenerate the UI screenshots in this folder (offscreen; no display needed).

    .venv/bin/python docs/screenshots/make.py            # writes docs/screenshots/*.png
    .venv/bin/python docs/screenshots/make.py OUT_DIR    # somewhere else

Everything shown is real: a demo library of skills is written to a temporary folder, the
real Engine loads it, the dialogs are built from real ``PreparedRun`` decisions and the
result windows show real runs. Nothing outside the temporary folder is touched (every
XDG folder and HOME point into it), so approvals and settings of the person running the
script are safe; the dialogs show paths in the home folder as ``~/…``, so the pictures
read like a real home.

Every picture is drawn with the DejaVu fonts shipped in ``tests/fonts/`` and no other
(fontconfig is pointed at them alone), so it looks the same on every machine. Every
picture is made in Fusion's light palette; the approval, form, result and command
bar pictures also in a dark palette (``*-dark.png``). ``tests/ui/test_screenshots.py``
compares fresh pictures with the committed ones, within a tolerance.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

DEMO_SKILLS: dict[str, tuple[str, dict[str, str]]] = {
    "photos": (
        """---
name: photos
version: 1.2.0
description: Resize and convert photos in a folder. Use when the user wants smaller images for the web or email.
author: you
network: false
---

### resize_images

Resize every photo in a folder to a maximum width, keeping the aspect ratio.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| folder | string | yes | Folder with the photos |
| width | integer | no | Largest width in pixels (default: 1600) |
| quality | number | no | JPEG quality from 0 to 1 (default: 0.85) |
| keep_exif | boolean | no | Keep camera and location data |
| formats | array | no | File types to include (default: jpg) |

#### Command

```bash
./resize.sh --width {{width}} --quality {{quality}} {{keep_exif:--keep-exif}} {{formats:--format}} -- {{folder}}
```

### list_large

List the photos larger than 5 MB.

#### Parameters

None.

#### Command

```bash
./large.sh
```
""",
        {
            "resize.sh": "#!/bin/sh\necho resized\n",
            "large.sh": "#!/bin/sh\necho 'IMG_2041.jpg  7.2 MB'\necho 'IMG_2044.jpg  6.8 MB'\n",
        },
    ),
    "project": (
        """---
name: project
version: 1.0.0
description: Build and check the project in the current folder. Use when the user asks to run the tests or the linter.
modes: [Dev]
read_only: true
timeout: 20
---

### run_tests

Run the test suite and show a summary.

#### Parameters

None.

#### Command

```bash
./tests.sh
```

### check_links

Check every link in the documentation.

#### Parameters

None.

#### Command

```bash
./links.sh
```

### build_log

Print the full build log.

#### Parameters

None.

#### Command

```bash
./build.sh
```
""",
        {
            "tests.sh": (
                "#!/bin/sh\n"
                "echo '============ test session starts ============'\n"
                "echo 'collected 214 items'\n"
                "echo\n"
                "echo 'tests/test_api.py ......................  [ 10%]'\n"
                "echo 'tests/test_models.py ..................... [ 30%]'\n"
                "echo 'tests/test_views.py ...................... [ 62%]'\n"
                "echo 'tests/test_cli.py ........................ [100%]'\n"
                "echo\n"
                "echo '============ 214 passed in 3.92s ============'\n"
            ),
            "links.sh": (
                "#!/bin/sh\n"
                "echo 'Checking 48 links in docs/ ...'\n"
                "echo 'ok    https://example.org/guide'\n"
                "echo 'ok    https://example.org/api'\n"
                "echo 'FAIL  https://example.org/old-page (404 Not Found)'\n"
                "echo '1 broken link found.' >&2\n"
                "exit 1\n"
            ),
            "build.sh": (
                "#!/bin/sh\n"
                "i=0\n"
                "while [ $i -lt 60000 ]; do\n"
                '  echo "[build] compiling module $i of 60000: src/module_$i.c -> obj/module_$i.o"\n'
                "  i=$((i+1))\n"
                "done\n"
                "echo '[build] done: 60000 modules, 0 warnings'\n"
            ),
        },
    ),
    "weather": (
        """---
name: weather
version: 0.3.0
description: Current weather and a short forecast for a city. Use when the user asks about the weather.
network: true
---

### forecast

Show the weather forecast for a city (from wttr.in).

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| city | string | yes | The city, for example Lisbon |

#### Command

```bash
curl --silent --max-time 10 'https://wttr.in/{{city}}?format=3'
```
""",
        {
            ".gibberish-source.json": json.dumps(
                {
                    "source": "https://example.org/skills/weather.zip",
                    "kind": "url",
                    "imported_at": "2026-03-14T09:30:00+00:00",
                    "fingerprint": "0" * 64,
                }
            )
        },
    ),
}


def _isolate(root: Path) -> None:
    """HOME is ``root``; the XDG folders are the usual ones under it (short, realistic paths)."""
    folders = {
        "HOME": root,
        "XDG_CONFIG_HOME": root / ".config",
        "XDG_DATA_HOME": root / ".local" / "share",
        "XDG_STATE_HOME": root / ".local" / "state",
        "XDG_CACHE_HOME": root / ".cache",
        "XDG_RUNTIME_DIR": root / ".run",
    }
    for var, path in folders.items():
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.environ[var] = str(path)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # The fonts shipped in tests/fonts/ and nothing else, so every machine draws the same.
    from tests.fonts import fontconfig_file

    os.environ["FONTCONFIG_FILE"] = str(fontconfig_file(root / ".fonts"))
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
    # Programs the dialogs name (curl) are found where a distribution puts them, not in
    # whatever the person running this has first on PATH.
    os.environ["PATH"] = "/usr/bin:/bin"
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"):
        os.environ.pop(var, None)


def _write_demo(skills: Path) -> None:
    for name, (text, files) in DEMO_SKILLS.items():
        folder = skills / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        for rel, body in files.items():
            path = folder / rel
            path.write_text(body, encoding="utf-8")
            if rel.endswith(".sh"):
                path.chmod(0o755)


def make(out_dir: Path) -> list[Path]:
    """Write every screenshot into ``out_dir`` and return their paths.

    The bundled skills are copied to one fixed folder first, so a picture that shows a
    bundled script's path shows the same path wherever this repository was cloned (a
    longer path would wrap and change the dialog). A lock keeps two runs apart.
    """
    sys.path.insert(0, str(REPO))
    from filelock import FileLock

    shared = Path(tempfile.gettempdir()) / f"gibberish-screenshots-{os.getuid()}"
    shared.mkdir(mode=0o700, exist_ok=True)
    with FileLock(str(shared / "lock")):
        bundled = shared / "skills"
        shutil.rmtree(bundled, ignore_errors=True)
        shutil.copytree(REPO / "skills", bundled, ignore=shutil.ignore_patterns("__pycache__"))
        os.environ["GIBBERISH_BUNDLED_SKILLS"] = str(bundled)
        return _pictures(out_dir)


def _pictures(out_dir: Path) -> list[Path]:
    root = Path(tempfile.mkdtemp(prefix="gibberish-demo-"))
    sys.path.insert(0, str(REPO))
    _isolate(root)

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.ui.approval.dialog import ApprovalDialog
    from gibberish.ui.command_bar.bar import CommandBar
    from gibberish.ui.controller import Controller
    from gibberish.ui.runs.param_form import ParameterForm
    from tests import fonts

    app = QApplication.instance() or QApplication(["gibberish"])
    fonts.use_in(app)
    app.setStyle("Fusion")
    light = app.style().standardPalette()
    app.setPalette(light)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def pump(ms: int = 30) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def save(widget: QWidget, name: str, size: tuple[int, int] | None = None) -> None:
        if size is not None:
            widget.resize(*size)
        widget.show()  # otherwise at the size Qt picks when it is shown for real
        pump(60)
        path = out_dir / f"{name}.png"
        widget.grab().save(str(path))
        widget.hide()
        written.append(path)

    user_skills = Path(os.environ["XDG_CONFIG_HOME"]) / "gibberish" / "skills"
    _write_demo(user_skills)
    project_dir = Path(os.environ["HOME"]) / "src" / "shop"
    project_dir.mkdir(parents=True)
    engine = Engine(EngineOptions(include_user=True, include_bundled=True))
    # The one-time "no sandbox" notice says what this machine lacks (bubblewrap), not what
    # the window looks like: taken here, so every machine draws the same launcher.
    from gibberish.runner import sandbox

    sandbox.take_notice()

    # Launcher window (what desktops without a tray get).
    controller = Controller(engine, tray_available=False)
    controller.start()
    assert controller.surface.launcher is not None
    controller.surface.launcher.tree.collapseAll()
    for name in ("skill:photos", "skill:git"):
        item = controller.surface.launcher.find_item(name)
        if item is not None:
            item.setExpanded(True)
    save(controller.surface.launcher, "launcher", (420, 600))

    # The tray menu, with a skill submenu open.
    controller.menu.aboutToShow.emit()
    save(controller.menu, "tray-menu")

    # Parameter form.
    target = engine.library.find_tool("photos.resize_images")
    form = ParameterForm(
        target.skill,
        target.tool,
        lambda args: engine.runs.render(target, args),
        prefilled={"folder": "~/Pictures/Lisbon 2025", "formats": ["jpg", "heic"]},
    )
    save(form, "parameter-form")

    # Approvals: a confirm for a bundled tool that changes things (as a model's run
    # asks it), a changed user skill, an installed skill not trusted yet.
    confirm = engine.runs.prepare("take-note.add_note", {"text": "Call the plumber on Monday"})
    save(ApprovalDialog(confirm), "approval-confirm")
    first = engine.runs.prepare("photos.list_large")
    engine.trust.approve_prepared(first)
    # What "Trust this version" in the dialog does too: keep a copy to diff against.
    from gibberish.trust import approved_copies

    approved_copies.keep(first.skill.directory, first.fingerprint.files)
    (user_skills / "photos" / "large.sh").write_text("#!/bin/sh\nfind . -size +5M\n")
    (user_skills / "photos" / "upload.sh").write_text("#!/bin/sh\necho upload\n")
    changed = engine.runs.prepare("photos.list_large")
    save(ApprovalDialog(changed), "approval-changed")
    untrusted = engine.runs.prepare("weather.forecast", {"city": "Lisbon"})
    save(ApprovalDialog(untrusted), "approval-untrusted")

    # Result windows from real runs.
    def run(ref: str, name: str, after: Callable[[object], None] | None = None) -> None:
        prepared = engine.runs.prepare(ref, context_dir=project_dir)
        session = controller.runs.start(prepared, confirmed=True, show=True)
        deadline = time.monotonic() + 60
        while session.result is None and time.monotonic() < deadline:
            pump(20)
        pump(80)
        if after is not None:
            after(session.window)
        save(session.window, name, (720, 440))

    run("project.run_tests", "result-success")
    run("project.check_links", "result-failure")
    run("project.build_log", "result-truncated")

    def typing_bar() -> CommandBar:
        bar = CommandBar()
        bar.set_tools(engine.library.tools())
        bar.popup()
        bar.input.setText("photo")
        pump(30)
        return bar

    # The command bar while typing.
    bar = typing_bar()
    save(bar, "command-bar")

    # The same windows in a dark palette (new widgets: they take the palette when built).
    app.setPalette(dark_palette())
    save(ApprovalDialog(engine.runs.prepare("photos.list_large")), "approval-changed-dark")
    save(
        ParameterForm(
            target.skill,
            target.tool,
            lambda args: engine.runs.render(target, args),
            prefilled={"folder": "~/Pictures/Lisbon 2025", "formats": ["jpg", "heic"]},
        ),
        "parameter-form-dark",
    )
    run("project.check_links", "result-failure-dark")
    save(typing_bar(), "command-bar-dark")
    app.setPalette(light)

    # The command bar while the local model thinks about a request in words (the busy
    # state is what the controller shows between Enter and the model's answer).
    bar.ask_hint = "Enter to ask functiongemma"
    bar.popup("show me the last 5 commits")
    bar.set_busy("Asking functiongemma…")
    pump(400)  # a few spinner frames, so the ring is caught mid-turn
    save(bar, "command-bar-asking")

    # …and when the model server is not running: a real ``engine.feed.route`` against a port
    # nothing listens on, shown as the controller shows it (the message, then the closest
    # tools by fuzzy match).
    import socket

    import msgspec.structs

    from gibberish.assistant.outcome import advise

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = msgspec.structs.replace(
        engine.settings.model, enabled=True, endpoint=f"http://127.0.0.1:{port}"
    )
    engine.update_settings(msgspec.structs.replace(engine.settings, model=model))
    request = "show me the last 5 commits"
    outcome = advise(engine.feed.route(request), model.model)
    assert outcome.failed, outcome
    bar.popup(request)
    bar.show_choices(
        outcome.message.replace(str(port), "11434"),  # the usual Ollama port, for the docs
        outcome.refs,
        failed=True,
        settings_link=outcome.settings_link,
    )
    pump(30)
    save(bar, "command-bar-no-server")

    # Export as a plugin…: the person's own skills ticked; bundled and installed ones not.
    from gibberish.export.plugin import choices
    from gibberish.ui.export.dialog import ExportDialog

    save(ExportDialog(choices(engine.library.skills())), "export-plugin", (600, 620))

    controller.shutdown()
    return written


def dark_palette():
    """A dark Fusion palette (what a dark desktop theme gives Qt)."""
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    roles = QPalette.ColorRole
    for role, colour in (
        (roles.Window, "#2d2d30"),
        (roles.WindowText, "#e8e8e8"),
        (roles.Base, "#1e1e1e"),
        (roles.AlternateBase, "#262629"),
        (roles.ToolTipBase, "#2d2d30"),
        (roles.ToolTipText, "#e8e8e8"),
        (roles.Text, "#e8e8e8"),
        (roles.Button, "#3a3a3d"),
        (roles.ButtonText, "#e8e8e8"),
        (roles.BrightText, "#ff6b6b"),
        (roles.Light, "#4a4a4e"),
        (roles.Midlight, "#404044"),
        (roles.Mid, "#5a5a5e"),
        (roles.Dark, "#202022"),
        (roles.Shadow, "#000000"),
        (roles.Highlight, "#3d7bd9"),
        (roles.HighlightedText, "#ffffff"),
        (roles.Link, "#7aa7f0"),
        (roles.PlaceholderText, "#9a9a9e"),
    ):
        palette.setColor(role, QColor(colour))
    return palette


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for path in make(out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
