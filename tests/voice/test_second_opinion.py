"""Whisper as the grammar recognizer's second opinion: when it is asked, what it settles,
and that speech no tool covers stays no match."""

from __future__ import annotations

import threading

import msgspec.structs
import pytest

from gibberish.assistant import validate_call
from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal
from gibberish.voice import ProposalStatus, VoiceConfig, VoiceError, VoiceService, WavSource, spoken
from gibberish.voice.second_opinion import decide, worth_asking
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, fixture
from tests.voice.test_whisper import _model_folder, needs_model

DIFF = next(p for p in IN_GRAMMAR if p.text == "show the diff")
FIFTEEN = next(p for p in IN_GRAMMAR if p.text == "show the top fifteen processes")


def _proposal(catalog, text: str, call: tuple | None, *, alternatives=(), backend="whisper"):
    heard = Heard(text, 0.8, tuple(alternatives), backend)
    if call is None:
        return Proposal(heard, ProposalStatus.NO_MATCH)
    return Proposal(heard, ProposalStatus.OK, calls=(validate_call(call, catalog),))


def test_whisper_settles_a_rejection(catalog) -> None:
    grammar = _proposal(catalog, "", None, backend="pocketsphinx")
    whisper = _proposal(catalog, "Show the dip", ("git_diff", {}))
    assert worth_asking(grammar)
    assert decide(grammar, whisper) is whisper
    assert "second_opinion_of" in whisper.heard.details


def test_whisper_settles_a_torn_number_only_for_the_same_tool(catalog) -> None:
    torn = _proposal(
        catalog,
        "show the top eighty three processes",
        ("top_processes", {"count": 83}),
        alternatives=["show the top fifty processes"],
        backend="pocketsphinx",
    )
    assert worth_asking(torn)
    same = _proposal(catalog, "Show the top 15 process.", ("top_processes", {"count": 15}))
    assert decide(torn, same) is same
    other = _proposal(catalog, "Show the top commits", ("git_log", {}))
    assert decide(torn, other) is torn
    nothing = _proposal(catalog, "Show the tap", None)
    assert decide(torn, nothing) is torn


def test_a_call_the_grammar_is_sure_of_is_not_asked_about_unless_it_is_short(catalog) -> None:
    sure = _proposal(catalog, "what is the git status", ("git_status", {}), backend="pocketsphinx")
    assert not worth_asking(sure)
    short = _proposal(catalog, "show git status", ("git_status", {}), backend="pocketsphinx")
    assert worth_asking(short)


def _doubtful(catalog, text: str, call: tuple, fit: float = -4.5) -> Proposal:
    proposal = _proposal(catalog, text, call, backend="pocketsphinx")
    proposal.heard.details["acoustic_fit"] = fit
    return proposal


def test_a_doubtful_call_is_asked_about_and_vetoed_when_whisper_hears_no_tool(catalog) -> None:
    """ "five five" forced onto "find files": the path fits the sound poorly (ADR 0036)."""
    grammar = _doubtful(catalog, "find files", ("find_files", {}))
    assert worth_asking(grammar)
    vetoed = decide(grammar, _proposal(catalog, "5-5.", None))
    assert vetoed.status is ProposalStatus.NO_MATCH and vetoed.call is None
    assert "5-5." in vetoed.message and "find files" in vetoed.message
    other = decide(grammar, _proposal(catalog, "Show git status.", ("git_status", {})))
    assert other.status is ProposalStatus.NO_MATCH


@pytest.mark.parametrize(
    ("text", "call", "whispered"),
    [
        ("git log count three", ("git_log", {"count": 3}), "just low count 3"),
        ("show disk usage", ("disk_usage", {}), "Show this, use it."),
    ],
)
def test_a_doubtful_call_whisper_misspells_is_not_vetoed(catalog, text, call, whispered) -> None:
    """Whisper tiny.en's spelling of synthetic speech it heard right: a third of the
    phones off, but not the half that speech forced onto a phrase is ("5-5.")."""
    grammar = _doubtful(catalog, text, call)
    assert decide(grammar, _proposal(catalog, whispered, None)) is grammar


def test_whisper_sides_with_the_phrase_the_other_pass_heard(catalog) -> None:
    """The grammar's two passes were torn between "two" and "twelve"; Whisper's "rest well
    notes" sounds like the second: it is taken, with its own number."""
    torn = _doubtful(catalog, "show the last two notes", ("read_notes", {"count": 2}), fit=-3.2)
    torn = msgspec.structs.replace(
        torn,
        heard=msgspec.structs.replace(torn.heard, alternatives=("show the last twelve notes",)),
    )
    other = _proposal(
        catalog, "show the last twelve notes", ("read_notes", {"count": 12}), backend="pocketsphinx"
    )
    whisper = _proposal(catalog, "Show the rest well notes.", None)
    chosen = decide(torn, whisper, [other])
    assert chosen is other and chosen.call.arguments == {"count": 12}
    assert "rest well" in chosen.heard.details["second_opinion"]
    # Whisper sounding like neither: the grammar's own answer (here vetoed as doubtful).
    assert decide(torn, _proposal(catalog, "So, now, let's go!", None), [other]) is not other
    # An alternative no tool takes is never chosen.
    nothing = _proposal(catalog, "show the last twelve notes", None, backend="pocketsphinx")
    assert decide(torn, whisper, [nothing]) is not nothing


def test_whisper_naming_the_same_tool_settles_the_number_not_a_reading(catalog) -> None:
    """espeak-ng's "fifteen": the grammar torn between 83 and 50, Whisper "15" for the same
    tool. "15" sounds like the reading "fifty", but Whisper's own value is taken."""
    torn = _doubtful(
        catalog, "show the top eighty three processes", ("top_processes", {"count": 83})
    )
    torn = msgspec.structs.replace(
        torn,
        heard=msgspec.structs.replace(torn.heard, alternatives=("show the top fifty processes",)),
    )
    fifty = _proposal(
        catalog,
        "show the top fifty processes",
        ("top_processes", {"count": 50}),
        backend="pocketsphinx",
    )
    whisper = _proposal(catalog, "Show the top 15 processing", ("top_processes", {"count": 15}))
    assert decide(torn, whisper, [fifty]) is whisper


def test_a_doubtful_call_whisper_only_spells_differently_stands(catalog) -> None:
    """Whisper's transcript matches no tool but sounds like the grammar's phrase: the two
    recognizers agree on the sounds, so the grammar's call is kept."""
    grammar = _doubtful(catalog, "show the staged changes", ("git_diff", {"staged": True}))
    assert decide(grammar, _proposal(catalog, "Show the stage changes.", None)) is grammar


def test_a_doubtful_call_whisper_confirms_takes_whisper_s_arguments(catalog) -> None:
    grammar = _doubtful(catalog, "show the last nine commits", ("git_log", {"count": 9}))
    whisper = _proposal(catalog, "Show the last 5 commits.", ("git_log", {"count": 5}))
    assert decide(grammar, whisper) is whisper


def test_a_call_that_fits_the_sound_is_not_doubted(catalog) -> None:
    fits = _doubtful(catalog, "what is the git status", ("git_status", {}), fit=-1.5)
    assert not worth_asking(fits)


@pytest.fixture(scope="module")
def asking():
    return VoiceConfig("pocketsphinx", str(_model_folder()), second_opinion=True)


@needs_model
@pytest.mark.parametrize(("phrase", "arguments"), [(DIFF, {}), (FIFTEEN, {"count": 15})])
def test_espeak_requests_the_grammar_misses_are_settled_by_whisper(
    service, catalog, asking, phrase, arguments
) -> None:
    source = fixture(phrase, "espeak")
    alone = service.listen(
        WavSource(source), catalog, msgspec.structs.replace(asking, second_opinion=False)
    )
    assert (alone.call is None) or dict(alone.call.arguments) != phrase.arguments
    both = service.listen(WavSource(source), catalog, asking)
    assert both.status is ProposalStatus.OK, both.heard.quoted()
    assert (both.call.name, dict(both.call.arguments)) == (phrase.tool, arguments)
    assert both.heard.backend == "whisper"
    assert "second_opinion_of" in both.heard.details


@needs_model
@pytest.mark.parametrize("voice", ["slt", "espeak"])
def test_speech_no_tool_covers_stays_no_match_with_a_second_opinion(
    service, catalog, asking, voice
) -> None:
    for phrase in OUT_OF_GRAMMAR:
        proposal = service.listen(WavSource(fixture(phrase, voice)), catalog, asking)
        assert proposal.status is ProposalStatus.NO_MATCH, proposal.heard.quoted()


@needs_model
def test_the_setting_reaches_the_engine(engine, catalog) -> None:
    settings = engine.settings
    voice = msgspec.structs.replace(settings.voice, model_folder=str(_model_folder()))
    engine.update_settings(msgspec.structs.replace(settings, voice=voice))
    try:
        proposal = spoken.listen(engine, WavSource(fixture(DIFF, "espeak")))
        assert proposal.call is not None and proposal.call.name == "git_diff"
        off = msgspec.structs.replace(voice, second_opinion=False)
        engine.update_settings(msgspec.structs.replace(settings, voice=off))
        assert (
            spoken.listen(engine, WavSource(fixture(DIFF, "espeak"))).status
            is ProposalStatus.NO_MATCH
        )
    finally:
        engine.update_settings(settings)


class _Transcriber:
    """Stands in for the Whisper model in the service's bookkeeping tests: it hears
    nothing, and records what it was given and on which thread it was made."""

    backend = "whisper"

    def __init__(self) -> None:
        self.made_on = threading.current_thread().name
        self.fed = 0

    def start(self) -> None:
        self.fed = 0

    def feed(self, pcm: bytes) -> None:
        self.fed += len(pcm)

    def finish(self) -> Heard:
        return Heard("", 0.0, backend="whisper", timings={"finish": 0.0, "decode": 0.0})


@pytest.fixture
def fake_whisper(monkeypatch):
    """A fresh service whose Whisper loads are recorded; PocketSphinx stays real."""
    made: list[_Transcriber] = []
    real_build = VoiceService._build

    def build(grammar, config):
        if config.backend != "whisper":
            return real_build(grammar, config)
        if config.model_folder == "broken":
            raise VoiceError("broken holds no Whisper model (no model.bin).")
        made.append(_Transcriber())
        return made[-1]

    monkeypatch.setattr(VoiceService, "_build", staticmethod(build))
    monkeypatch.setattr(VoiceService, "_can_ask", staticmethod(lambda config: True))
    return VoiceService(), made


def test_whisper_is_loaded_while_the_person_speaks_and_used_when_asked(
    fake_whisper, catalog
) -> None:
    service, made = fake_whisper
    config = VoiceConfig("pocketsphinx", "tiny.en", second_opinion=True)
    sure = service.listen(WavSource(fixture(IN_GRAMMAR[1], "slt")), catalog, config)
    assert sure.heard.backend == "pocketsphinx" and sure.call.name == "git_status"
    refused = service.listen(WavSource(fixture(OUT_OF_GRAMMAR[0], "slt")), catalog, config)
    assert refused.status is ProposalStatus.NO_MATCH
    assert [m.made_on for m in made] == ["whisper-load"]  # once, off the listening thread
    assert made[0].fed > 16000  # it was given the refused utterance
    other = msgspec.structs.replace(config, model_folder="small.en")  # the setting changed
    service.listen(WavSource(fixture(OUT_OF_GRAMMAR[0], "slt")), catalog, other)
    assert [m.made_on for m in made] == ["whisper-load"] * 2 and made[1].fed > 16000


def test_a_whisper_model_that_cannot_load_leaves_the_grammar_answer_and_says_why(
    fake_whisper, catalog
) -> None:
    service, made = fake_whisper
    config = VoiceConfig("pocketsphinx", "broken", second_opinion=True)
    for _ in range(2):
        refused = service.listen(WavSource(fixture(OUT_OF_GRAMMAR[0], "slt")), catalog, config)
        assert refused.status is ProposalStatus.NO_MATCH
        assert "no model.bin" in refused.heard.details["second_opinion"]
    assert service._loading is None and ("whisper", "broken") in service._unloadable
    assert made == []


def test_a_weakly_heard_number_is_asked_about_and_whisper_s_value_taken(catalog) -> None:
    grammar = _proposal(catalog, "show the last nine commits", None, backend="pocketsphinx")
    call = validate_call(("git_log", {"count": 9}), catalog)
    unsure = msgspec.structs.replace(
        call, unusual=("count=9 (the recognizer is unsure of “nine”)",)
    )
    grammar = msgspec.structs.replace(grammar, status=ProposalStatus.OK, calls=(unsure,))
    assert worth_asking(grammar)
    whisper = _proposal(catalog, "Show the last 5 commits.", ("git_log", {"count": 5}))
    assert decide(grammar, whisper) is whisper
    other = _proposal(catalog, "Show git status.", ("git_status", {}))
    assert decide(grammar, other) is grammar
