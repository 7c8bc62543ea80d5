"""Reading a cache file: collection paused, then as found; objects restored field by field."""

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


def test_the_unrolled_setstate_sets_every_field_and_refuses_another_shape():
    from types import SimpleNamespace

    from gibberish.skills.cache import _unrolled_setstate

    restore = _unrolled_setstate(("first", "second"))
    target = SimpleNamespace()
    restore(target, ["a", 2])
    assert (target.first, target.second) == ("a", 2)
    for wrong in (["a"], ["a", 2, 3], []):
        with pytest.raises(ValueError):
            restore(SimpleNamespace(), wrong)
    with pytest.raises(ValueError):
        _unrolled_setstate(("ok", "x); import os; (y"))
