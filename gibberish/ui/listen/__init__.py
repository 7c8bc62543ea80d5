"""Listening from the tray: one utterance on a worker, and what was heard launched."""
