"""What the tray holds at rest: keyring only once a key or secret is used, no module sources."""

from __future__ import annotations

import linecache
import subprocess
import sys

CHECK = """
import sys
import gibberish.app, gibberish.trust.keys, gibberish.trust.secrets, gibberish.trust.approvals
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


def test_the_tray_forgets_module_sources_read_while_importing():
    from gibberish.ui.lifecycle import forget_module_sources

    assert linecache.getlines(__file__)
    assert __file__ in linecache.cache
    forget_module_sources()
    assert __file__ not in linecache.cache
    assert linecache.getlines(__file__)  # a traceback still reads its lines from the file
