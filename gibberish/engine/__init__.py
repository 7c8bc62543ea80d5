"""The Engine's facades, one concern each (docs/adr/0001-layers.md).

``library`` (where skills come from, loading, lookup, tools), ``trust`` (decisions,
fingerprints, approvals with their copies, secrets), ``runs`` (prepare, start, recent,
cancel) and ``feed`` (what the model is shown: catalog, tool index, model settings,
routing, context blocks and pins). :class:`gibberish.engine.core.Engine` composes them; front
ends reach each through it (``engine.runs.prepare(...)``). Nothing is imported here, so
importing one facade does not load the others.
"""
