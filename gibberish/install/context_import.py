"""``gibberish context import SOURCE``: context blocks from a file, an archive or a URL.

A source is what ``install`` takes (a folder, a ``.zip``/``.skill``/tarball, a git
repository, ``github:``), a lone Markdown file on disk, a raw ``.md`` URL, or a GitHub
folder address (``https://github.com/o/r/tree/REF/PATH``, read as ``github:o/r/PATH@REF``).
Everything remote goes through the installer's fetcher (size caps, no links out, no
redirects to other schemes).

A lone Markdown file becomes a block of its own: its frontmatter ``name`` (else its file
name, made a valid name) and ``description`` (else its file name, with a warning). Every
block lands in gibberish's context folder with its provenance (``untrusted``); importing
a name again replaces the block, and says so.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from msgspec import Struct, field

from gibberish.assistant.context_blocks import DEFAULT_CONTEXT_BUDGET, ContextBlock
from gibberish.assistant.context_folders import ImportError_, install_block
from gibberish.install.discover import skill_folders
from gibberish.install.download import download
from gibberish.install.fetch import FetchError, Limits, fetch
from gibberish.install.sources import SourceError, parse_source
from gibberish.redaction import scrub, without_credentials
from gibberish.skills.fields import is_valid_skill_name

_TREE_URL = re.compile(
    r"^https://github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)/tree/(?P<ref>[^/]+)(?P<path>/.*)?$"
)
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


class Imported(Struct):
    block: ContextBlock
    replaced: bool
    warnings: list[str] = field(default_factory=list)


def import_context(text: str, *, budget: int = DEFAULT_CONTEXT_BUDGET) -> list[Imported]:
    """Import every block ``text`` names; ImportError_ (with a sentence) when it cannot.

    The fetch uses ``text`` as typed; the provenance kept and every message shown carry it
    without credentials (``user:token@``, ``?token=``; :mod:`gibberish.redaction`)."""
    try:
        return _import_context(text.strip(), budget)
    except ImportError_ as exc:
        raise ImportError_(scrub(str(exc))) from None


def _import_context(text: str, budget: int) -> list[Imported]:
    tree = _TREE_URL.match(text)
    if tree:  # a repository folder on GitHub: the same folder through git
        path = (tree["path"] or "").rstrip("/")
        text = f"github:{tree['owner']}/{tree['repo']}{path}@{tree['ref']}"
    with _staged(text) as (root, kind):
        folders = skill_folders(root)
        if not folders:
            raise ImportError_(f"{text}: no SKILL.md and no Markdown file to import.")
        results = [_one(folder, text, kind) for folder in folders]
    for result in results:
        if result.block.tokens > budget:
            result.warnings.append(
                f"{result.block.name} is ~{result.block.tokens} tokens, over the context "
                f"budget of {budget}: in a request only its most relevant sections fit."
            )
    return results


@contextmanager
def _staged(text: str) -> Iterator[tuple[Path, str]]:
    """A private folder holding what ``text`` names, and the provenance kind."""
    with tempfile.TemporaryDirectory(prefix="gibberish-context-") as scratch:
        root = Path(scratch) / "staged"
        local = Path(text).expanduser()
        if local.is_file() and local.suffix.lower() == ".md" and local.name != "SKILL.md":
            _markdown_as_skill(local.read_bytes(), local.name, root)
            yield root, "folder"
            return
        if text.startswith(("http://", "https://")) and _names_markdown(text):
            body = Path(scratch) / "download"
            try:
                download(text, body, Limits())
            except FetchError as exc:
                raise ImportError_(str(exc)) from None
            _markdown_as_skill(body.read_bytes(), urlsplit(text).path.rsplit("/", 1)[-1], root)
            yield root, "url"
            return
        try:
            source = parse_source(text)
            with fetch(source, workdir=Path(scratch)) as staged:
                yield (
                    staged.root,
                    {"archive": "zip", "folder": "folder"}.get(source.kind, source.kind),
                )
        except (FetchError, SourceError) as exc:
            raise ImportError_(str(exc)) from None


def _names_markdown(url: str) -> bool:
    """Whether a URL's path (its query aside: ``?token=…``) ends in ``.md``."""
    try:
        return urlsplit(url).path.lower().endswith(".md")
    except ValueError:
        return False


def _markdown_as_skill(data: bytes, file_name: str, root: Path) -> None:
    """A lone Markdown file as ``root/<name>/SKILL.md`` (its name filled in if missing)."""
    fields, body = _split(data.decode("utf-8", errors="replace"))
    name = fields.get("name")
    if not (isinstance(name, str) and is_valid_skill_name(name)):
        fields["name"] = _valid_name(file_name.rsplit(".", 1)[0])
    fields.setdefault("x-file-name", file_name)
    folder = root / fields["name"]
    folder.mkdir(parents=True)
    _write(folder / "SKILL.md", fields, body)


def _split(text: str) -> tuple[dict, str]:
    match = _FRONT.match(text)
    if not match:
        return {}, text
    try:
        loaded = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        loaded = None
    return (loaded if isinstance(loaded, dict) else {}), text[match.end() :]


def _write(path: Path, fields: dict, body: str) -> None:
    front = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True)
    path.write_text(f"---\n{front}---\n\n{body.lstrip()}", encoding="utf-8")


def _valid_name(stem: str) -> str:
    """``stem`` as a skill name: lowercase letters, digits and single hyphens."""
    name = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")[:64].strip("-")
    return name or "imported"


def _fill_in_description(skill_md: Path) -> list[str]:
    """A staged SKILL.md without a description gets its file name as one, with a warning."""
    fields, body = _split(skill_md.read_text("utf-8", errors="replace"))
    shown = str(fields.pop("x-file-name", "") or f"{skill_md.parent.name}/SKILL.md")
    description = fields.get("description")
    if isinstance(description, str) and description.strip():
        if shown != f"{skill_md.parent.name}/SKILL.md":  # a lone file: drop the helper field
            _write(skill_md, fields, body)
        return []
    fields["description"] = shown
    _write(skill_md, fields, body)
    return [f"{shown} has no description; its file name stands in for one."]


def _one(folder: Path, text: str, kind: str) -> Imported:
    warnings = _fill_in_description(folder / "SKILL.md")
    declared, _ = _split((folder / "SKILL.md").read_text("utf-8", errors="replace"))
    name = declared.get("name")
    name = name if isinstance(name, str) and is_valid_skill_name(name) else folder.name
    try:
        block, replaced = install_block(folder, name, without_credentials(text), kind)
    except OSError as exc:
        raise ImportError_(f"{folder.name}: cannot be imported ({exc.strerror}).") from None
    return Imported(block, replaced, warnings)
