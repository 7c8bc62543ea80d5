"""PyYAML imported with its patterns compiled on first use, and the patterns of
``gibberish.lazy.lazy_pattern``: the same answers as compiled patterns, compiled once."""

from __future__ import annotations

import re
import subprocess
import sys

from gibberish.lazy import lazy_pattern

CHECK = r"""
import re, sys
compile_before = re.compile
from gibberish.yaml_import import yaml
assert re.compile is compile_before, "re.compile must be restored"
import yaml.reader, yaml.resolver
# PyYAML's own patterns are deferred...
pattern = yaml.reader.Reader.NON_PRINTABLE
assert not isinstance(pattern, re.Pattern), type(pattern)
# ...patterns compiled afterwards by anyone else are real ones.
assert isinstance(re.compile("x"), re.Pattern)
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
data = yaml.load("a: yes\nb: 1.5\nc: 2001-12-14\nd: 0x1f\ne: ~\nf: text\ng: 1.0.0\n", Loader=loader)
assert data["a"] is True and data["b"] == 1.5 and str(data["c"]) == "2001-12-14", data
assert data["d"] == 31 and data["e"] is None and data["f"] == "text" and data["g"] == "1.0.0", data
# The pure-Python reader's check for unprintable characters still refuses them.
try:
    yaml.load("a: \x07", Loader=yaml.SafeLoader)
except yaml.reader.ReaderError:
    pass
else:
    raise AssertionError("an unprintable character was accepted")
print("ok")
"""


def test_yaml_is_imported_with_its_patterns_deferred_and_reads_the_same() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


def test_a_lazy_pattern_answers_as_the_compiled_one_and_compiles_once() -> None:
    pattern = lazy_pattern(r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE)
    assert "search" not in vars(pattern)  # nothing compiled yet
    compiled = re.compile(r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE)
    for text in ("x ABC-12 y", "none here", "a-1 b-2"):
        found, expected = pattern.search(text), compiled.search(text)
        assert (found and found.groups()) == (expected and expected.groups())
    assert pattern.findall("a-1 b-2") == compiled.findall("a-1 b-2")
    assert pattern.sub("#", "a-1 b-2") == "# #"
    assert pattern.pattern == compiled.pattern and pattern.flags == compiled.flags
    assert pattern.groupindex == compiled.groupindex
    search = pattern.search
    assert vars(pattern)["search"] == search  # kept: later reads skip the lookup
