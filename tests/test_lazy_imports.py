"""What the tray holds at rest: keyring only once a key or secret is used, no module sources."""

from __future__ import annotations

import linecache
import subprocess
import sys
from pathlib import Path

from tests.skills.fixtures.skillkit import make_skill, skill_text

CHECK = """
import sys
import gibberish.engine.core, gibberish.trust.keys, gibberish.trust.secrets, gibberish.trust.approvals
assert "keyring" not in sys.modules, sorted(m for m in sys.modules if m.startswith("keyring"))
from gibberish.trust.keys import _default_keyring
_default_keyring()
assert "keyring" in sys.modules
"""


def test_keyring_is_imported_when_first_used_not_with_the_trust_modules():
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]


LOAD = """
import sys
from pathlib import Path
from gibberish.skills.cache import ParseCache
from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Trust
root, cache, expect_parser = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "yes"
sources = [SkillSource(root, Trust.USER)]
library = SkillLibrary(sources, cache=ParseCache(cache), racy_window_ns=0)  # files just written
library.load()
assert [s.name for s in library.skills()] == ["alpha", "beta"], library.skills()
assert ("gibberish.skills.parser" in sys.modules) is expect_parser
assert ("yaml" in sys.modules) is expect_parser
"""


def test_a_load_the_parse_cache_answers_imports_no_parser(tmp_path: Path):
    root = tmp_path / "skills"
    for name in ("alpha", "beta"):
        make_skill(root, name, skill_text(name))
    cache = tmp_path / "cache" / "parsed.pickle"
    for expect_parser in ("yes", "no"):  # the first load parses and saves, the next does not
        result = subprocess.run(
            [sys.executable, "-c", LOAD, str(root), str(cache), expect_parser],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-2000:]


def test_the_tray_forgets_module_sources_read_while_importing():
    from gibberish.ui.lifecycle import forget_module_sources

    assert linecache.getlines(__file__)
    assert __file__ in linecache.cache
    forget_module_sources()
    assert __file__ not in linecache.cache
    assert linecache.getlines(__file__)  # a traceback still reads its lines from the file
