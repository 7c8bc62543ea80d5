"""``python -m gibberish.voice.whisper_check RECORDING``: does Whisper work here?

Run by the set-up (``whisper_install.check``) in a new process of gibberish's own
environment, after installing, so what it imports is what was just installed and not
what the running app has loaded. It loads the installed model the way gibberish does and
prints one line of JSON: the model folder and the recording's transcript, or an error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    try:
        from gibberish.voice.audio import read_wav
        from gibberish.voice.whisper import WhisperRecognizer
        from gibberish.voice.whisper_setup import installed_model

        model = installed_model()
        if not model:
            raise RuntimeError("no model folder was installed.")
        recognizer = WhisperRecognizer(model)
        recognizer.start()
        recognizer.feed(read_wav(Path(argv[0])))
        text = recognizer.finish().text
    except Exception as exc:  # anything at all is reported as the check's answer
        print(json.dumps({"error": str(exc) or type(exc).__name__}))
        return 0
    print(json.dumps({"model": model, "text": text}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
