"""The second, utterance-normalized pass: what it recovers, and that it is what recovers it.

Each case is one the streaming pass (fixed prior cepstral mean) gets wrong on the committed
fixtures; the same recognizer with ``second_pass=False`` shows the miss, so these tests
fail when the second pass stops running or stops deciding.
"""

from __future__ import annotations

import pytest

from gibberish.voice import WavSource
from gibberish.voice.listen import capture
from gibberish.voice.sphinx import SphinxRecognizer
from tests.voice.corpus import IN_GRAMMAR, fixture

DIFF = next(p for p in IN_GRAMMAR if p.text == "show the diff")
FIFTEEN = next(p for p in IN_GRAMMAR if p.text == "show the top fifteen processes")
UPTIME = next(p for p in IN_GRAMMAR if p.text == "show the uptime")
CASES = (
    (DIFF, "slt", "utterance"),
    (FIFTEEN, "kal16", "utterance"),
    (IN_GRAMMAR[11], "espeak", "utterance"),
    (UPTIME, "espeak", "words-only"),
)
"""A rejection turned into the phrase (slt, espeak-ng), a neighbouring number ("fifty"
for "fifteen", flite kal16) corrected, and a final word that only the search without
silence between words keeps ("show the uptime" was "show the <silence>")."""


@pytest.fixture(scope="module")
def recognizers(service, catalog):
    grammar = service.grammar(catalog)
    return {on: SphinxRecognizer(grammar, second_pass=on) for on in (False, True)}


@pytest.mark.parametrize(("phrase", "voice", "how"), CASES, ids=lambda c: getattr(c, "slug", c))
def test_the_normalized_pass_recovers_what_streaming_missed(recognizers, phrase, voice, how):
    path = fixture(phrase, voice)
    streaming = capture(WavSource(path), recognizers[False])
    both = capture(WavSource(path), recognizers[True])
    assert streaming.rejected or streaming.text != phrase.text
    assert not both.rejected, both.rejected
    assert both.text == phrase.text
    assert both.details["normalized"] == how


def test_speech_the_streaming_pass_accepts_without_a_number_skips_it(recognizers):
    heard = capture(WavSource(fixture(IN_GRAMMAR[0], "slt")), recognizers[True])
    assert heard.text == "show git status"
    assert "normalized" not in heard.details


def test_a_phrase_the_second_pass_changed_is_kept_as_the_alternative(recognizers) -> None:
    """kal16's "fifteen": streaming heard "fifty", the second pass "fifteen"; the person
    sees both before anything runs."""
    heard = capture(WavSource(fixture(FIFTEEN, "kal16")), recognizers[True])
    assert heard.text == FIFTEEN.text
    assert heard.alternatives == ("show the top fifty processes",)
    assert (
        heard.quoted()
        == "“show the top fifteen processes”, or perhaps “show the top fifty processes”"
    )


def test_a_rejection_the_second_pass_recovered_has_no_alternative(recognizers) -> None:
    heard = capture(WavSource(fixture(DIFF, "slt")), recognizers[True])
    assert heard.text == DIFF.text
    assert heard.alternatives == ()
    assert heard.quoted() == "“show the diff”"
