"""Secrets a skill declares (``secrets: [GITHUB_TOKEN]``), kept in the system keyring.

Values live only in ``keyring`` (service ``gibberish``, user ``<skill>/<NAME>``); the
index file ``secrets-index.json`` in the data folder holds the *names* that were set, so
the UI and ``gibberish secrets list`` can say what is set without touching the keyring.
The runner injects the resolved values into that one skill's runs only.

No value ever appears in a repr, a log line or an exception message: errors name the
skill and the secret, the mapping ``resolve`` returns prints ``'***'`` for every value,
and keyring errors are re-raised without their cause (whose text could echo a value).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
from filelock import FileLock
from filelock import Timeout as LockTimeout

from gibberish import paths
from gibberish.fileio import atomic_write_bytes
from gibberish.skills.model import SkillDefinition

SERVICE = "gibberish"
INDEX_FILE_NAME = "secrets-index.json"

_SECRET_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_SKILL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


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

    def set(self, skill: str, name: str, value: str) -> None:
        """Store ``value`` in the keyring and remember the name in the index."""
        _check(skill, name)
        if not isinstance(value, str) or value == "":
            raise SecretStoreError(f"An empty value for {name} of {skill} was not stored.")
        try:
            self._keyring().set_password(SERVICE, _username(skill, name), value)
        except Exception as exc:
            raise SecretStoreError(_keyring_failure("store", skill, name, exc, value)) from None
        self._update_index(skill, lambda names: names | {name})

    def get(self, skill: str, name: str) -> str | None:
        """The value, or None when it is not set."""
        _check(skill, name)
        try:
            return self._keyring().get_password(SERVICE, _username(skill, name))
        except Exception as exc:
            raise SecretStoreError(_keyring_failure("read", skill, name, exc)) from None

    def delete(self, skill: str, name: str) -> bool:
        """Remove the value and its name; False when neither existed."""
        _check(skill, name)
        existed = False
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

    def names(self, skill: str) -> list[str]:
        """Names of the secrets set for ``skill``, sorted (from the index; no keyring access)."""
        return sorted(self._read_index().get(skill, []))

    def resolve(self, skill: SkillDefinition) -> dict[str, str]:
        """Every secret ``skill`` declares, ready to inject, or ``MissingSecretError``."""
        values = SecretValues()
        missing: list[str] = []
        for name in skill.secrets:
            value = self.get(skill.name, name)
            if value is None or value == "":
                missing.append(name)
            else:
                values[name] = value
        if missing:
            raise MissingSecretError(skill.name, tuple(missing), _missing_message(skill, missing))
        return values

    # -- internals ----------------------------------------------------------------------

    def _keyring(self) -> keyring.backend.KeyringBackend:
        return self._backend if self._backend is not None else keyring.get_keyring()

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

    def _update_index(self, skill: str, change) -> None:
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
    if len(missing) == 1:
        what = f"the secret {missing[0]}, which is not set"
    else:
        what = f"the secrets {', '.join(missing)}, which are not set"
    commands = " and ".join(f"`{set_command(skill.name, n)}`" for n in missing)
    return f"“{skill.name}” needs {what}: run {commands}."
