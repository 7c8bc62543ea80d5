"""The committed WAVs are what the synthesizers make today (when they are installed)."""

from __future__ import annotations

import pytest

from gibberish.voice import ProposalStatus, VoiceConfig, WavSource
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, regenerate, synthesizers_missing

missing = synthesizers_missing()


@pytest.mark.skipif(bool(missing), reason=f"synthesizers not installed: {missing}")
def test_regenerated_fixtures_decode_like_the_committed_ones(tmp_path, service, catalog) -> None:
    made = {p.name: p for p in regenerate(tmp_path)}
    assert len(made) >= len(IN_GRAMMAR) * 3
    checks = [(IN_GRAMMAR[2], "git_log", {"count": 5}), (OUT_OF_GRAMMAR[0], None, None)]
    for phrase, tool, args in checks:
        proposal = service.listen(WavSource(made[f"slt-{phrase.slug}.wav"]), catalog, VoiceConfig())
        if tool is None:
            assert proposal.status is ProposalStatus.NO_MATCH
        else:
            assert (proposal.call.name, dict(proposal.call.arguments)) == (tool, args)
