"""One spoken request's decision, from what was heard to the proposal shown.

The path, in one place: the grammar's reading (or a free-form transcript's) becomes a
proposal, which stands as it is without Whisper; with Whisper set up, a proposal worth
asking about (``worth_asking``) gets its second opinion:

* a call whose phrase the grammar is **not doubtful** of is *weighed*: Whisper's encoder
  runs once over the speech, and each of the grammar's readings (its phrase, the other
  pass's, the phrase with other numbers) is scored by forced alignment over it. When the
  weights confirm the phrase, it is proposed with no transcription. Only when they move
  away from it (Whisper's own call then joins the readings), or a veto is possible — a
  short phrase whose likeliest reading Whisper finds less likely than ``VETO_NATS`` per
  token, further than any transcript of its own can be — are the same encoder states
  transcribed;
* everything else (no call from the grammar, a doubtful phrase) is **transcribed**, and the
  transcript with the weights of the readings decides (``second_opinion.decide``).

The rules themselves (doubt, veto, the margins) live in ``second_opinion``; the service
only holds the recognizers and calls ``Decision.propose`` once per request
(docs/adr/0098-voice-weighed-without-transcribing.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from msgspec import Struct
from msgspec.structs import replace

from gibberish.assistant import ToolCatalog
from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal, ProposalStatus
from gibberish.voice.errors import VoiceError
from gibberish.voice.grammar import Grammar
from gibberish.voice.interpret import interpret
from gibberish.voice.listen import StreamingRecognizer
from gibberish.voice.matcher import PhraseMatcher
from gibberish.voice.readings import number_readings
from gibberish.voice.second_opinion import (
    VETO_NATS,
    Weighed,
    decide,
    doubtful,
    short,
    worth_asking,
)
from gibberish.voice.sounds_like import SoundsLike
from gibberish.voice.whisper import Weight


@runtime_checkable
class Weigher(Protocol):
    """What weighing needs of a recognizer (``WhisperRecognizer`` has it all)."""

    def hear(self, pcm: bytes) -> bool: ...
    def weigh(self, texts: Sequence[str]) -> list[Weight] | None: ...
    def transcribe_heard(self) -> Heard: ...


class SecondOpinion(Struct, frozen=True):
    """Whisper, when it is set up: the utterance's audio and how to get the recognizer
    (loading it can fail; the grammar's answer then stands, with the reason)."""

    pcm: bytes
    whisper: Callable[[], StreamingRecognizer]


class Decision(Struct, frozen=True):
    """The tools' catalog and grammar a request is decided against."""

    catalog: ToolCatalog
    grammar: Grammar
    sounds_like: SoundsLike | None
    """The grammar's forms as phones, for free-form transcripts (None without RapidFuzz)."""

    def propose(
        self, heard: Heard, backend: str, second_opinion: SecondOpinion | None = None
    ) -> Proposal:
        """The proposal for what ``backend`` heard; with ``second_opinion``, Whisper's
        weights or transcript settle what the grammar could not."""
        proposal = self.interpret(heard, backend)
        if backend != "pocketsphinx" or second_opinion is None or not worth_asking(proposal):
            return proposal
        try:
            whisper = second_opinion.whisper()
        except VoiceError as exc:
            proposal.heard.details["second_opinion"] = str(exc)
            return proposal
        if _weighable(proposal) and isinstance(whisper, Weigher):
            weighed = self._weighed_only(whisper, second_opinion.pcm, proposal)
            if weighed is not None:
                return weighed
        return self._transcribed(whisper, second_opinion.pcm, proposal)

    def interpret(self, heard: Heard, backend: str) -> Proposal:
        free_form = backend != "pocketsphinx"
        matcher = PhraseMatcher(self.grammar.forms, free_text=free_form)
        return interpret(heard, self.catalog, matcher, self.sounds_like if free_form else None)

    def _readings(self, proposal: Proposal) -> list[Proposal]:
        """The grammar's readings of a call: its phrase, the other pass's, and the phrase
        with its numbers replaced by their sound-alikes (``readings.number_readings``)."""
        said = {proposal.heard.text, *proposal.heard.alternatives}
        texts = [
            *proposal.heard.alternatives,
            *(t for t in dict.fromkeys(number_readings(proposal.heard.text)) if t not in said),
        ]
        return [
            proposal,
            *(self.interpret(_other_reading(proposal.heard, t), "pocketsphinx") for t in texts),
        ]

    def _weighed_only(self, whisper: Weigher, pcm: bytes, proposal: Proposal) -> Proposal | None:
        """The grammar's phrase confirmed by Whisper's encoder and forced alignment only.
        When the weights move away from the phrase (another number, the other pass's
        phrase), or a veto is possible, Whisper transcribes the same encoder states and
        its own call and transcript are weighed beside the readings (``_with_transcript``).
        None when the recognizer cannot weigh this audio."""
        if not whisper.hear(pcm):
            return None
        readings = self._readings(proposal)
        weights = whisper.weigh([_as_weighed(r) for r in readings])
        if not weights:
            return None
        weighed = list(zip(readings, weights, strict=True))
        likeliest = max(w.per_token for r, w in weighed if r.call is not None)
        # Without a transcript, what Whisper heard weighs as the likeliest reading: it
        # vetoes nothing, and only the readings compete.
        chosen = decide(proposal, _unheard(), (), Weighed(weighed, Weight(likeliest, 1)))
        vetoable = short(proposal) and likeliest < -VETO_NATS
        if chosen is proposal and not vetoable:
            chosen.heard.details["weighed_only"] = True  # shown with the details
            return chosen
        return self._with_transcript(whisper, proposal)

    def _with_transcript(self, whisper: Weigher, proposal: Proposal) -> Proposal:
        """The decision of a transcribed request (as ``_transcribed``), from the encoder
        states ``hear`` already computed: Whisper's transcript, its own call beside the
        readings, everything weighed over the window the transcript was written from."""
        heard = whisper.transcribe_heard()
        heard.timings["finish"] += proposal.heard.timings.get("finish", 0.0)
        return self._settled(whisper, proposal, heard)

    def _transcribed(
        self, whisper: StreamingRecognizer, pcm: bytes, proposal: Proposal
    ) -> Proposal:
        """Whisper's transcript of the audio, with the readings weighed over the same
        encoder states, settling what the grammar could not."""
        whisper.start()
        whisper.feed(pcm)
        heard = whisper.finish()
        heard.timings["finish"] += proposal.heard.timings.get("finish", 0.0)
        heard.timings["decode"] += proposal.heard.timings.get("decode", 0.0)
        return self._settled(whisper, proposal, heard)

    def _settled(
        self, whisper: StreamingRecognizer | Weigher, proposal: Proposal, heard: Heard
    ) -> Proposal:
        """The grammar's ``proposal`` settled by Whisper's transcript ``heard`` and its
        weights of the readings (``second_opinion.decide``)."""
        alternatives = [
            self.interpret(_other_reading(proposal.heard, text), "pocketsphinx")
            for text in proposal.heard.alternatives
        ]
        whispered = self.interpret(heard, "whisper")
        weighed = self._weighed(whisper, proposal, whispered)
        return decide(proposal, whispered, alternatives, weighed)

    def _weighed(
        self, whisper: StreamingRecognizer | Weigher, proposal: Proposal, whispered: Proposal
    ) -> Weighed | None:
        """Whisper's weights of the readings of the audio it just transcribed. For a
        grammar call: its readings (``_readings``) and Whisper's own call; for speech the
        grammar refused and Whisper's transcript matched no form: the sentences sounding
        nearest to that transcript. None when Whisper's own call settles it, or the
        recognizer cannot weigh (audio longer than one Whisper window)."""
        weigh = getattr(whisper, "weigh", None)
        heard = whispered.heard
        if weigh is None:
            return None
        if proposal.call is not None:
            readings = self._readings(proposal)
            if whispered.call is not None and whispered.status is not ProposalStatus.NO_MATCH:
                readings.append(whispered)  # weighed as the grammar's sentence it was taken as
        else:
            if whispered.call is not None or not heard.text or self.sounds_like is None:
                return None
            readings = [
                self.interpret(replace(heard, text=t, details={}), "whisper")
                for t in self.sounds_like.nearest(heard.text)
            ]
        weights = weigh([_as_weighed(r) for r in readings] + ([heard.text] if heard.text else []))
        if not weights:
            return None
        # Whisper heard nothing (silence, by its own no-speech check): that counts as sure.
        own = weights.pop() if heard.text else Weight(0.0, 1)
        return Weighed(list(zip(readings, weights, strict=True)), own)


def _weighable(proposal: Proposal) -> bool:
    """A call of the grammar's that it is not doubtful of: its readings can be weighed
    without Whisper's transcript."""
    return (
        proposal.call is not None
        and proposal.status is not ProposalStatus.NO_MATCH
        and not doubtful(proposal.heard)
    )


def _as_weighed(reading: Proposal) -> str:
    """A reading's text as weighed: the grammar's sentence a transcript was taken as."""
    return str(reading.heard.details.get("taken_as", reading.heard.text))


def _unheard() -> Proposal:
    """Whisper's transcript where none was made (the weighed-only path): no call."""
    heard = Heard("", 0.0, backend="whisper", rejected="not transcribed")
    return Proposal(heard, ProposalStatus.NO_MATCH)


def _other_reading(heard: Heard, text: str) -> Heard:
    """``heard`` as its alternative ``text`` (the other pass's phrase), without the chosen
    phrase's per-word scores, which do not describe it."""
    details = {k: v for k, v in heard.details.items() if k != "words"}
    details["alternative_of"] = heard.text
    return replace(
        heard, text=text, alternatives=(heard.text,), details=details, timings=dict(heard.timings)
    )
