"""Secrets a skill declares (``secrets: [GITHUB_TOKEN]``), kept in the system keyring.

Values live only in ``keyring`` (service ``gibberish``, user ``<skill>@<folder>/<NAME>``);
the index file ``secrets-index.json`` in the data folder holds the *names* that were set,
so the UI and ``gibberish secrets list`` can say what is set without touching the keyring.
The runner injects the resolved values into that one skill's runs only.

A secret is bound to the skill's *identity*, its name and the folder it lives in
(:func:`identity`: ``gh@<16 hex digits of the folder's real path>``), not to the name
alone: an imported skill that is also called ``gh`` lives elsewhere and gets nothing.
Secrets stored before binding existed are keyed by the bare name; they are still given
to bundled and user skills of that name, never to an untrusted (imported) one. Passing a
plain name to :meth:`SecretStore.set` stores such an unbound secret.

:meth:`SecretStore.plaintext_warning` says when the keyring backend keeps values in a
plain file (``keyrings.alt``'s ``PlaintextKeyring``, for one), so the CLI can warn;
:meth:`SecretStore.storage_warning` also says when it keeps nothing at all (``keyring``'s
null backend, a locked or missing one), and ``set`` reads every value back, so a secret
that was not kept is never reported as stored.

No value ever appears in a repr, a log line or an exception message: errors name the
skill and the secret, the mapping ``resolve`` returns prints ``'***'`` for every value,
and keyring errors are re-raised without their cause (whose text could echo a value).
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import os
import re
import secrets as secrets_module
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock
from filelock import Timeout as LockTimeout

from gibberish import paths
from gibberish.fileio import atomic_write_bytes
from gibberish.skills.model import SkillDefinition, Trust

if TYPE_CHECKING:  # keyring (some 70 modules) is imported when a secret is first used
    import keyring.backend

SERVICE = "gibberish"
INDEX_FILE_NAME = "secrets-index.json"

_SECRET_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_SKILL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}(@[0-9a-f]{16})?")

SkillRef = str | SkillDefinition
"""A skill: its definition (the secret is bound to its folder), or a bare name (unbound)."""


def identity(skill: SkillRef) -> str:
    """``name@<16 hex>`` for a skill definition (hash of its folder's real path); a bare
    name stays as it is."""
    if isinstance(skill, str):
        return skill
    folder = os.path.realpath(skill.directory)
    return f"{skill.name}@{hashlib.sha256(os.fsencode(folder)).hexdigest()[:16]}"


class SecretStoreError(Exception):
    """The keyring or the index could not be used; the message never contains a value."""


class MissingSecretError(SecretStoreError):
    """A skill declares secrets that are not set; the message says how to set them."""

    def __init__(self, skill: str, names: tuple[str, ...], message: str) -> None:
        super().__init__(message)
        self.skill = skill
        self.names = names
        self.message = message


class SecretValues(dict[str, str]):
    """The resolved secrets of one skill: a plain ``dict`` whose repr hides the values."""

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: '***'" for k in self) + "}"

    __str__ = __repr__


def set_command(skill: str, name: str) -> str:
    """The CLI command a person runs to set a secret (used in messages)."""
    return f"gibberish secrets set {skill} {name}"


class SecretStore:
    """Per-skill secrets in the keyring, with a names-only index in the data folder."""

    def __init__(
        self,
        *,
        index_path: Path | None = None,
        backend: keyring.backend.KeyringBackend | None = None,
    ) -> None:
        self.index_path = (
            Path(index_path) if index_path is not None else paths.data_dir() / INDEX_FILE_NAME
        )
        self._backend = backend
        self._lock = FileLock(str(self.index_path) + ".lock", timeout=10)

    def __repr__(self) -> str:
        return f"SecretStore(index_path={str(self.index_path)!r})"

    # -- public API ---------------------------------------------------------------------

    def set(self, skill: SkillRef, name: str, value: str) -> None:
        """Store ``value`` in the keyring and remember the name in the index."""
        skill = identity(skill)
        _check(skill, name)
        if not isinstance(value, str) or value == "":
            raise SecretStoreError(f"An empty value for {name} of {skill} was not stored.")
        user = _username(skill, name)
        try:
            backend = self._keyring()
            backend.set_password(SERVICE, user, value)
        except Exception as exc:
            raise SecretStoreError(_keyring_failure("store", skill, name, exc, value)) from None
        if not _keeps(backend, user, value):
            raise SecretStoreError(
                f"{name} for {skill} was not stored: the keyring backend "
                f"{_backend_name(backend)} did not keep it. {KEEP_ADVICE}"
            )
        self._update_index(skill, lambda names: names | {name})

    def get(self, skill: SkillRef, name: str) -> str | None:
        """The value stored for exactly this identity, or None when it is not set."""
        skill = identity(skill)
        _check(skill, name)
        try:
            return self._keyring().get_password(SERVICE, _username(skill, name))
        except Exception as exc:
            raise SecretStoreError(_keyring_failure("read", skill, name, exc)) from None

    def delete(self, skill: SkillRef, name: str) -> bool:
        """Remove the value and its name; False when neither existed."""
        skill = identity(skill)
        _check(skill, name)
        existed = False
        import keyring.errors

        try:
            self._keyring().delete_password(SERVICE, _username(skill, name))
            existed = True
        except keyring.errors.PasswordDeleteError:
            pass
        except Exception as exc:
            raise SecretStoreError(_keyring_failure("delete", skill, name, exc)) from None
        was_indexed = name in self.names(skill)
        if was_indexed:
            self._update_index(skill, lambda names: names - {name})
        return existed or was_indexed

    def names(self, skill: SkillRef) -> list[str]:
        """Names of the secrets set for ``skill``, sorted (from the index; no keyring access).

        For a skill definition this includes unbound (name-only) secrets it may use.
        """
        index = self._read_index()
        found = set(index.get(identity(skill), []))
        if isinstance(skill, SkillDefinition) and _may_use_unbound(skill):
            found |= set(index.get(skill.name, []))
        return sorted(found)

    def receives(self, skill: SkillDefinition) -> tuple[str, ...]:
        """The declared secrets a run of ``skill`` would be given (set for its identity).

        For the approval dialog and the CLI: names only, from the index.
        """
        available = set(self.names(skill))
        return tuple(name for name in skill.secrets if name in available)

    def resolve(self, skill: SkillDefinition) -> dict[str, str]:
        """Every secret ``skill`` declares, ready to inject, or ``MissingSecretError``."""
        values = SecretValues()
        missing: list[str] = []
        for name in skill.secrets:
            value = self.get(skill, name)
            if not value and _may_use_unbound(skill):
                value = self.get(skill.name, name)
            if value is None or value == "":
                missing.append(name)
            else:
                values[name] = value
        if missing:
            raise MissingSecretError(skill.name, tuple(missing), _missing_message(skill, missing))
        return values

    def storage_warning(self) -> str | None:
        """A sentence when secrets set now would not be kept, or kept in plain text; None
        when the keyring keeps them. Writes, reads back and deletes one probe value, as
        only a round trip shows a backend that accepts values and keeps nothing."""
        try:
            backend = self._keyring()
        except Exception as exc:
            return f"Secrets cannot be kept: no keyring can be used ({type(exc).__name__}). {KEEP_ADVICE}"
        probe = f"probe-{secrets_module.token_hex(8)}"
        try:
            backend.set_password(SERVICE, PROBE_USER, probe)
            kept = _keeps(backend, PROBE_USER, probe)
        except Exception as exc:
            return (
                f"Secrets cannot be kept: the keyring backend {_backend_name(backend)} "
                f"refused a value ({type(exc).__name__}). {KEEP_ADVICE}"
            )
        finally:
            with contextlib.suppress(Exception):
                backend.delete_password(SERVICE, PROBE_USER)
        if not kept:
            return (
                f"Secrets are not kept: the keyring backend {_backend_name(backend)} stores "
                f"nothing, so a secret you set is lost at once. {KEEP_ADVICE}"
            )
        return self.plaintext_warning()

    def plaintext_warning(self) -> str | None:
        """A sentence when the keyring backend stores values unencrypted; None otherwise."""
        try:
            backend = self._keyring()
        except Exception:
            return None
        plain = [b for b in _backends(backend) if _stores_plain_text(b)]
        if not plain:
            return None
        where = getattr(plain[0], "file_path", None)
        return (
            f"Secrets are stored in plain text by the keyring backend "
            f"{type(plain[0]).__module__}.{type(plain[0]).__name__}"
            + (f" (in {where})" if where else "")
            + ": anyone who can read that file can read them. Use a system keyring "
            "(GNOME Keyring, KWallet, macOS Keychain) or keyrings.alt's EncryptedKeyring."
        )

    # -- internals ----------------------------------------------------------------------

    def _keyring(self) -> keyring.backend.KeyringBackend:
        if self._backend is not None:
            return self._backend
        import keyring

        return keyring.get_keyring()

    def _read_index(self) -> dict[str, list[str]]:
        try:
            data = json.loads(self.index_path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            k: [n for n in v if isinstance(n, str)]
            for k, v in data.items()
            if isinstance(k, str) and isinstance(v, list)
        }

    def _update_index(
        self, skill: str, change: Callable[[builtins.set[str]], builtins.set[str]]
    ) -> None:
        try:
            self.index_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with self._lock:
                index = self._read_index()
                names = change(set(index.get(skill, [])))
                if names:
                    index[skill] = sorted(names)
                else:
                    index.pop(skill, None)
                text = json.dumps(index, sort_keys=True, indent=2) + "\n"
                atomic_write_bytes(self.index_path, text.encode("utf-8"))
        except (OSError, LockTimeout) as exc:
            raise SecretStoreError(
                f"The list of secret names in {self.index_path} could not be updated "
                f"({type(exc).__name__})."
            ) from None


KEEP_ADVICE = (
    "Use a system keyring (GNOME Keyring, KWallet, macOS Keychain, unlocked), or name one "
    "that keeps values in PYTHON_KEYRING_BACKEND."
)
PROBE_USER = "gibberish-storage-check"
"""The keyring entry ``storage_warning`` writes, reads back and deletes."""


def _keeps(backend: keyring.backend.KeyringBackend, user: str, value: str) -> bool:
    """Whether ``backend`` gives ``value`` back for ``user`` (a backend that stores nothing
    accepts it and returns None)."""
    try:
        return backend.get_password(SERVICE, user) == value
    except Exception:
        return False


def _backend_name(backend: keyring.backend.KeyringBackend) -> str:
    kind = type(backend)
    return f"{kind.__module__}.{kind.__name__}"


def _may_use_unbound(skill: SkillDefinition) -> bool:
    """Name-only secrets predate binding: never for a skill imported from outside."""
    return skill.trust is not Trust.UNTRUSTED


def _backends(backend: keyring.backend.KeyringBackend) -> list[keyring.backend.KeyringBackend]:
    """The backend, or the backends a chainer backend tries in turn."""
    inner = getattr(backend, "backends", None)
    return list(inner) if isinstance(inner, list | tuple) else [backend]


def _stores_plain_text(backend: keyring.backend.KeyringBackend) -> bool:
    kind = type(backend)
    return "plaintext" in kind.__name__.lower() or (
        kind.__module__.startswith("keyrings.alt") and "encrypt" not in kind.__name__.lower()
    )


def _check(skill: str, name: str) -> None:
    if not isinstance(skill, str) or not _SKILL_NAME.fullmatch(skill):
        raise ValueError(f"Not a skill name: {skill!r}.")
    if not isinstance(name, str) or not _SECRET_NAME.fullmatch(name):
        raise ValueError(
            f"Not a secret name: {name!r} (use letters, digits and _, like GITHUB_TOKEN)."
        )


def _username(skill: str, name: str) -> str:
    return f"{skill}/{name}"


def _keyring_failure(
    action: str, skill: str, name: str, exc: Exception, value: str | None = None
) -> str:
    detail = str(exc)
    if value:
        detail = detail.replace(value, "***")
    detail = detail.splitlines()[0] if detail else ""
    return (
        f"The keyring could not {action} {name} for {skill} "
        f"({type(exc).__name__}{': ' + detail if detail else ''})."
    )


def _missing_message(skill: SkillDefinition, missing: list[str]) -> str:
    """Says which folder's skill lacks them (secrets are bound to it) and how to set them."""
    if len(missing) == 1:
        what = f"the secret {missing[0]}, which is not set"
    else:
        what = f"the secrets {', '.join(missing)}, which are not set"
    what += f" for the skill in {skill.directory}"
    commands = " and ".join(f"`{set_command(skill.name, n)}`" for n in missing)
    return f"“{skill.name}” needs {what}: run {commands}."
