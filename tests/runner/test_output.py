"""Output through real processes: volume, encoding, JSON, streaming, the full log."""

from __future__ import annotations

import threading
import time

import psutil

from gibberish.runner import HEAD_LIMIT, RunStatus, run, start


def test_a_gigabyte_of_output_is_fast_and_bounded(make_spec):
    me = psutil.Process()
    baseline = me.memory_info().rss
    peak = baseline
    sampling = True

    def sample() -> None:
        nonlocal peak
        while sampling:
            peak = max(peak, me.memory_info().rss)
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.monotonic()
    try:
        result = run(make_spec("head", "-c", "1G", "/dev/zero", timeout=60))
    finally:
        elapsed = time.monotonic() - started
        sampling = False
        sampler.join()
    envelope = result.envelope
    assert envelope.success
    assert envelope.truncated
    assert f"[truncated {2**30 - 4096} bytes]" in envelope.output
    assert len(envelope.output) < 5000
    assert "parsed" not in envelope.to_dict()
    assert elapsed < 5, f"1 GiB took {elapsed:.1f} s"
    assert peak - baseline < 16 * 2**20, f"RSS grew by {(peak - baseline) / 2**20:.1f} MiB"


def test_invalid_utf8_output(make_spec):
    result = run(make_spec("printf", r"caf\351 \377\376 ok"))
    assert result.envelope.output == "caf\ufffd \ufffd\ufffd ok"


def test_multibyte_characters_straddling_both_cuts(make_spec, script):
    # 2047 ASCII bytes, then 3-byte characters: the head cut falls inside one of them,
    # and with this length so does the tail cut.
    tool = script(
        "printf '%2047s' ''\ni=0; while [ $i -lt 3000 ]; do printf '€'; i=$((i+1)); done\n"
    )
    result = run(make_spec(tool))
    output = result.envelope.output
    assert result.envelope.truncated
    assert "\ufffd" not in output
    head, rest = output.split("\n... [truncated ")
    tail = rest.split(" bytes] ...\n")[1]
    assert head == " " * 2047
    assert set(tail) == {"€"}
    assert len(tail.encode()) > 2048 - 3
    dropped = int(rest.split(" bytes]")[0])
    assert 2047 + dropped + len(tail.encode()) == 2047 + 3000 * 3


def test_parsed_for_json_output(make_spec):
    result = run(make_spec("printf", '{"files": ["a", "b"], "count": 2}\n'))
    assert result.envelope.parsed == {"files": ["a", "b"], "count": 2}
    assert result.envelope.to_dict()["parsed"] == {"files": ["a", "b"], "count": 2}


def test_parsed_for_json_output_of_a_failing_command(make_spec, script):
    result = run(make_spec(script('echo \'{"error": "bad input"}\'; exit 2\n')))
    assert result.envelope.to_dict()["parsed"] == {"error": "bad input"}
    assert result.envelope.exit_code == 2


def test_no_parsed_for_text_or_scalars(make_spec):
    assert "parsed" not in run(make_spec("echo", "hello")).envelope.to_dict()
    assert "parsed" not in run(make_spec("echo", "42")).envelope.to_dict()
    assert "parsed" not in run(make_spec("echo", "{broken")).envelope.to_dict()


def test_no_parsed_when_the_output_outgrew_the_parse_limit(make_spec, script):
    # A valid JSON array of about 2 MiB: truncated in the envelope and too big to parse.
    tool = script(
        "printf '['\nhead -c 2000000 /dev/zero | tr '\\0' '1' | sed 's/1/1,/g'\nprintf '1]'\n"
    )
    result = run(make_spec(tool))
    assert result.envelope.truncated
    assert "parsed" not in result.envelope.to_dict()


def test_streaming_callback_gets_everything_in_order_as_it_arrives(make_spec, script):
    tool = script(
        'echo first\nsleep 0.3\ni=0; while [ $i -lt 5000 ]; do echo "line $i"; i=$((i+1)); done\n'
    )
    chunks: list[bytes] = []
    statuses: list[RunStatus] = []
    threads: set[str] = set()
    handle = None

    def on_output(chunk: bytes) -> None:
        chunks.append(chunk)
        threads.add(threading.current_thread().name)
        if handle is not None:
            statuses.append(handle.status)

    handle = start(make_spec(tool), on_output=on_output)
    result = handle.wait(10)
    assert result is not None and result.envelope.success
    expected = "first\n" + "".join(f"line {i}\n" for i in range(5000))
    assert b"".join(chunks).decode() == expected
    assert all(isinstance(chunk, bytes) for chunk in chunks)
    assert RunStatus.RUNNING in statuses  # chunks came while the process ran
    assert threading.current_thread().name not in threads
    assert result.envelope.output.startswith(expected[: HEAD_LIMIT - 10])
    assert result.envelope.output.endswith(expected[-2000:])


def test_a_failing_output_callback_does_not_break_the_run(make_spec):
    calls = []

    def broken(chunk: bytes) -> None:
        calls.append(chunk)
        raise RuntimeError("consumer bug")

    result = run(make_spec("sh", "-c", "echo a; sleep 0.1; echo b"), on_output=broken)
    assert result.envelope.success
    assert result.envelope.output == "a\nb\n"
    assert len(calls) == 1


def test_full_output_goes_to_the_log_file(make_spec, tmp_path):
    log = tmp_path / "state" / "runs" / "run.log"
    result = run(make_spec("seq", "1", "100000", log_path=log))
    assert result.log_path == log
    assert not result.log_truncated
    assert log.read_text() == "".join(f"{i}\n" for i in range(1, 100001))
    assert result.envelope.truncated


def test_log_file_is_capped(make_spec, tmp_path):
    log = tmp_path / "run.log"
    result = run(make_spec("head", "-c", "5000000", "/dev/zero", log_path=log, log_limit=100_000))
    assert result.log_truncated
    assert log.stat().st_size == 100_000
    assert result.envelope.success


def test_unwritable_log_does_not_fail_the_run(make_spec, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run(make_spec("echo", "hi", log_path=blocker / "run.log"))
    assert result.envelope.success
    assert result.log_path is None
