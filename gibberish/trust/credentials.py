"""Where credentials live, and which of them a run a *model* started may not see.

A read-only tool is harmless when a person picks what it reads; it is not when the
reader is a model fed untrusted text (a web page, an issue, a file in a cloned
repository), because whatever the tool prints goes back to the model and, from there,
to any tool or agent that can send it on. So, as the sandboxes of Codex CLI and Claude
Code deny reading credential paths, every run a model started (MCP, ``ask``, voice)
gets the places below hidden — an empty folder, or an empty file — unless its skill
declares the place (``credentials: [~/.aws]``) and the person approved that skill.
A run a person started by hand reads what they chose.

This module only *names* the places (it starts nothing and knows nothing of bwrap):
the Engine hands the list to the sandbox, and :mod:`gibberish.trust.model_reads`
checks a model's arguments against it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from gibberish import paths

#: Under the home folder: keys, tokens, keyrings, password stores, browser profiles.
HOME_PLACES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".pypirc",
    ".npmrc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".password-store",
    ".local/share/keyrings",
    ".local/share/python_keyring",
    ".local/share/kwalletd",
    ".pgpass",
    ".my.cnf",
    ".mozilla",
    ".thunderbird",
    ".pki",
    "snap/firefox",
    "snap/chromium",
    "snap/thunderbird",
    ".var/app/org.mozilla.firefox",
    ".var/app/org.mozilla.Thunderbird",
    ".var/app/org.chromium.Chromium",
    ".var/app/com.google.Chrome",
    ".var/app/com.brave.Browser",
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".gitconfig",
    ".hgrc",
)
#: The system's own secrets (readable when gibberish runs as root).
SYSTEM_PLACES = ("/etc/shadow", "/etc/gshadow", "/etc/ssl/private")
#: A path with one of these names in it is a credential place wherever it is (another
#: user's home, a mounted disk, a project's subfolder): the argument check's last line.
CREDENTIAL_NAMES = frozenset(
    {".ssh", ".gnupg", ".aws", ".azure", ".kube", ".netrc", ".git-credentials", ".pgpass"}
    | {".password-store", ".vault-token", ".pypirc", ".npmrc", "keyrings", "kwalletd"}
)
#: Version-control internals: a remote's address (``.git/config``), a credential store
#: (``.git/credentials``, ``.hg/hgrc``'s ``[auth]``) may hold a token. A model-started
#: run never reads inside these, wherever they are; they are not hidden from the run
#: (its own ``git status`` needs them), only refused as arguments.
VCS_NAMES = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", ".fslckout"})
#: Under the configuration folder (``~/.config`` or ``$XDG_CONFIG_HOME``).
CONFIG_PLACES = (
    "gcloud",
    "gh",
    "hub",
    "rclone",
    "op",
    "google-chrome",
    "chromium",
    "BraveSoftware",
    "microsoft-edge",
    "vivaldi",
    "keybase",
    "git/credentials",
    "git/config",
    "hg/hgrc",
)
#: Environment variables that move one of those places elsewhere.
PLACE_VARS = (
    "GNUPGHOME",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "CLOUDSDK_CONFIG",
    "DOCKER_CONFIG",
    "PASSWORD_STORE_DIR",
    "NETRC",
    "GH_CONFIG_DIR",
)
#: ``.env`` files in the folder a run works in.
ENV_FILE_PREFIX = ".env"
#: ``.env.example`` and the like hold no secrets: they show which ones to set.
ENV_TEMPLATES = (".example", ".sample", ".template", ".dist")
#: The one file of gibberish's own data folder that skills read: the notes.
NOTES_FILE = "notes.md"

KINDS = {
    ".ssh": "SSH keys",
    ".gnupg": "GnuPG keys",
    ".aws": "AWS credentials",
    ".kube": "Kubernetes credentials",
    "gcloud": "Google Cloud credentials",
    ".netrc": "login passwords",
    ".git-credentials": "git passwords",
    ".password-store": "a password store",
    "keyrings": "the desktop keyring",
    ENV_FILE_PREFIX: "environment secrets",
    ".git": "version-control settings (a remote's address may hold a token)",
    ".hg": "version-control settings (a remote's address may hold a token)",
    ".codex": "an agent's login",
    ".claude": "an agent's login",
}


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def _config_home(env: Mapping[str, str], home: Path) -> list[Path]:
    folders = [home / ".config"]
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg) and Path(xdg) != folders[0]:
        folders.append(Path(xdg))
    return folders


def _own_state() -> list[Path]:
    """gibberish's settings, approvals and their key, secret index, logs, remembered form
    values — everything but the notes file the bundled notes skills read and write."""
    found = [paths.config_file(), paths.state_dir()]
    try:
        entries = list(os.scandir(paths.data_dir()))
    except OSError:
        entries = []
    found += [Path(e.path) for e in entries if e.name != NOTES_FILE]
    return found


def _from_vars(env: Mapping[str, str]) -> list[Path]:
    found = []
    for name in PLACE_VARS:
        value = env.get(name, "")
        if value and os.path.isabs(value):
            found.append(Path(value))
    for value in env.get("KUBECONFIG", "").split(os.pathsep):
        if value and os.path.isabs(value):
            found.append(Path(value))
    return found


def _ssh_host_keys() -> list[Path]:
    """The SSH server's private host keys (``/etc/ssh/ssh_host_*_key``)."""
    try:
        entries = list(os.scandir("/etc/ssh"))
    except OSError:
        return []
    return [
        Path(e.path)
        for e in entries
        if e.name.startswith("ssh_host_") and not e.name.endswith(".pub")
    ]


def names_a_credential(path: str) -> bool:
    """``path`` has a credential folder or file name in it, or is a ``.env`` file."""
    parts = path.split("/")
    name = parts[-1]
    env_file = name == ENV_FILE_PREFIX or (
        name.startswith(ENV_FILE_PREFIX + ".") and not name.endswith(ENV_TEMPLATES)
    )
    return env_file or any(part in CREDENTIAL_NAMES for part in parts)


def names_vcs_internals(path: str) -> bool:
    """``path`` is a version-control folder or inside one (``.git/config``, ``.hg/hgrc``)."""
    return any(part in VCS_NAMES for part in path.split("/"))


def env_files(folder: Path) -> list[Path]:
    """``.env`` and ``.env.*`` files directly in ``folder`` (a project's secrets)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [Path(e.path) for e in entries if names_a_credential(e.name)]


@functools.lru_cache(maxsize=16)
def _fixed_places(home: str, configs: tuple[str, ...], moved: tuple[str, ...]) -> tuple[str, ...]:
    """The places that follow from the home and configuration folders and the variables
    alone, as strings (built once per environment: a model-started run checks them all)."""
    places = [os.path.join(home, rel) for rel in HOME_PLACES]
    for config in configs:
        places += [os.path.join(config, rel) for rel in CONFIG_PLACES]
    return tuple(dict.fromkeys([*places, *moved, *SYSTEM_PLACES]))


def _place_strings(env: Mapping[str, str], workdir: Path | None) -> list[str]:
    home = _home(env)
    configs = tuple(str(c) for c in _config_home(env, home))
    moved = tuple(str(p) for p in _from_vars(env))
    places = list(_fixed_places(str(home), configs, moved))
    places += [str(p) for p in _ssh_host_keys() + _own_state()]
    if workdir is not None:
        places += [str(p) for p in env_files(workdir)]
    return list(dict.fromkeys(places))


def credential_places(env: Mapping[str, str], *, workdir: Path | None = None) -> list[Path]:
    """Every place credentials may be kept, absolute, whether or not it exists now."""
    return [Path(p) for p in _place_strings(env, workdir)]


def expand_declared(declared: Iterable[str], env: Mapping[str, str]) -> list[Path]:
    """A skill's ``credentials:`` entries as absolute paths (``~`` is the home folder)."""
    home = _home(env)
    out = []
    for entry in declared:
        out.append(home / entry[2:] if entry.startswith("~/") else Path(entry))
    return out


def within(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or below it (both absolute and normalized; plain strings,
    because this runs for every place against every argument)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def guarded_places(
    env: Mapping[str, str], declared: Iterable[str], *, workdir: Path | None = None
) -> list[tuple[str, str]]:
    """Each credential place the skill does not declare, with its real path (links
    resolved once here, so a caller can compare many paths against them cheaply)."""
    allowed = [os.path.realpath(d) for d in expand_declared(declared, env)]
    out = []
    for place in _place_strings(env, workdir):
        # A place that does not exist holds nothing to read; resolving links (a system
        # call per path component) is paid only for those that do.
        real = os.path.realpath(place) if os.path.lexists(place) else place
        if not allowed or not any(within(real, a) or within(place, a) for a in allowed):
            out.append((place, real))
    return out


def hidden_places(guarded: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The guarded places that exist: what a model-started run's sandbox hides."""
    return tuple(place for place, _ in guarded if os.path.lexists(place))


def kind_of(place: Path) -> str:
    """A few words saying what is kept at ``place`` (for the refusal message)."""
    for part in reversed(place.parts):
        for key, words in KINDS.items():
            if part == key or part.startswith(key):
                return words
    return "credentials or gibberish's own state"
