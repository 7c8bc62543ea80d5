"""What a run a *model* started may read: never credentials, and nothing outside the
project without asking.

A person who runs ``files.read_file ~/.ssh/id_ed25519`` by hand reads what they chose.
A model that asks for the same run may be following instructions hidden in text it was
fed, and whatever the tool prints goes back to it. So for a model-started run (MCP,
``ask``, voice) the Engine applies :func:`limit_model_run` after the decision table:

* an argument that names a credential place (:mod:`gibberish.trust.credentials`) the
  skill does not declare is **refused**, saying why — with or without the sandbox, and
  without one it is the only thing that stands in the way;
* so does an argument inside a version-control folder (``.git/config``,
  ``.hg/hgrc``: a remote's address may hold a token), wherever it is;
* what a model-started run may read is a list, not a list of exceptions: its project
  folder, the skill's own folder and the places the skill declares. An argument that
  names any other path **asks first**, naming what will be read; ``--yes`` does not
  answer that question. The home folder is never a project (nor is any folder above
  it): an agent started in ``~`` has no project, so every path in the home folder the
  skill did not declare asks;
* the run's sandbox hides every undeclared credential place (empty folders and files),
  which also covers a tool that reaches them by itself (``grep -r`` over the home).

Arguments are the model's *values*, not the words of the skill's command template: a
value is taken as a path (``~`` is the home folder, a relative one is taken from the
working folder), resolved through symbolic links, and compared with both.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from gibberish.skills.model import SkillDefinition
from gibberish.trust import credentials
from gibberish.trust.decision import Decision

MAX_SHOWN = 5


class RunOrigin(StrEnum):
    """Who picked the tool and its arguments."""

    PERSON = "person"
    MODEL = "model"
    """A model or the voice recognizer proposed it (MCP, ``ask``, ``listen``, the tray's
    proposals); the person may not have looked at the arguments."""


class ModelReads(Struct, frozen=True):
    """Paths among a model's arguments: credential places, and places outside the project."""

    credentials: tuple[Path, ...] = ()
    outside: tuple[Path, ...] = ()


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _as_paths(value: str, *, home: Path, workdir: Path) -> list[str]:
    """The path ``value`` names, lexically and through links (both are checked)."""
    if not value or "\0" in value:
        return []
    from_home = value == "~" or value.startswith("~/")
    joined = os.path.join(home, value[2:]) if from_home else os.path.join(workdir, value)
    lexical = os.path.normpath(joined)
    return list(dict.fromkeys([lexical, os.path.realpath(lexical)]))


def _inside(path: str, folder: str, real: str) -> bool:
    """``path`` is ``folder`` or below it, by its own name or by its real path ``real``."""
    return credentials.within(path, real) or credentials.within(path, folder)


def _named_credential(path: str, allowed: Sequence[str]) -> bool:
    declared = any(credentials.within(path, a) for a in allowed)
    named = credentials.names_a_credential(path) or credentials.names_vcs_internals(path)
    return not declared and named


def no_project(project: Path, home: Path) -> bool:
    """The home folder, or a folder above it (``/``, ``/home``), is never a project."""
    folder, real = str(project), os.path.realpath(project)
    home_text, home_real = str(home), os.path.realpath(home)
    return any(credentials.within(h, f) for h in (home_text, home_real) for f in (folder, real))


def check_arguments(
    arguments: Mapping[str, Any],
    *,
    workdir: Path,
    skill: SkillDefinition,
    guarded: Sequence[tuple[str, str]],
    home: Path,
    project: Path | None,
) -> ModelReads:
    """Which of a model's argument values name a guarded credential place (``guarded``:
    place and real path; or a path with a credential's or version-control folder's name
    in it the skill does not declare) or a path outside the project (None: there is
    none), the skill's folder and the places it declares."""
    declared = credentials.expand_declared(skill.credentials, {"HOME": str(home)})
    allowed = [os.path.realpath(d) for d in declared]
    folders = [skill.directory, *declared] + ([project] if project is not None else [])
    own = [(str(f), os.path.realpath(f)) for f in folders]
    found_credentials: list[Path] = []
    outside: list[Path] = []
    for value in (s for v in arguments.values() for s in _strings(v)):
        candidates = _as_paths(value, home=home, workdir=workdir)
        hit = next((c for c in candidates for p, r in guarded if _inside(c, p, r)), None)
        if hit is None:
            hit = next((c for c in candidates if _named_credential(c, allowed)), None)
        if hit is not None:
            found_credentials.append(Path(hit))
            continue
        for candidate in candidates:
            if not any(_inside(candidate, f, r) for f, r in own):
                outside.append(Path(candidate))
                break
    return ModelReads(tuple(dict.fromkeys(found_credentials)), tuple(dict.fromkeys(outside)))


def _absolute_words(words: Sequence[str]) -> list[str]:
    """Absolute paths among a command's words, also after ``--option=``."""
    out = []
    for word in words:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if value.startswith("/"):
            out.append(value)
    return out


def _shown(found: tuple[Path, ...]) -> str:
    names = [str(p) for p in found[:MAX_SHOWN]]
    more = len(found) - MAX_SHOWN
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def refusal(ref: str, skill: SkillDefinition, found: tuple[Path, ...], *, sandboxed: bool) -> str:
    """Why a model-started run that names a credential place does not run."""
    kind = credentials.kind_of(found[0])
    guard = (
        "its sandbox would hide it anyway"
        if sandboxed
        else "there is no sandbox (bubblewrap) here to hide it, so gibberish checks the "
        "arguments instead"
    )
    return (
        f"Not run: a model (or what was heard) started {ref}, which would read "
        f"{_shown(found)}, where {kind} are kept. "
        f"A run a model started never reads credentials ({guard}), unless the skill "
        f"declares the place (credentials: [...] in its SKILL.md) and you approved it. "
        f"If you meant it, run it yourself: gibberish run {ref} (skill {skill.name})."
    )


def project_folder(
    run_dir: Path, context_dir: Path | None, find_root: Callable[[Path], Path | None]
) -> Path:
    """The focused project a model's reads are measured against: the repository root
    of the folder the request came from (``find_root``: the runner's git root lookup,
    handed in because trust/ sits above runner/), else that folder itself (an agent's
    working folder), else the folder the run works in."""
    if context_dir is None or not Path(context_dir).is_dir():
        return run_dir
    return find_root(Path(context_dir)) or Path(context_dir).resolve()


def limit_model_run(
    origin: RunOrigin,
    decision: Decision,
    *,
    ref: str,
    skill: SkillDefinition,
    arguments: Mapping[str, Any],
    workdir: Path,
    sandboxed: bool,
    argv: Sequence[str] = (),
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    confirmed: bool = False,
) -> tuple[Decision, tuple[str, ...]]:
    """The decision for a run ``origin`` started, and the places its sandbox hides.

    ``argv`` is the rendered command: an absolute path among its words (the skill's own
    template, ``cat ~/.aws/credentials``) that is an undeclared credential place is
    refused too — reading it needs ``credentials:`` — though only the model's values
    count as reads outside the ``project`` (default: ``workdir``, where relative values
    are taken from). ``confirmed``: the person pressed Run on these values in the form
    (its output goes to them), which answers the read-outside question, never a refusal."""
    if origin is RunOrigin.PERSON:
        return decision, ()
    env = os.environ if env is None else env
    guarded = credentials.guarded_places(env, skill.credentials, workdir=workdir)
    hidden = credentials.hidden_places(guarded)
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    project = workdir if project is None else project
    place: Path | None = None if no_project(project, home) else project
    reads = check_arguments(
        arguments, workdir=workdir, skill=skill, guarded=guarded, home=home, project=place
    )
    words = {str(i): w for i, w in enumerate(_absolute_words(argv[1:]))}
    in_template = check_arguments(
        words, workdir=workdir, skill=skill, guarded=guarded, home=home, project=place
    )
    found = tuple(dict.fromkeys(reads.credentials + in_template.credentials))
    if found:
        return Decision.refuse(refusal(ref, skill, found, sandboxed=sandboxed)), hidden
    if not reads.outside or decision.refused or confirmed:
        return decision, hidden
    return _asked_about_reads(decision, ref, reads.outside, project, place is not None), hidden


def _asked_about_reads(
    decision: Decision, ref: str, found: tuple[Path, ...], project: Path, is_project: bool
) -> Decision:
    """The decision once it asks, and a person must answer, about reads outside the
    project (``found``)."""
    where = (
        f"outside {project}"
        if is_project
        else f"with no project open ({project} is the home folder or above it, never a project)"
    )
    question = (
        f"A model (or what was heard) asks {ref} to read {_shown(found)}, {where}; "
        "gibberish asks before a model reads outside the project."
    )
    outside = tuple(str(p) for p in found)
    if decision.runs:  # a read that would have run unasked: a person must answer
        return replace(Decision.ask(question), reads_outside=outside, person_must_answer=True)
    return replace(
        decision,
        reason=f"{question} {decision.reason}",
        reads_outside=outside,
        person_must_answer=True,
    )
