"""Moved to :mod:`gibberish.trust.approved_copies` (a trust rule, Qt-free).

Re-exported here while branches that still import this path are merged.
"""

from gibberish.trust.approved_copies import MAX_FILE, approved, diff, keep, read_text

__all__ = ["MAX_FILE", "approved", "diff", "keep", "read_text"]
