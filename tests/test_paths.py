"""gibberish's folders follow the XDG Base Directory rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish import paths

FOLDERS = [
    (paths.config_dir, "XDG_CONFIG_HOME", ".config"),
    (paths.data_dir, "XDG_DATA_HOME", ".local/share"),
    (paths.state_dir, "XDG_STATE_HOME", ".local/state"),
    (paths.cache_dir, "XDG_CACHE_HOME", ".cache"),
]


@pytest.mark.parametrize(("folder", "variable", "default"), FOLDERS)
def test_each_folder_is_under_its_variable_or_its_default(
    folder, variable, default, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(variable, str(tmp_path / "xdg"))
    assert folder() == tmp_path / "xdg" / "gibberish"
    for ignored in ("", "   ", "relative/folder"):  # empty or relative: the rules ignore it
        monkeypatch.setenv(variable, ignored)
        assert folder() == tmp_path / "home" / default / "gibberish"
    monkeypatch.delenv(variable)
    assert folder() == tmp_path / "home" / default / "gibberish"
