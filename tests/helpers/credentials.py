"""A home folder with a credential in every place a model-started run must not read.

Each credential file holds its own canary, so a test can tell exactly which one leaked.
``project`` is a git working tree (the focused project) with a ``.env`` of its own.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from gibberish import paths

#: (name, path under HOME) — one per class of place.
HOME_SECRETS = (
    ("ssh", ".ssh/id_ed25519"),
    ("gnupg", ".gnupg/private-keys-v1.d/key.key"),
    ("aws", ".aws/credentials"),
    ("gcloud", ".config/gcloud/credentials.db"),
    ("kube", ".kube/config"),
    ("netrc", ".netrc"),
    ("docker", ".docker/config.json"),
    ("keyring", ".local/share/keyrings/login.keyring"),
    ("browser", ".mozilla/firefox/p.default/logins.json"),
    ("git-credentials", ".git-credentials"),
)


@dataclass(frozen=True)
class Planted:
    home: Path
    project: Path
    files: dict[str, Path]
    canaries: dict[str, str]

    def leaked(self, text: str) -> list[str]:
        """Names of the credentials whose canary appears in ``text``."""
        return [name for name, canary in self.canaries.items() if canary in text]


def plant(root: Path) -> Planted:
    """Credentials under ``$HOME``, in the project's ``.env`` and in gibberish's own state."""
    home = Path(os.environ["HOME"])
    files: dict[str, Path] = {}
    for name, rel in HOME_SECRETS:
        files[name] = home / rel
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    (project / "README.md").write_text("the project\n")
    files["dotenv"] = project / ".env"
    files["gibberish-log"] = paths.state_dir() / "gibberish.log"
    canaries = {}
    for name, path in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        canaries[name] = f"canary-{name}-{uuid.uuid4().hex}"
        path.write_text(canaries[name] + "\n")
    return Planted(home, project, files, canaries)
