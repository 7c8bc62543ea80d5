"""Ship the bundled skills and the icons inside the package when a wheel is built.

They live at the top of the source tree (``skills/``, ``resources/``) so that people edit
and review them as files of the project. An editable install reads them from there; a
built wheel carries a copy under ``gibberish/_shipped/``, which ``gibberish.paths`` prefers
when it exists. Everything else is configured in ``pyproject.toml``.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("skills", "resources")


class BuildWithShippedFiles(build_py):
    """``build_py`` that also copies the shipped folders (file modes kept: scripts stay executable)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(__file__).resolve().parent
        for name in SHIPPED:
            target = Path(self.build_lib) / "gibberish" / "_shipped" / name
            self.copy_tree(str(root / name), str(target), preserve_mode=True)
            for cache in target.rglob("__pycache__"):
                self.execute(_remove_tree, (cache,), f"removing {cache}")


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path)


setup(cmdclass={"build_py": BuildWithShippedFiles})
