"""``gibberish context import``: a .md file, a .zip, a URL (raw file, GitHub folder
address); importing again replaces; over-budget and missing-description warnings; token
counts from a model server's tokenizer, else labelled an estimate."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gibberish import paths
from gibberish.assistant.context_folders import context_dir
from gibberish.install import context_import
from tests.helpers.builders import loopback, zip_with
from tests.helpers.instruction_skills import instruction_text


def test_a_markdown_file_imports_and_again_replaces(tmp_path, gib) -> None:
    notes = tmp_path / "House_Style.md"
    notes.write_text("# House style\n\nUse tabs.\n")
    result = gib("context", "import", str(notes))
    assert result.exit_code == 0, result.output
    assert "Imported house-style (~" in result.output and "estimate" in result.output
    assert "House_Style.md has no description; its file name stands in" in result.output
    listed = json.loads(gib("context", "list", "--json").output)
    assert [(b["name"], b["description"]) for b in listed] == [("house-style", "House_Style.md")]
    notes.write_text("---\nname: house-style\ndescription: Our style.\n---\n\nUse spaces.\n")
    result = gib("context", "import", str(notes))
    assert result.exit_code == 0 and "Replaced house-style" in result.output
    assert "no description" not in result.output
    assert "Use spaces." in gib("context", "show", "house-style").output


def test_a_zip_of_several_and_a_warning_over_budget(tmp_path, gib) -> None:
    long_body = "## Part\n\n" + "A sentence of guidance. " * 600
    archive = zip_with(
        tmp_path / "c.zip",
        [
            ("c/short/SKILL.md", instruction_text("short").encode(), 0),
            ("c/long/SKILL.md", instruction_text("long", long_body).encode(), 0),
        ],
    )
    result = gib("context", "import", str(archive))
    assert result.exit_code == 0, result.output
    assert "Imported short" in result.output and "Imported long" in result.output
    assert "long is ~" in result.output and "over the context budget of 1024" in result.output
    assert "short is ~" not in result.output
    record = json.loads((context_dir() / "long" / ".gibberish-source.json").read_text())
    assert record["source"] == str(archive) and record["kind"] == "zip"


def test_a_raw_markdown_url(tmp_path, gib) -> None:
    with loopback() as server:
        url = server.file("/docs/Review-Checklist.md", b"# Checklist\n\n- tests pass\n")
        result = gib("context", "import", url)
    assert result.exit_code == 0, result.output
    assert "Imported review-checklist" in result.output
    assert "tests pass" in gib("context", "show", "review-checklist").output


def test_a_github_folder_address_reads_as_a_git_source(monkeypatch) -> None:
    seen = []

    def fake_staged(text):
        seen.append(text)
        raise context_import.ImportError_("stop")

    monkeypatch.setattr(context_import, "_staged", fake_staged)
    with pytest.raises(context_import.ImportError_):
        context_import.import_context("https://github.com/acme/skills/tree/v2/skills/guide/")
    assert seen == ["github:acme/skills/skills/guide@v2"]


def test_what_is_not_there_or_not_instructions_is_a_sentence(tmp_path, gib) -> None:
    result = gib("context", "import", str(tmp_path / "missing.md"))
    assert result.exit_code == 1 and "no such folder or file" in result.output
    empty = zip_with(tmp_path / "e.zip", [("readme.txt", b"hi", 0)])
    result = gib("context", "import", str(empty))
    assert result.exit_code == 1 and "no SKILL.md" in result.output


@contextmanager
def llama_server(tokens_per_word: int) -> Iterator[str]:
    """A loopback server answering llama.cpp's POST /tokenize."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            ids = list(range(len(body["content"].split()) * tokens_per_word))
            data = json.dumps({"tokens": ids}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_tokens_are_counted_by_the_model_servers_tokenizer(tmp_path, gib) -> None:
    notes = tmp_path / "n.md"
    notes.write_text("---\nname: n\ndescription: N.\n---\n\none two three four\n")
    with llama_server(tokens_per_word=3) as endpoint:
        paths.config_file().parent.mkdir(parents=True, exist_ok=True)
        paths.config_file().write_text(
            f'[model]\nenabled = true\napi = "openai"\nendpoint = "{endpoint}"\nmodel = "m"\n'
        )
        result = gib("context", "import", str(notes))
        assert result.exit_code == 0, result.output
        assert "(12 tokens (tokenizer of m on the model server)" in result.output
    shown = gib("context", "show", "n").output  # the server is gone: an estimate, said so
    assert "~5 tokens (estimate, 4 characters a token; m: no tokenizer here)" in shown
