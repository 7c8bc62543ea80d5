"""Reading a cache file: collection paused, then as found; records restored from every field."""

from __future__ import annotations

import gc

import pytest

from gibberish.skills.cache import without_collection


@pytest.mark.parametrize("enabled", [True, False])
def test_collection_is_paused_inside_and_left_as_it_was(enabled):
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        with without_collection():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(ValueError), without_collection():
            raise ValueError("a damaged file")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_a_record_is_restored_from_exactly_one_value_per_field():
    from gibberish.skills.cache import _every_field
    from gibberish.skills.entry import Tree
    from gibberish.skills.model import Trust

    make = _every_field(Tree)
    assert make(("/a",), (), True, False) == Tree(("/a",), (), True, False)
    for wrong in ((("/a",), (), True), (("/a",), (), True, False, 1), ()):
        with pytest.raises(ValueError):
            make(*wrong)
    assert _every_field(Trust) is Trust  # not a record: the class itself
