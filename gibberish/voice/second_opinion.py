"""Whisper as a second opinion for the grammar recognizer.

The grammar recognizer is fast and never proposes a phrase outside the tools' grammar,
but its acoustic model hears some voices badly: it rejects their speech, or is torn
between two numbers ("fifty" and "fifteen"). When a Whisper model is set up, the same
audio is then transcribed by Whisper and matched to the forms as a free-form transcript
(word for word, then by sound). Its call is taken when

* the grammar found no call at all, and Whisper's transcript is one; or
* the grammar was torn between two phrases, and Whisper names the same tool (its
  arguments win: Whisper writes numbers as digits, where the grammar's phones blur).

Otherwise the grammar's answer stands. Speech no tool covers faces Whisper's matching,
which rejects it on its own (docs/adr/0024-free-form-transcripts-by-sound.md); requests
the grammar takes without doubt never wait for Whisper.
"""

from __future__ import annotations

from gibberish.voice.heard import Heard
from gibberish.voice.interpret import Proposal, ProposalStatus
from gibberish.voice.listen import StreamingRecognizer


class KeptAudio:
    """A recognizer that also keeps the utterance's audio, for a second decoder."""

    def __init__(self, inner: StreamingRecognizer) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.audio = bytearray()

    def start(self) -> None:
        self.audio = bytearray()
        self.inner.start()

    def feed(self, pcm: bytes) -> None:
        self.audio += pcm
        self.inner.feed(pcm)

    def finish(self) -> Heard:
        return self.inner.finish()


def worth_asking(proposal: Proposal) -> bool:
    """No call from the grammar, or a call it was torn on."""
    return proposal.status is ProposalStatus.NO_MATCH or bool(proposal.heard.alternatives)


def decide(grammar: Proposal, whisper: Proposal) -> Proposal:
    """The proposal to show: Whisper's when it settles what the grammar could not."""
    if whisper.call is None or whisper.status is ProposalStatus.NO_MATCH:
        return grammar
    torn = grammar.status is not ProposalStatus.NO_MATCH
    if torn and (grammar.call is None or grammar.call.name != whisper.call.name):
        return grammar
    whisper.heard.details["second_opinion_of"] = grammar.heard.text or grammar.heard.rejected
    return whisper
