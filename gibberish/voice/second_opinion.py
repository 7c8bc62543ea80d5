"""Whisper as a second opinion for the grammar recognizer.

The grammar recognizer is fast and never proposes a phrase outside the tools' grammar,
but its acoustic model hears some voices badly: it rejects their speech, or is torn
between two numbers ("fifty" and "fifteen"). When a Whisper model is set up, the same
audio is then transcribed by Whisper and matched to the forms as a free-form transcript
(word for word, then by sound). Its call is taken when

* the grammar found no call at all, and Whisper's transcript is one; or
* the grammar was torn between two phrases, *doubtful* of its phrase, or heard one of
  its numbers weakly, and Whisper names the same tool (its arguments win: Whisper writes
  numbers as digits, where the grammar's phones blur).

A doubtful phrase is one whose path fits the audio much worse than a free phone loop
does (``acoustic_fit`` below ``DOUBT_FIT``; docs/adr/0036-voice-held-to-real-speech.md):
speech of real people that no tool covers ("five five" forced onto "find files") lands
there, and so does some in-grammar speech of harsh synthetic voices. For it Whisper has a
veto: when its transcript names no tool or another one *and* sounds unlike the grammar's
phrase (more than ``VETO_DISTANCE`` of its phones apart: "5-5." against "find files" is
0.5), nothing is proposed. When the grammar was torn between two phrases and Whisper's
transcript sounds like the other one, that one is taken. A transcript that only spells
the phrase differently ("Show the stage changes", 0.07) is no disagreement, and the
grammar's call stands. Otherwise the grammar's answer stands. Speech no tool covers
faces Whisper's matching, which rejects it on its own
(docs/adr/0024-free-form-transcripts-by-sound.md); requests the grammar takes without
doubt never wait for Whisper.

Those are the rules by *sound*. Whisper can also *weigh* texts: how likely it finds each
as the transcript of the same audio (``WhisperRecognizer.weigh``). Where it can, its
first guess ("show the last fine commits") stops mattering: the readings the grammar
allows — its phrase, the other pass's, the same phrase with other numbers, Whisper's own
call, or for refused speech the sentences nearest to what Whisper wrote — are weighed,
and the weights decide the veto, the number and the rescue (``Weighed``, ADR 0056). A
call holding a number is then always worth asking about.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal, ProposalStatus
from gibberish.voice.listen import StreamingRecognizer
from gibberish.voice.numbers import holds_a_number
from gibberish.voice.sounds_like import MAX_DISTANCE, sound_distance
from gibberish.voice.whisper import Weight


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


DOUBT_FIT = -3.0
"""Per-frame log-likelihood of the phrase's path below the free phone loop's, under which
the grammar's phrase is doubted. Real people saying a phrase and the clear synthetic
voices of the suite score −1 to −2.8; real speech forced onto a phrase −2.4 to −4.5,
synthetic speech no tool covers −6 and below (measured on the suite's fixtures and the
recordings of real people, never on the held-out voices)."""


VETO_DISTANCE = 0.45
"""How far (phone edits per phone) Whisper's transcript must sound from a doubtful phrase
to veto it. Whisper tiny.en spells synthetic speech it heard right up to 0.39 away ("just
low count 3" for "git log count three", "Show this, use it." for "show disk usage");
speech forced onto a phrase sounds 0.5 and more away ("5-5." for "find files")."""


def doubtful(heard: Heard) -> bool:
    """Whether the grammar's phrase fits the audio too poorly to be taken on its word."""
    fit = heard.details.get("acoustic_fit")
    return fit is not None and fit < DOUBT_FIT


SHORT_WORDS = 3
"""A call heard as this many words or fewer is checked by Whisper even when the grammar is
sure of it: a short phrase is what other speech is most easily forced onto (flite awb's
"call my mother" heard as "show my notes" at confidence 0.69, as sure as right phrases
are). Without Whisper nothing checks it: a confidence floor refused right short phrases
and caught no wrong one (docs/adr/0098-voice-weighed-without-transcribing.md)."""


def short(proposal: Proposal) -> bool:
    """A call of a tool heard as ``SHORT_WORDS`` words or fewer."""
    return (
        proposal.call is not None
        and proposal.status is not ProposalStatus.NO_MATCH
        and len(proposal.heard.text.split()) <= SHORT_WORDS
    )


def worth_asking(proposal: Proposal) -> bool:
    """No call from the grammar, a call it was torn on or is doubtful of, a short one, or
    one holding a number (where its acoustic model errs most: "fifty" for "fifteen")."""
    return (
        proposal.status is ProposalStatus.NO_MATCH
        or bool(proposal.heard.alternatives)
        or doubtful(proposal.heard)
        or short(proposal)
        or (proposal.call is not None and bool(proposal.call.unusual))
        or (proposal.call is not None and holds_a_number(proposal.heard.text))
    )


SIDE_NATS = 0.4
"""How much likelier per token (natural log) Whisper must find another reading than the
grammar's phrase to take it: espeak-ng's "five", "twelve", "fifteen" are 0.6 to 1.7 per
token likelier than the "nine", "two", "fifty" the grammar heard; where the grammar was
right, no reading came within 0 of it (development voices, ADR 0056)."""
VETO_NATS = 3.5
"""How much likelier per token Whisper must find its own transcript than every reading
of a doubtful phrase to refuse it. Its misspellings of what it heard right ("Jet Log Count
Free" for "git log count three", "children status") come within 2.1 per token; speech of
real people forced onto a phrase ("five five" as "five of diamonds") lies 7.8 and more
beyond (development voices and the recordings of real people, ADR 0056)."""


ACCEPT_NATS = 2.5
"""For speech the grammar refused: how close per token Whisper must find a sentence of the
grammar to its own transcript to take it ("Shotless stage changes" → "show the staged
changes" 1.2, "short message changes" 2.1), and ``RIVAL_NATS`` further from every
sentence of another call. Speech no tool covers lies 3.2 and more from its nearest
sentence ("what is the weather" → "what is in this folder"; synthetic voices and real
people, ADR 0056)."""
RIVAL_NATS = 2.0


class Weighed(Struct, frozen=True):
    """Whisper's weight of each of the grammar's readings (its phrase first, then the
    other pass's and the other numbers'), and of Whisper's own transcript."""

    readings: Sequence[tuple[Proposal, Weight]]
    own: Weight


def _weighed_choice(grammar: Proposal, weighed: Weighed) -> Proposal | None:
    """The proposal Whisper's weights settle on, or None when they veto the phrase: a
    reading much likelier than the phrase is taken (another number, the other pass's
    phrase, or Whisper's own call); a doubtful phrase whose every reading is far less
    likely than what Whisper heard is refused."""
    phrase = weighed.readings[0][1]
    callable_ = [(p, w) for p, w in weighed.readings if p.call is not None]
    best, weight = max(callable_, key=lambda pw: pw[1].per_token, default=(grammar, phrase))
    likeliest = max(weight.per_token, phrase.per_token)
    checked = doubtful(grammar.heard) or short(grammar)
    if checked and weighed.own.per_token - likeliest > VETO_NATS:
        return None
    if best is not grammar and weight.per_token - phrase.per_token >= SIDE_NATS:
        said = best.heard.details.get("taken_as", best.heard.text)
        note = f"Whisper found “{said}” likelier than “{grammar.heard.text}”"
        best.heard.details["second_opinion"] = note
        if best.heard.backend == "whisper":
            best.heard.details["second_opinion_of"] = grammar.heard.text
        return best
    return grammar


def _vetoed(grammar: Proposal, whisper: Proposal) -> Proposal:
    """The grammar's doubtful phrase, refused because Whisper heard something else."""
    said = whisper.heard.text or "nothing"
    grammar.heard.details["second_opinion"] = f"Whisper heard {said!r}"
    return Proposal(
        grammar.heard,
        ProposalStatus.NO_MATCH,
        candidates=grammar.candidates,
        message=(
            f"No tool matches what was heard: “{grammar.heard.text}” fit the sound poorly "
            f"and Whisper heard “{said}”."
        ),
    )


def _sided_with(
    grammar: Proposal, whisper: Proposal, alternatives: Sequence[Proposal]
) -> Proposal | None:
    """The grammar's alternative phrase (the one the other pass heard, ``Heard.alternatives``)
    when Whisper's transcript sounds like it and closer than the phrase chosen: Whisper
    settles which of the two the grammar was torn between ("show the rest well notes":
    "twelve", not "two")."""
    said = whisper.heard.text
    if not said:
        return None
    chosen = sound_distance(said, grammar.heard.text) if grammar.heard.text else 1.0
    for alternative in alternatives:
        if alternative.call is None or alternative.status is ProposalStatus.NO_MATCH:
            continue
        distance = sound_distance(said, alternative.heard.text)
        if distance <= MAX_DISTANCE and distance < chosen:
            alternative.heard.details["second_opinion"] = f"Whisper heard {said!r}"
            return alternative
    return None


def _rescued(weighed: Weighed, whisper: Proposal) -> Proposal | None:
    """The sentence Whisper weighs nearly as likely as what it heard, when the grammar
    refused the speech and Whisper's transcript matched no form by sound; None when no
    sentence is close, or one of another call is about as close."""
    callable_ = sorted(
        ((w.per_token, p) for p, w in weighed.readings if p.call is not None),
        key=lambda wp: -wp[0],
    )
    if not callable_ or weighed.own.per_token - callable_[0][0] > ACCEPT_NATS:
        return None
    best = callable_[0][1]
    for weight, other in callable_[1:]:
        if other.call.name != best.call.name and callable_[0][0] - weight < RIVAL_NATS:  # type: ignore[union-attr]
            return None
    best.heard.details["second_opinion"] = (
        f"Whisper heard “{whisper.heard.text}”, nearly as likely as “{best.heard.text}”"
    )
    return best


def decide(
    grammar: Proposal,
    whisper: Proposal,
    alternatives: Sequence[Proposal] = (),
    weighed: Weighed | None = None,
) -> Proposal:
    """The proposal to show: Whisper's when it settles what the grammar could not, or the
    grammar's ``alternatives`` (its other readings) when Whisper sides with one. With
    ``weighed`` (Whisper's likelihood of each reading), the readings and the veto are
    judged by those weights instead of by how Whisper's transcript sounds."""
    asked_about_a_call = grammar.status is not ProposalStatus.NO_MATCH
    if weighed is not None and asked_about_a_call:
        chosen = _weighed_choice(grammar, weighed)
        return _vetoed(grammar, whisper) if chosen is None else chosen
    whisper_called = whisper.call is not None and whisper.status is not ProposalStatus.NO_MATCH
    if not whisper_called and not asked_about_a_call:
        rescued = None if weighed is None else _rescued(weighed, whisper)
        return rescued or grammar
    return _by_sound(grammar, whisper, alternatives)


def _by_sound(grammar: Proposal, whisper: Proposal, alternatives: Sequence[Proposal]) -> Proposal:
    """``decide`` without weights: Whisper's transcript compared with the grammar's
    phrases by how they sound (ADR 0045)."""
    asked_about_a_call = grammar.status is not ProposalStatus.NO_MATCH
    whisper_called = whisper.call is not None and whisper.status is not ProposalStatus.NO_MATCH
    same_tool = (
        whisper_called and grammar.call is not None and grammar.call.name == whisper.call.name  # type: ignore[union-attr]
    )
    # Whisper naming the grammar's tool settles the arguments itself (its digits); only
    # a transcript that is no call of that tool is used to choose between the readings.
    sided = None if same_tool else _sided_with(grammar, whisper, alternatives)
    if sided is not None:
        return sided
    checked = doubtful(grammar.heard) or short(grammar)
    if asked_about_a_call and checked and not same_tool:
        if sound_distance(whisper.heard.text, grammar.heard.text) > VETO_DISTANCE:
            return _vetoed(grammar, whisper)
        return grammar  # Whisper wrote the same sounds differently: no disagreement
    if not whisper_called or (asked_about_a_call and not same_tool):
        return grammar
    whisper.heard.details["second_opinion_of"] = grammar.heard.text or grammar.heard.rejected
    return whisper
