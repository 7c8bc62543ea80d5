"""Bringing skills in: parse a source, fetch it safely, check it, install it all or nothing
(the user's folder or a project's), keep the record and the lock, update."""
