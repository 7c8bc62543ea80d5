"""Head/tail capture in bounded memory, UTF-8 boundaries, JSON documents, the log file."""

from __future__ import annotations

import stat

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gibberish.runner import ABSENT, HEAD_LIMIT, TAIL_LIMIT
from gibberish.runner.capture import (
    LogFile,
    OutputCapture,
    head_cut,
    parse_json_document,
    tail_start,
    truncation_marker,
)


def capture_of(data: bytes, chunk: int = 4096) -> OutputCapture:
    capture = OutputCapture()
    for start in range(0, len(data), chunk):
        capture.feed(data[start : start + chunk])
    return capture


def test_small_output_is_kept_whole():
    capture = capture_of(b"hello\nworld\n")
    assert not capture.truncated
    assert capture.text() == "hello\nworld\n"


def test_exactly_head_plus_tail_is_not_truncated():
    data = bytes(range(97, 123)) * 200
    data = data[: HEAD_LIMIT + TAIL_LIMIT]
    capture = capture_of(data, chunk=1000)
    assert not capture.truncated
    assert capture.text() == data.decode()


def test_large_output_keeps_head_and_tail_with_marker():
    data = b"H" * HEAD_LIMIT + b"m" * 10_000 + b"T" * TAIL_LIMIT
    capture = capture_of(data, chunk=777)
    assert capture.truncated
    assert capture.total == len(data)
    assert capture.text() == "H" * HEAD_LIMIT + truncation_marker(10_000) + "T" * TAIL_LIMIT
    assert "\n... [truncated 10000 bytes] ...\n" in capture.text()


@pytest.mark.parametrize("offset", [1, 2, 3])
def test_multibyte_characters_straddling_the_head_cut_are_not_split(offset):
    # a 4-byte character starting `offset` bytes before the head limit
    emoji = "😀".encode()
    data = b"a" * (HEAD_LIMIT - offset) + emoji + b"b" * 10_000
    text = capture_of(data).text()
    head = text.split("\n... [truncated")[0]
    assert head == "a" * (HEAD_LIMIT - offset)
    assert "\ufffd" not in text


@pytest.mark.parametrize("offset", [1, 2, 3])
def test_multibyte_characters_straddling_the_tail_cut_are_not_split(offset):
    emoji = "😀".encode()
    tail_len = TAIL_LIMIT - 4 + offset  # the emoji begins `offset` bytes before the tail
    data = b"a" * 10_000 + emoji + b"z" * tail_len
    text = capture_of(data).text()
    tail = text.split("bytes] ...\n")[1]
    assert tail == "z" * tail_len
    assert "\ufffd" not in text


def test_dropped_count_includes_the_cut_characters():
    data = b"a" * (HEAD_LIMIT - 1) + "é".encode() + b"x" * 5000 + "é".encode() + b"z" * 2047
    capture = capture_of(data)
    text = capture.text()
    head, rest = text.split("\n... [truncated ")
    count = int(rest.split(" bytes]")[0])
    tail = rest.split("bytes] ...\n")[1]
    assert len(head.encode()) + count + len(tail.encode()) == len(data)


def test_invalid_utf8_is_replaced_not_fatal():
    capture = capture_of(b"ok \xff\xfe bad \xc3 end")
    assert capture.text() == "ok \ufffd\ufffd bad \ufffd end"


def test_memory_stays_bounded_for_large_inputs():
    capture = OutputCapture()
    chunk = b"x" * 1_000_000
    for _ in range(50):
        capture.feed(chunk)
    assert capture.total == 50_000_000
    assert len(capture._head) == HEAD_LIMIT
    assert len(capture._tail) == TAIL_LIMIT
    assert capture._whole is None


def test_head_cut_and_tail_start():
    assert head_cut(b"abc") == 3
    assert head_cut(b"ab\xc3") == 2
    assert head_cut(b"ab\xc3\xa9") == 4
    assert head_cut(b"ab\xe2\x82") == 2
    assert head_cut(b"ab\xf0\x9f\x98\x80") == 6
    assert head_cut(b"\x80\x80\x80\x80") == 4  # garbage: left alone
    assert tail_start(b"\xa9bc") == 1
    assert tail_start(b"\x9f\x98\x80z") == 3
    assert tail_start(b"\x80\x80\x80\x80") == 3


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=1, max_value=5000))
def test_any_valid_text_in_any_chunking_is_cut_cleanly(text, chunk):
    data = (text * 3).encode()
    capture = capture_of(data, chunk=chunk)
    shown = capture.text()
    if not capture.truncated:
        assert shown == text * 3
        return
    head, rest = shown.split("\n... [truncated ", 1)
    dropped = int(rest.split(" bytes]")[0])
    tail = rest.split(" bytes] ...\n", 1)[1]
    assert (text * 3).startswith(head)
    assert (text * 3).endswith(tail)
    assert len(head.encode()) <= HEAD_LIMIT
    assert len(tail.encode()) <= TAIL_LIMIT
    assert len(head.encode()) + dropped + len(tail.encode()) == len(data)


@given(st.binary(max_size=10_000), st.integers(min_value=1, max_value=3000))
def test_any_bytes_in_any_chunking_match_one_big_feed(data, chunk):
    assert capture_of(data, chunk=chunk).text() == capture_of(data, chunk=len(data) or 1).text()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"a": 1}', {"a": 1}),
        (b"  [1, 2, 3]\n", [1, 2, 3]),
        (b'\xef\xbb\xbf{"bom": true}', {"bom": True}),
    ],
)
def test_json_documents_are_parsed(data, expected):
    assert parse_json_document(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello",
        b"42",
        b"true",
        b"null",
        b'"string"',
        b'{"a": 1} trailing',
        b'{"a": NaN}',
        b"[Infinity]",
        b'{"a": "\xff"}',
        b"[" * 100_000,
    ],
)
def test_non_documents_are_absent(data):
    assert parse_json_document(data) is ABSENT


def test_parsed_is_kept_for_truncated_output_below_the_parse_limit():
    data = ('{"items": [' + ",".join(f'"item {i}"' for i in range(2000)) + "]}").encode()
    capture = capture_of(data)
    assert capture.truncated
    assert capture.parsed() == {"items": [f"item {i}" for i in range(2000)]}


def test_parsed_is_absent_beyond_the_parse_limit():
    capture = OutputCapture(parse_limit=1000)
    capture.feed(b"[" + b"1," * 600 + b"1]")
    assert capture.parsed() is ABSENT


def test_log_file_is_private_and_capped(tmp_path):
    log = LogFile(tmp_path / "logs" / "run.log", limit=10)
    log.write(b"12345")
    log.write(memoryview(b"67890abc"))
    log.close()
    assert (tmp_path / "logs" / "run.log").read_bytes() == b"1234567890"
    assert log.truncated
    assert stat.S_IMODE((tmp_path / "logs" / "run.log").stat().st_mode) == 0o600
