"""A static audit of a skill folder: what it can do, and what looks wrong.

Shown before an install or an update and by ``gibberish audit``. It only *reads*: no file
of the skill is run, imported or opened as anything but bytes, links are never followed,
and every file is read up to a cap. What it reports:

* what the skill can do (information): every program its tools run, every script file
  it holds, the hosts its URLs name, the links inside it;
* what looks wrong (findings, ``high`` or ``warning``): credential places it reads,
  ``curl … | sh``-style downloads that run what they fetch, invisible or bidirectional
  Unicode, HTML comments and other text a person does not see but a model reads,
  instructions aimed at the model ("ignore previous instructions") and requests to send
  secrets somewhere.

A ``high`` finding means the install does not go ahead on ``--yes`` alone: the person
accepts it with its own flag (``--accept-risks``), having seen it.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from msgspec import Struct, field
from msgspec.structs import asdict

from gibberish.lazy import lazy_pattern
from gibberish.skills.model import SkillDefinition

HIGH, WARNING = "high", "warning"
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_FILES = 5000
SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php",
     ".ps1", ".bat", ".cmd", ".lua", ".fish"}
)  # fmt: skip
_SKIPPED_DIRS = frozenset({".git", "__pycache__", "node_modules"})
_PROVENANCE = ".gibberish-source.json"


class Finding(Struct, frozen=True):
    """One thing that looks wrong, where it is, and why it matters, in plain words."""

    severity: str
    kind: str
    file: str
    line: int
    excerpt: str
    why: str

    def format(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{self.severity:<7} {where}: {self.why}: {self.excerpt}"

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity across versions (line numbers move when text is added above)."""
        return (self.kind, self.file, self.excerpt)


class Audit(Struct):
    """The report on one skill folder."""

    skill: str
    programs: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    """Secrets it reads from the environment by name (``$GITHUB_TOKEN``)."""
    findings: list[Finding] = field(default_factory=list)

    @property
    def high(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == HIGH]

    def new_since(self, before: Audit | None) -> list[Finding]:
        """Findings not in ``before`` (an update shows what it brings)."""
        old = {f.key for f in before.findings} if before else set()
        return [f for f in self.findings if f.key not in old]

    def to_dict(self) -> dict[str, object]:
        return {
            "skill": self.skill,
            "programs": self.programs,
            "scripts": self.scripts,
            "hosts": self.hosts,
            "links": self.links,
            "secrets": self.secrets,
            "findings": [asdict(f) for f in self.findings],
        }

    def lines(self) -> list[str]:
        """The report for a terminal or a dialog, one line each."""
        out = []
        if self.programs:
            out.append("runs: " + ", ".join(self.programs))
        if self.scripts:
            out.append("scripts: " + ", ".join(self.scripts))
        if self.hosts:
            out.append("hosts named: " + ", ".join(self.hosts))
        if self.links:
            out.append("links: " + ", ".join(self.links))
        if self.secrets:
            out.append("secrets read from the environment: " + ", ".join(self.secrets))
        out.extend(f.format() for f in self.findings)
        return out


# -- the rules -------------------------------------------------------------------------------

_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
_INVISIBLE = {
    0x00AD, 0x034F, 0x115F, 0x1160, 0x180E, 0x200B, 0x200C, 0x2060, 0x2061, 0x2062,
    0x2063, 0x2064, 0x3164, 0xFEFF, 0xFFA0, *range(0xE0000, 0xE0080), *range(0xE0100, 0xE01F0),
}  # fmt: skip


def _char_class(codes: set[int]) -> str:
    """A character class of ``codes`` written as ranges: a class of several hundred single
    characters beyond U+FFFF is tested one by one, about forty times slower."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    parts = (
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in runs
    )
    return "[" + "".join(parts) + "]"


_HIDDEN_CHARS = lazy_pattern(_char_class(_BIDI | _INVISIBLE))
_URL = lazy_pattern(r"\b(?:https?|ftp|wss?)://[^\s<>\"'`)\]}|\\]+", re.IGNORECASE)
_ODD_HOSTS = lazy_pattern(
    r"(^|\.)(webhook\.site|requestbin\.\w+|pipedream\.net|ngrok(-free)?\.(io|app|dev)|"
    r"burpcollaborator\.net|oast\.\w+|interact\.sh|pastebin\.com|transfer\.sh|"
    r"bit\.ly|tinyurl\.com|t\.co|is\.gd)$",
    re.IGNORECASE,
)
_IP_HOST = lazy_pattern(r"^\d{1,3}(\.\d{1,3}){3}$")

_FETCHER = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)"
_RUNNER = r"(?:sudo\s+)?(?:env\s+)?(?:ba|z|k|da|fi)?sh|python\d?(?:\.\d+)?|node|perl|ruby|iex|invoke-expression|source"
_DOWNLOAD_RUN = [
    lazy_pattern(rf"\b{_FETCHER}\b[^\n|;&]*\|\s*(?:{_RUNNER})\b", re.IGNORECASE),
    lazy_pattern(rf"\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?\$\(\s*{_FETCHER}\b", re.IGNORECASE),
    lazy_pattern(rf"(?:\bsource|\.|\b(?:ba|z)?sh)\s+<\(\s*{_FETCHER}\b", re.IGNORECASE),
    lazy_pattern(rf"\b(?:iex|invoke-expression)\b[^\n]*\b{_FETCHER}\b", re.IGNORECASE),
]

_CREDENTIAL_PLACES = lazy_pattern(
    r"(~|\$HOME|\$\{HOME\}|/home/[^/\s]+|/root)?/?\.ssh/(id_[a-z0-9_]+|authorized_keys|"
    r"known_hosts|config)?|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.aws/(credentials|config)|"
    r"\.netrc\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.docker/config\.json|"
    r"\.kube/config\b|\.gnupg\b|\.config/gh/hosts\.yml|\.config/gcloud\b|"
    r"\.azure/(accessTokens|msal_token_cache)|/etc/shadow\b|\bsecurity\s+"
    r"(find|dump)-(generic|internet)-password|\bsecret-tool\s+lookup|\bkeychain\b.{0,20}"
    r"\b(dump|export|read)|Login Data\b|\bcookies\.sqlite\b|\bwallet\.dat\b|"
    r"\.(bash|zsh)_history\b|\.password-store\b",
    re.IGNORECASE,
)
_SECRET_ENV = lazy_pattern(
    r"\$\{?([A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|PRIVATE_KEY)"
    r"[A-Z0-9_]*)\}?"
)

_MODEL_AIMED = [
    lazy_pattern(
        r"\b(ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(previous|prior|above|earlier|"
        r"preceding|system|developer|original)\b[^.\n]{0,20}?\b(instructions?|prompts?|rules|"
        r"guidelines|directions|messages|context)\b",
        re.IGNORECASE,
    ),
    lazy_pattern(
        r"\byou are no longer\b|\bjailbreak mode\b|\bdeveloper mode enabled\b", re.IGNORECASE
    ),
    lazy_pattern(
        r"\b(do not|don't|never)\s+(tell|inform|mention\s+(this\s+)?to|reveal\s+(this\s+)?to|"
        r"alert|notify)\s+(the\s+)?(user|human|person|operator)\b",
        re.IGNORECASE,
    ),
    lazy_pattern(
        r"\bwithout\s+(telling|informing|asking|notifying|alerting)\s+the\s+(user|human|person)\b",
        re.IGNORECASE,
    ),
    lazy_pattern(r"<\|?im_start\|?>|<\|(system|endoftext)\|>|^\s*</?system>\s*$", re.IGNORECASE),
]
_EXFILTRATION = [
    lazy_pattern(
        r"\b(send|upload|post|transmit|exfiltrate|forward|leak|e-?mail|copy)\b[^.\n]{0,60}?"
        r"\b(credentials?|secrets?|tokens?|passwords?|private\s+keys?|api\s+keys?|ssh\s+keys?|"
        r"environment\s+variables|\.env\b|cookies|session\s+ids?)\b[^.\n]{0,60}?"
        r"\b(to|at)\s+(https?://|[a-z0-9-]+\.[a-z]{2,}\b|this\s+(url|address|server|endpoint)|"
        r"the\s+(following\s+)?(url|address|server|endpoint))",
        re.IGNORECASE,
    ),
    lazy_pattern(
        r"\b(curl|wget|http|nc|ncat|netcat)\b[^\n]*(-d|--data(-binary|-raw)?|-F|--form|-T|"
        r"--upload-file|--post-file|<)\s*[\"']?@?(~|\$HOME|/etc|\$\(\s*(cat|env|printenv)|"
        r"\$\(\s*base64)[^\n]*",
        re.IGNORECASE,
    ),
    lazy_pattern(r"\b(env|printenv|set)\s*\|\s*(curl|wget|nc|ncat|netcat)\b", re.IGNORECASE),
]
_HTML_COMMENT = lazy_pattern(r"<!--(.*?)(-->|\Z)", re.DOTALL)
_HIDDEN_MARKUP = [
    lazy_pattern(
        r"<[a-z][^>]*\bstyle\s*=\s*[\"'][^\"']*(display\s*:\s*none|visibility\s*:\s*hidden|"
        r"font-size\s*:\s*0|opacity\s*:\s*0(?!\.))",
        re.IGNORECASE,
    ),
    lazy_pattern(r"<[a-z][^>]*\shidden(\s|>|=)", re.IGNORECASE),
    lazy_pattern(r"^\s*\[(//|comment|_)\]\s*:\s*(#|<>)", re.IGNORECASE | re.MULTILINE),
]


# -- the walk --------------------------------------------------------------------------------


def audit_folder(folder: Path, skill: SkillDefinition | None = None, name: str = "") -> Audit:
    """The audit of the skill folder ``folder`` (``skill``: its parsed definition, for the
    programs its tools run). Reads files; runs nothing, follows no link."""
    report = Audit(name or (skill.name if skill else folder.name))
    if skill is not None:
        report.programs = _programs(skill)
    hosts: set[str] = set()
    for rel, path, st in _files(folder, report):
        if _is_script(rel, st.st_mode, path):
            report.scripts.append(rel)
        text = _read_text(path, st.st_size)
        if text is None:
            continue
        _scan_text(report, rel, text, hosts, markdown=rel.lower().endswith((".md", ".markdown")))
    report.hosts = sorted(hosts)
    report.findings.sort(key=lambda f: (f.severity != HIGH, f.file, f.line))
    return report


def _programs(skill: SkillDefinition) -> list[str]:
    seen: list[str] = []
    for tool in skill.tools:
        program = tool.command.program if tool.command else ""
        if program and program not in seen:
            seen.append(program)
    return seen


def _files(folder: Path, report: Audit) -> Iterator[tuple[str, Path, os.stat_result]]:
    count = 0
    for current, dirs, files in os.walk(folder, followlinks=False):
        base = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in sorted(dirs):
            if os.path.islink(base / name):
                report.links.append(f"{(base / name).relative_to(folder).as_posix()} → "
                                    f"{_printable(os.readlink(base / name))}")  # fmt: skip
        for name in sorted(files):
            path = base / name
            rel = path.relative_to(folder).as_posix()
            if rel == _PROVENANCE:
                continue
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                report.links.append(f"{_printable(rel)} → {_printable(os.readlink(path))}")
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            count += 1
            if count > MAX_FILES:
                report.findings.append(
                    Finding(WARNING, "too-many-files", ".", 0, f"more than {MAX_FILES}",
                            "too many files to read them all; the rest were not audited")
                )  # fmt: skip
                return
            yield _printable(rel), path, st


def _is_script(rel: str, mode: int, path: Path) -> bool:
    if os.path.splitext(rel)[1].lower() in SCRIPT_SUFFIXES or mode & 0o111:
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _read_text(path: Path, size: int) -> str | None:
    """The file as text, or None for a binary file (a NUL in its first 8 KiB)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(min(size, MAX_FILE_BYTES) + 1)
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")


def _scan_text(report: Audit, rel: str, text: str, hosts: set[str], *, markdown: bool) -> None:
    starts = _line_starts(text)
    folded = _folded(text)
    _scan_unicode(report, rel, text, starts)
    _scan_urls(report, rel, text, folded, starts, hosts)
    for patterns, severity, kind, why in _RULES:
        for pattern in patterns:
            for match in _matches(pattern, text, folded):
                report.findings.append(_finding(severity, kind, rel, text, starts, match, why))
    for match in _SECRET_ENV.finditer(text):
        if match.group(1) not in report.secrets:
            report.secrets.append(match.group(1))
    if markdown:
        _scan_hidden_markup(report, rel, text, folded, starts)
    _dedupe(report)


_RULES = [
    (_DOWNLOAD_RUN, HIGH, "download-and-run", "downloads a program and runs it unseen"),
    (_MODEL_AIMED, HIGH, "model-instruction", "an instruction aimed at the model"),
    (_EXFILTRATION, HIGH, "exfiltration", "asks to send secrets or files somewhere"),
    ([_CREDENTIAL_PLACES], HIGH, "credentials", "reads a place where credentials live"),
]


_FETCH_WORDS = ("curl", "wget", "fetch", "iwr", "irm", "invoke-webrequest", "invoke-restmethod")
_PEOPLE = ("user", "human", "person", "operator")
_NEEDS: dict[re.Pattern[str], tuple[tuple[str, ...], ...]] = {
    _DOWNLOAD_RUN[0]: (_FETCH_WORDS, ("|",)),
    _DOWNLOAD_RUN[1]: (_FETCH_WORDS, ("sh",), ("$(",)),
    _DOWNLOAD_RUN[2]: (_FETCH_WORDS, ("<(",)),
    _DOWNLOAD_RUN[3]: (_FETCH_WORDS, ("iex", "invoke-expression")),
    _CREDENTIAL_PLACES: ((
        ".ssh/", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".aws/", ".netrc",
        ".git-credentials", ".npmrc", ".pypirc", ".docker/config.json", ".kube/config",
        ".gnupg", ".config/gh/hosts.yml", ".config/gcloud", ".azure/accesstokens",
        ".azure/msal_token_cache", "/etc/shadow", "-generic-password", "-internet-password",
        "secret-tool", "keychain", "login data", "cookies.sqlite", "wallet.dat",
        "bash_history", "zsh_history", ".password-store",
    ),),
    _MODEL_AIMED[0]: (
        ("ignore", "disregard", "forget", "override"),
        ("instruction", "prompt", "rules", "guidelines", "directions", "messages", "context"),
    ),
    _MODEL_AIMED[1]: (("you are no longer", "jailbreak mode", "developer mode enabled"),),
    _MODEL_AIMED[2]: (
        ("do not", "don't", "never"),
        ("tell", "inform", "mention", "reveal", "alert", "notify"),
        _PEOPLE,
    ),
    _MODEL_AIMED[3]: (
        ("without",), ("telling", "informing", "asking", "notifying", "alerting"), _PEOPLE
    ),
    _MODEL_AIMED[4]: (("im_start", "<|", "system>"),),
    _EXFILTRATION[0]: (
        ("send", "upload", "post", "transmit", "exfiltrate", "forward", "leak", "mail", "copy"),
        ("credential", "secret", "token", "password", "private", "api", "ssh", "environment",
         ".env", "cookies", "session"),
    ),
    _EXFILTRATION[1]: (
        ("curl", "wget", "http", "nc", "netcat"), ("-d", "-f", "-t", "<"), ("~", "$home", "/etc", "$(")
    ),
    _EXFILTRATION[2]: (("|",), ("env", "printenv", "set"), ("curl", "wget", "nc", "netcat")),
    _URL: (("://",),),
    _HTML_COMMENT: (("<!--",),),
    _HIDDEN_MARKUP[0]: (("<",), ("style",), ("display", "visibility", "font-size", "opacity")),
    _HIDDEN_MARKUP[1]: (("<",), ("hidden",)),
    _HIDDEN_MARKUP[2]: (("[//]", "[comment]", "[_]"),),
}  # fmt: skip
"""For each rule's pattern, the words (lower case) it cannot match without: one of each
group. Looking for them in the text's case-folded copy (:func:`_folded`) is a plain
substring search, many times faster than the pattern, and exact: wherever the pattern
matches case-insensitively, the words are in the folded copy."""

_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The four characters beyond ASCII that a case-insensitive pattern takes for an ASCII
letter (dotted and dotless I, long S, the Kelvin sign); tests check there are no others."""


def _folded(text: str) -> str:
    """``text`` lower-cased character for character (the same length), so that a character
    a case-insensitive pattern takes for an ASCII letter is that letter in lower case."""
    return text.lower() if text.isascii() else text.translate(_FOLD).lower()


def _may_match(folded: str, needs: tuple[tuple[str, ...], ...]) -> bool:
    return all(any(word in folded for word in group) for group in needs)


_STARTS: dict[re.Pattern[str], tuple[str, ...]] = {
    _DOWNLOAD_RUN[0]: _FETCH_WORDS,
    _DOWNLOAD_RUN[1]: ("bash", "zsh", "sh"),
    _DOWNLOAD_RUN[3]: ("iex", "invoke-expression"),
    _MODEL_AIMED[0]: ("ignore", "disregard", "forget", "override"),
    _MODEL_AIMED[1]: ("you are no longer", "jailbreak mode", "developer mode enabled"),
    _MODEL_AIMED[2]: ("do not", "don't", "never"),
    _MODEL_AIMED[3]: ("without",),
    _EXFILTRATION[0]: (
        "send", "upload", "post", "transmit", "exfiltrate", "forward", "leak", "email",
        "e-mail", "copy",
    ),
    _EXFILTRATION[1]: ("curl", "wget", "http", "nc", "ncat", "netcat"),
    _EXFILTRATION[2]: ("env", "printenv", "set"),
    _URL: ("http", "ftp", "ws"),
    _HTML_COMMENT: ("<!--",),
}  # fmt: skip
"""Patterns that can only match where one of these words (lower case) begins: each
starts with ``\b(word|...)`` (or with the literal). They are tried only there, with
``pattern.match(text, i)``, which sees the character before ``i`` for ``\b``: exactly the
matches ``finditer`` finds, without trying every position of a long text (a megabyte of
XML schemas in the public Office skills)."""


def _matches(pattern: re.Pattern[str], text: str, folded: str) -> Iterator[re.Match[str]]:
    """``pattern``'s matches in ``text``; none looked for when its words are not there."""
    if not _may_match(folded, _NEEDS[pattern]):
        return iter(())
    words = _STARTS.get(pattern)
    return pattern.finditer(text) if words is None else _starting_at(pattern, text, folded, words)


def _starting_at(
    pattern: re.Pattern[str], text: str, folded: str, words: tuple[str, ...]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern that begins with one of ``words``: tried
    where a word begins in the folded copy, left to right, never inside a match."""
    places: set[int] = set()
    for word in words:
        at = folded.find(word)
        while at >= 0:
            places.add(at)
            at = folded.find(word, at + 1)
    end = 0
    for at in sorted(places):
        if at < end:
            continue
        match = pattern.match(text, at)
        if match is not None:
            yield match
            end = max(match.end(), at + 1)


def _scan_urls(
    report: Audit, rel: str, text: str, folded: str, starts: list[int], hosts: set[str]
) -> None:
    for match in _matches(_URL, text, folded):
        host = _host(match.group(0))
        if not host:
            continue
        hosts.add(host)
        if _ODD_HOSTS.search(host) or (_IP_HOST.match(host) and not _local(host)):
            report.findings.append(
                _finding(WARNING, "odd-host", rel, text, starts, match,
                         "a URL to a paste, webhook, tunnel or bare address")
            )  # fmt: skip


def _scan_hidden_markup(report: Audit, rel: str, text: str, folded: str, starts: list[int]) -> None:
    """HTML comments outside code blocks (a block shows them) and markup marked hidden."""
    fences = _fenced(text)
    for match in _matches(_HTML_COMMENT, text, folded):
        if match.group(1).strip() and not _inside(fences, match.start()):
            report.findings.append(
                _finding(WARNING, "hidden-text", rel, text, starts, match,
                         "an HTML comment: hidden when shown, read by a model")
            )  # fmt: skip
    for pattern in _HIDDEN_MARKUP:
        for match in _matches(pattern, text, folded):
            report.findings.append(
                _finding(WARNING, "hidden-text", rel, text, starts, match,
                         "text marked hidden: a person does not see it, a model reads it")
            )  # fmt: skip


def _scan_unicode(report: Audit, rel: str, text: str, starts: list[int]) -> None:
    if text.isascii():  # every character looked for is beyond ASCII
        return
    for match in _HIDDEN_CHARS.finditer(text):
        index, char = match.start(), match.group(0)
        code = ord(char)
        if code == 0xFEFF and index == 0:
            continue  # a byte order mark
        if code in _BIDI:
            why = "bidirectional control: the text reads differently than it shows"
        elif code in _INVISIBLE:
            why = "invisible character: text a person cannot see"
        else:
            continue
        line = _line_of(starts, index)
        excerpt = _printable(text[max(0, index - 20) : index + 20])
        report.findings.append(Finding(HIGH, "hidden-unicode", rel, line, excerpt, why))


def _host(url: str) -> str:
    try:
        return (urlsplit(url.rstrip(".,;:")).hostname or "").lower()
    except ValueError:  # "http://[not-an-address" and the like
        return ""


def _local(host: str) -> bool:
    return host.startswith(("127.", "0.", "10.", "192.168.")) or host == "255.255.255.255"


def _fenced(text: str) -> list[tuple[int, int]]:
    """The spans of fenced code blocks: shown as they are, comments included."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            if start is None:
                start = offset
            else:
                spans.append((start, offset + len(line)))
                start = None
        offset += len(line)
    if start is not None:
        spans.append((start, offset))
    return spans


def _inside(spans: list[tuple[int, int]], index: int) -> bool:
    return any(a <= index < b for a, b in spans)


def _dedupe(report: Audit) -> None:
    """One finding per kind and line (a line of forty zero-width spaces is one finding)."""
    seen: set[tuple[str, str, int]] = set()
    kept = []
    for finding in report.findings:
        key = (finding.kind, finding.file, finding.line)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    report.findings[:] = kept


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


def _line_of(starts: list[int], index: int) -> int:
    return bisect.bisect_right(starts, index)


def _finding(
    severity: str, kind: str, rel: str, text: str, starts: list[int], match: re.Match, why: str
) -> Finding:
    excerpt = match.group(0)
    if len(excerpt) > 100:
        excerpt = excerpt[:97] + "…"
    return Finding(severity, kind, rel, _line_of(starts, match.start()), _printable(excerpt), why)


def _printable(text: str) -> str:
    """Control, invisible and bidirectional characters shown as ``<U+200B>``."""
    out = []
    for char in text:
        code = ord(char)
        if char in "\n\t":
            out.append(" ")
        elif code < 0x20 or 0x7F <= code < 0xA0 or code in _BIDI or code in _INVISIBLE:
            out.append(f"<U+{code:04X}>")
        else:
            out.append(char)
    return " ".join("".join(out).split())
