"""The Engine and its facades, one concern each (docs/architecture.md).

``core`` is the Engine: it composes the facades ``library`` (where skills come from,
loading, lookup, tools), ``trust`` (decisions, fingerprints, approvals with their copies,
secrets), ``runs`` (prepare, start, recent, cancel) and ``feed`` (what the model is shown:
catalog, tool index, model settings, routing, context blocks and pins). ``values`` holds
what crosses its boundary, and ``run_flow`` the flow every front end shares (resolve,
ask, decide, approve, notify). Front ends reach each facade through the Engine
(``engine.runs.prepare(...)``). Nothing is imported here, so importing one facade does
not load the others.
"""
