"""Say when secrets are not kept: a keyring backend that stores nothing (``keyring``'s null
backend, or any backend that accepts a value and gives nothing back) makes ``gibberish
doctor`` warn and ``gibberish secrets set`` say the value was not stored; a plain-text one
is a warning in both. Each test installs a test backend, never the real keyring."""

from __future__ import annotations

import json
from collections.abc import Iterator

import keyring
import keyring.backend
import keyring.backends.null
import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.trust.secrets import SecretStore, SecretStoreError
from tests.trust.conftest import MemoryKeyring

SECRET_TOOL = """
### show_token

Print whether the token arrived.

#### Parameters

None.

#### Command

```bash
printenv API_TOKEN
```
"""


class ForgetfulKeyring(MemoryKeyring):
    """Claims to be a good keyring (priority 5), accepts every value, keeps none."""

    def set_password(self, service: str, username: str, password: str) -> None:
        return None


@pytest.fixture(params=["null", "forgetful"])
def keeps_nothing(request) -> Iterator[keyring.backend.KeyringBackend]:
    previous = keyring.get_keyring()
    backend = keyring.backends.null.Keyring() if request.param == "null" else ForgetfulKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def keeps_everything() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def doctor_secrets() -> dict:
    result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {c["check"]: c for c in json.loads(result.output)}["secrets"]


def test_doctor_says_secrets_are_not_kept(keeps_nothing) -> None:
    check = doctor_secrets()
    assert check["ok"] is False
    assert "Secrets are not kept" in check["detail"] and "stores nothing" in check["detail"]
    assert type(keeps_nothing).__name__ in check["detail"]
    text = CliRunner().invoke(cli, ["doctor"]).output
    assert "warn secrets" in text and "ok   secrets" not in text


def test_setting_a_secret_says_it_was_not_stored(keeps_nothing, write_skill, invoke) -> None:
    write_skill("tokened", tools=SECRET_TOOL, extra="secrets: [API_TOKEN]\n")
    result = invoke("secrets", "set", "tokened", "API_TOKEN", input="s3cret\n")
    assert result.exit_code == 1
    assert "API_TOKEN for tokened" in result.output and "was not stored" in result.output
    assert "Stored" not in result.output and "s3cret" not in result.output
    assert "Traceback" not in result.output
    listed = invoke("secrets", "list", "tokened").output
    assert "missing" in listed  # the name is not recorded as set either


def test_a_store_that_keeps_nothing_raises_and_records_no_name(tmp_path) -> None:
    store = SecretStore(index_path=tmp_path / "index.json", backend=ForgetfulKeyring())
    with pytest.raises(SecretStoreError, match="was not stored") as raised:
        store.set("demo", "API_TOKEN", "s3cret")
    assert "s3cret" not in str(raised.value)
    assert store.names("demo") == []


def test_a_keyring_that_keeps_values_is_ok_and_the_probe_leaves_nothing(
    keeps_everything, write_skill, invoke
) -> None:
    check = doctor_secrets()
    assert check["ok"] is True, check
    assert keeps_everything.passwords == {}  # the probe value was deleted
    write_skill("tokened", tools=SECRET_TOOL, extra="secrets: [API_TOKEN]\n")
    stored = invoke("secrets", "set", "tokened", "API_TOKEN", input="s3cret\n")
    assert stored.exit_code == 0 and "Stored API_TOKEN for tokened." in stored.output


def test_a_plain_text_keyring_is_still_named(write_skill, invoke) -> None:
    """The tests' own keyring is keyrings.alt's plain file: kept, but readable."""
    check = doctor_secrets()
    assert check["ok"] is False and "plain text" in check["detail"]
    write_skill("tokened", tools=SECRET_TOOL, extra="secrets: [API_TOKEN]\n")
    stored = invoke("secrets", "set", "tokened", "API_TOKEN", input="s3cret\n")
    assert stored.exit_code == 0 and "plain text" in stored.output


def test_a_download_token_that_was_not_kept_is_not_reported_stored(keeps_nothing) -> None:
    result = CliRunner().invoke(cli, ["secrets", "source", "git.example.org"], input="tok-123\n")
    assert result.exit_code == 1 and "was not stored" in result.output
    assert "Stored a token" not in result.output and "tok-123" not in result.output
