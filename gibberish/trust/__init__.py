"""Trust: who may run what, and in which mode. Qt-free; imported by the Engine.

* ``fingerprint`` — SHA-256 of every file in a skill folder, and what changed;
* ``policy``      — ``ToolPolicy``, ``ApprovalState`` and ``decide`` (the docs/adr/0010-trust-table.md table);
* ``decision``    — the ``Decision`` value the tray, CLI and model router act on;
* ``approvals``   — the signed, locked, atomically written approval store;
* ``keys``        — the store's HMAC key: keyring, or a 0600 file when that is insecure;
* ``secrets``     — per-skill secrets in the keyring, names-only index;
* ``provenance``  — ``.gibberish-source.json``: an imported (untrusted) skill's origin;
* ``context`` / ``modes`` — focused app, microphone, and the Global/Dev/Meeting/Writer mode.

Nothing is imported here so that using one module does not load keyring or psutil.
See docs/trust.md.
"""
