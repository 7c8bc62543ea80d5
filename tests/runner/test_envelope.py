"""The envelope's JSON shape, exit code conventions, and RunSpec validation."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from gibberish.runner import ABSENT, Envelope, RunSpec, RunStatus, new_run_id
from gibberish.runner.envelope import (
    exit_code_from_returncode,
    failure_message,
    timeout_message,
)


def test_success_has_exactly_the_five_keys():
    envelope = Envelope(True, 0, "hi\n", False, 12)
    assert envelope.to_dict() == {
        "success": True,
        "exit_code": 0,
        "output": "hi\n",
        "truncated": False,
        "duration_ms": 12,
    }


def test_failure_adds_error():
    envelope = Envelope(False, 1, "", False, 3, error="Command failed with exit code 1")
    assert envelope.to_dict()["error"] == "Command failed with exit code 1"


def test_failure_without_a_message_still_has_error():
    assert Envelope(False, 2, "", False, 0).to_dict()["error"]


def test_parsed_only_when_present_and_null_is_a_value():
    assert "parsed" not in Envelope(True, 0, "x", False, 0).to_dict()
    assert Envelope(True, 0, "[]", False, 0, parsed=[]).to_dict()["parsed"] == []
    assert Envelope(True, 0, "", False, 0, parsed=None).to_dict()["parsed"] is None
    assert not Envelope(True, 0, "", False, 0).has_parsed


def test_before_start():
    envelope = Envelope.before_start("missing parameter: path")
    assert envelope.to_dict() == {
        "success": False,
        "exit_code": None,
        "output": "",
        "truncated": False,
        "duration_ms": 0,
        "error": "missing parameter: path",
    }


def test_to_dict_is_json_serialisable():
    envelope = Envelope(False, 124, "x", True, 5000, error="Timed out after 5 s", parsed={"a": [1]})
    assert json.loads(json.dumps(envelope.to_dict()))["parsed"] == {"a": [1]}


def test_absent_is_a_singleton_that_survives_pickling():
    assert pickle.loads(pickle.dumps(ABSENT)) is ABSENT
    assert repr(ABSENT) == "<absent>"


@pytest.mark.parametrize(
    ("returncode", "code"), [(0, 0), (1, 1), (255, 255), (-9, 137), (-15, 143)]
)
def test_exit_codes(returncode, code):
    assert exit_code_from_returncode(returncode) == code


def test_messages():
    assert failure_message(1) == "Command failed with exit code 1"
    assert "SIGKILL" in failure_message(-9) and "137" in failure_message(-9)
    assert timeout_message(5) == "Timed out after 5 s"
    assert timeout_message(0.5) == "Timed out after 0.5 s"


def test_status_values():
    assert RunStatus.TIMED_OUT == "timed_out"
    assert [s for s in RunStatus if s.is_final] == [
        RunStatus.SUCCEEDED,
        RunStatus.FAILED,
        RunStatus.TIMED_OUT,
        RunStatus.CANCELLED,
    ]


def test_spec_forces_its_run_id_into_the_environment():
    spec = RunSpec(
        argv=["ls", "-l"], cwd="/tmp", env={"GIBBERISH_RUN_ID": "other", "A": "1"}, run_id="mine"
    )
    assert spec.argv == ("ls", "-l")
    assert spec.cwd == Path("/tmp")
    assert spec.env["GIBBERISH_RUN_ID"] == "mine"
    with pytest.raises(TypeError):
        spec.env["A"] = "2"  # the environment is read-only


def test_spec_adopts_the_run_id_of_its_environment_or_makes_one():
    assert RunSpec(argv=("ls",), cwd=Path("/"), env={"GIBBERISH_RUN_ID": "x"}).run_id == "x"
    spec = RunSpec(argv=("ls",), cwd=Path("/"))
    assert len(spec.run_id) == 32
    assert spec.env == {"GIBBERISH_RUN_ID": spec.run_id}
    assert new_run_id() != new_run_id()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"argv": ()},
        {"argv": ("ls", 3)},
        {"timeout": 0},
        {"timeout": -1},
        {"timeout": float("nan")},
        {"grace": -1},
        {"log_limit": -1},
    ],
)
def test_spec_rejects_nonsense(kwargs):
    base = {"argv": ("ls",), "cwd": Path("/")}
    with pytest.raises(ValueError):
        RunSpec(**{**base, **kwargs})
