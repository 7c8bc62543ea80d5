"""The API key of an OpenAI-compatible model server, kept in the system keyring.

A key is a secret: it never goes into ``config.toml`` (which any program of the user can
read) but into the keyring, through the same store as skill secrets, under an owner name no
skill can have (skill names take no dots). ``gibberish model-key set`` stores it.
"""

from __future__ import annotations

from gibberish.trust.secrets import SecretStore, SecretStoreError

OWNER = "gibberish.model"
NAME = "API_KEY"


def model_api_key(store: SecretStore | None = None) -> str | None:
    """The stored key, or None (also when the keyring cannot be read: the server will say
    it wants a key, which is the clearer message)."""
    try:
        return (store or SecretStore()).get(OWNER, NAME) or None
    except SecretStoreError:
        return None


def store_model_api_key(value: str, store: SecretStore | None = None) -> None:
    """Store ``value`` (``SecretStoreError`` with a value-free message on failure)."""
    (store or SecretStore()).set(OWNER, NAME, value)


def delete_model_api_key(store: SecretStore | None = None) -> bool:
    return (store or SecretStore()).delete(OWNER, NAME)
