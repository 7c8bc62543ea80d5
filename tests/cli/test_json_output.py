"""JSON output: one compact line for a program, indented for a person, same bytes each time."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest

from gibberish.cli.common import json_text

NASTY = "red\x9b31m next\x85line \u202eevil\x1b[8mhidden\x07 ok"


def test_a_pipe_gets_one_compact_line_that_means_what_the_indented_text_means(write_skill, invoke):
    write_skill("alpha")
    write_skill("beta", description="Second: with ünïcode — and a colon.")
    out = invoke("skills", "list", "--json").output
    assert out.endswith("\n") and out.count("\n") == 1, "one line for a program"
    data = json.loads(out)
    assert [s["name"] for s in data] == ["alpha", "beta"]
    assert out == json_text(data, compact=True) + "\n"
    assert json.loads(json_text(data)) == data and "\n  " in json_text(data)


def test_the_same_input_prints_the_same_bytes(write_skill, invoke):
    for name in ("one", "two", "three"):
        write_skill(name)
    runs = {invoke("skills", "list", "--json").stdout_bytes for _ in range(3)}
    assert len(runs) == 1
    data = json.loads(runs.pop())
    assert json_text(data, compact=True) == json.dumps(
        data, ensure_ascii=False, separators=(",", ":")
    )
    assert json_text(data) == json.dumps(data, ensure_ascii=False, indent=2)


@pytest.mark.parametrize("compact", [True, False])
def test_controls_are_escaped_in_both_forms_and_decode_to_the_same_text(compact):
    data = {"text": NASTY, "list": [NASTY, "plain"], NASTY: 1}
    text = json_text(data, compact=compact)
    assert not any(c in text for c in "\x9b\x85\u202e\x1b\x07")
    assert json.loads(text) == data


def test_text_without_controls_is_the_encoders_own():
    data = {"name": "ünïcode — fine", "n": [1, 2.5, None, True]}
    assert json_text(data, compact=True) == '{"name":"ünïcode — fine","n":[1,2.5,null,true]}'


def _read_all(fd: int, proc: subprocess.Popen) -> bytes:
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            proc.kill()
            raise AssertionError("no output from the terminal run")
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_terminal_gets_indented_json(write_skill, skills_root):
    write_skill("alpha")
    leader, follower = os.openpty()
    argv = [sys.executable, "-m", "gibberish", "--no-user-skills", "--skills-dir"]
    proc = subprocess.Popen(
        [*argv, str(skills_root), "skills", "list", "--json"],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    try:
        out = _read_all(leader, proc).decode().replace("\r\n", "\n")
        assert proc.wait(timeout=30) == 0, proc.stderr.read()
    finally:
        os.close(leader)
        proc.stderr.close()
    assert out.startswith("[\n  {\n"), out[:200]
    assert json.loads(out)[0]["name"] == "alpha"
