"""Two corpora the recognizer is held to besides the suite's synthetic fixtures.

* ``PEOPLE``: recordings of real people (``recordings/``, see README.md there), with
  what each must become. Decoded with the bundled skills plus ``skills/`` (cards, robot).
* ``DEV_VOICES``: synthetic voices no test uses, the *development* set the voice path is
  tuned on. Only ``benchmarks/voice_unseen.py`` speaks with them, at run time. The voices
  nothing is tuned on (the held-out set) are defined in that script alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RECORDINGS = HERE / "recordings"
SKILLS = HERE / "skills"


@dataclass(frozen=True)
class Recording:
    name: str
    tool: str | None
    """The exposed tool it must become; None: it must propose nothing."""
    arguments: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return RECORDINGS / f"{self.name}.flac"


IN_GRAMMAR = (
    Recording("cards-ten_of_clubs", "pick", {"rank": 10, "suit": "clubs"}),
    Recording("cards-seven_of_clubs", "pick", {"rank": 7, "suit": "clubs"}),
    Recording("goforward-go_forward_ten_meters", "drive", {"distance": 10}),
)
OUT_OF_GRAMMAR = (
    Recording("cards-four_queen_of_clubs", None),
    Recording("cards-five_five", None),
    Recording("cards-eight_of_spades_four_of_clubs_seven_of_hearts", None),
    Recording("numbers-a_string_of_numbers", None),
    Recording("something-go_somewhere_and_do_something", None),
    Recording("librivox-he_was_not_an_ill_disposed_young_man", None),
    Recording("librivox-he_might_even_have_been_made_amiable_himself", None),
    Recording("librivox-unless_to_be_rather_cold_hearted", None),
    Recording("librivox-and_mister_john_dashwood_had_then_leisure", None),
    Recording("librivox-had_he_married_a_more_amiable_woman", None),
)
PEOPLE = IN_GRAMMAR + OUT_OF_GRAMMAR

DEV_VOICES = {
    "flite-rms": ["flite", "-voice", "rms", "-t", "{text}", "-o", "{out}"],
    "flite-awb": ["flite", "-voice", "awb", "-t", "{text}", "-o", "{out}"],
    "flite-kal": ["flite", "-voice", "kal", "-t", "{text}", "-o", "{out}"],
    "espeak-f3": ["espeak-ng", "-v", "en-us+f3", "-w", "{out}", "{text}"],
    "espeak-m3": ["espeak-ng", "-v", "en-us+m3", "-w", "{out}", "{text}"],
    "espeak-gb": ["espeak-ng", "-v", "en-gb", "-w", "{out}", "{text}"],
}
"""Voices no test uses; thresholds and grammar changes may be chosen on them (they were
the held-out set of ADR 0036 until they had been looked at while tuning, ADR 0045)."""
