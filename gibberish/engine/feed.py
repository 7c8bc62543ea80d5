"""The feed facade: what a model is shown, and asking it.

The catalog and tool index of a mode (built once per library change), the model
settings, routing a request, and the context blocks: the pinned ones (kept in one
:class:`PinStore`, built once) and those loaded for this session. Front ends change pins
and the session's blocks only through here. The model code (httpx) is imported on first
use, so the tray's start-up does not pay for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from gibberish.engine.library import LibraryFacade
from gibberish.engine.values import EngineError
from gibberish.settings import Settings
from gibberish.skills.model import Mode

if TYPE_CHECKING:
    from gibberish.assistant import ModelClient, ModelSettings, Proposal, ToolCatalog
    from gibberish.assistant.context_blocks import ContextBlock, ContextFeed
    from gibberish.assistant.context_store import PinStore
    from gibberish.assistant.tool_index import ToolIndex, ToolIndexCache


class FeedFacade:
    def __init__(
        self,
        library: LibraryFacade,
        settings: Callable[[], Settings],
        current_mode: Callable[[], Mode],
        notice: Callable[[str], None],
    ) -> None:
        self._library = library
        self._settings = settings
        self._current_mode = current_mode
        self._notice = notice
        self._tool_indexes: ToolIndexCache | None = None
        self._pins: PinStore | None = None
        self.session_context: set[str] = set()
        """Context blocks loaded for this session (the tray's Context menu); change it with
        :meth:`toggle_block` and :meth:`pin_session`."""

    # ------------------------------------------------------------------ tools
    def catalog(self, mode: Mode | None = None) -> ToolCatalog:
        """The tools offered to a model in ``mode``, with their exposed (unique) names."""
        return self.tool_index(mode).catalog

    def tool_index(self, mode: Mode | None = None) -> ToolIndex:
        """The model feed's index of the tools of ``mode``: built once per library change
        (the library's skill definitions, compared by identity) and reused by every request
        until then (docs/adr/0020-router-index.md)."""
        if self._tool_indexes is None:
            self._tool_indexes = _index_cache(lambda: self._library.skill_library)
        index = self._tool_indexes.get(self._library.skills(), mode)
        self._tool_indexes.save(index)  # what was analysed afresh, for the next process
        return index

    def model_settings(self, **overrides: Any) -> ModelSettings:
        """The model settings from the settings file, with ``overrides`` (None values
        ignored) and, for an OpenAI-compatible server, the key from the keyring."""
        from gibberish.assistant.model_api_key import model_api_key
        from gibberish.assistant.settings import Api

        values = {k: v for k, v in overrides.items() if v is not None}
        settings = replace(self._settings().model, **values)
        if settings.api is Api.OPENAI:
            settings = replace(settings, api_key=model_api_key())
        return settings

    def route(
        self,
        request: str,
        *,
        mode: Mode | None = None,
        client: ModelClient | None = None,
        cancel: threading.Event | None = None,
        on_text: Callable[[str], None] | None = None,
        context: str | None = None,
    ) -> Proposal[None]:
        """Ask the model which tool fits ``request``. The answer is only a proposal: the
        caller still goes through ``prepare`` and the decision table, as for a click.

        ``context`` is the context-block text for the user turn; None means the pinned and
        session blocks (``context_feed``)."""
        from gibberish.assistant import Router, client_for

        if mode is None:
            mode = self._current_mode()
        client = client or client_for(self.model_settings())
        router = Router(client, budget=client.settings.budget)
        if context is None:
            context = self.context_feed(request).text
        return router.route(
            request, self.tool_index(mode), cancel=cancel, on_text=on_text, context=context
        )

    # ------------------------------------------------------------------ context blocks
    def context_blocks(self) -> list[ContextBlock]:
        """Skills without tools, then imported blocks (a skill's name wins), by name."""
        from gibberish.assistant.context_blocks import context_blocks
        from gibberish.assistant.context_folders import imported_blocks

        blocks = {b.name: b for b in context_blocks(self._library.skills())}
        for block in imported_blocks():
            blocks.setdefault(block.name, block)
        return [blocks[name] for name in sorted(blocks)]

    def _pin_store(self) -> PinStore:
        if self._pins is None:
            from gibberish.assistant.context_store import PinStore

            self._pins = PinStore()
        return self._pins

    def pinned(self) -> list[str]:
        """The blocks pinned for every session (a broken pin file is a notice, and none)."""
        store = self._pin_store()
        names = store.names()
        if store.problem:
            self._notice(store.problem)
        return names

    def pin(self, name: str) -> bool:
        """Pin ``name`` for every session; False when it already was."""
        return self._pin_store().pin(name)

    def unpin(self, name: str) -> bool:
        """Unpin ``name``; False when it was not pinned."""
        return self._pin_store().unpin(name)

    def toggle_block(self, name: str) -> None:
        """The Context menu's click: a pinned or loaded block goes, another is loaded."""
        if self.unpin(name) or name in self.session_context:
            self.session_context.discard(name)
        else:
            self.session_context.add(name)

    def pin_session(self) -> None:
        """Pin every block loaded for this session (they stay checked, now pinned)."""
        for name in sorted(self.session_context):
            self.pin(name)
        self.session_context.clear()

    def context_feed(
        self, request: str, request_blocks: Sequence[str] = (), budget: int | None = None
    ) -> ContextFeed:
        """Pinned blocks, the session's (``session_context``), and ``request_blocks``."""
        from gibberish.assistant.context_blocks import (
            DEFAULT_CONTEXT_BUDGET,
            Attached,
            Zone,
            build_feed,
        )

        pinned = self.pinned()
        if not (pinned or self.session_context or request_blocks):
            return build_feed([], request, budget or DEFAULT_CONTEXT_BUDGET)  # nothing to read
        by_name = {b.name: b for b in self.context_blocks()}
        unknown = [n for n in request_blocks if n not in by_name]
        if unknown:
            known = ", ".join(by_name) or "none"
            raise EngineError(
                f"No context block named {unknown[0]!r}. Known blocks: {known}. A context "
                "block is a skill without tools; `gibberish context scan` finds other agents' skills."
            )
        zones = [(pinned, Zone.PINNED), (sorted(self.session_context), Zone.SESSION)]
        zones.append((list(request_blocks), Zone.REQUEST))
        attached = [
            Attached(by_name[n], zone) for names, zone in zones for n in names if n in by_name
        ]
        return build_feed(attached, request, budget or DEFAULT_CONTEXT_BUDGET)


def _index_cache(library: Callable[[], Any]) -> ToolIndexCache:
    """The tool indexes, with the analyses saved next to ``library``'s parse cache."""
    from gibberish.assistant.budget import functiongemma_cost, json_cost
    from gibberish.assistant.saved_analysis import SavedAnalyses
    from gibberish.assistant.tool_index import ToolIndexCache

    costs = {"functiongemma": functiongemma_cost, "json": json_cost}
    return ToolIndexCache(SavedAnalyses(library, costs))
