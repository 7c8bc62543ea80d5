"""Reading a cache file pauses garbage collection and leaves it as it found it."""

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
