"""The command bar: fuzzy filtering, keyboard navigation, and the free-text seam."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from gibberish.assistant.fuzzy import FuzzyIndex
from gibberish.assistant.proposal import proposal_of
from gibberish.ui.command_bar.bar import CommandBar
from gibberish.ui.command_bar.routing import FuzzyRouter
from tests.ui.conftest import FakeApprovals, FakeForms, make_controller, tool_block, write_skill


def shown_refs(bar: CommandBar) -> list[str]:
    model = bar.results.model()
    return [model.index(i, 0).data(Qt.ItemDataRole.UserRole) for i in range(model.rowCount())]


def test_typing_filters_and_ranks_tools(qtbot, engine) -> None:
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.set_tools(engine.library.tools())
    assert len(shown_refs(bar)) == len(engine.library.tools())  # empty text lists everything
    qtbot.keyClicks(bar.input, "echo")
    assert shown_refs(bar)[0] == "hello.echo_text"
    bar.input.setText("greeting")  # matched by description
    assert shown_refs(bar) == ["hello.say_hello"]
    bar.input.setText("zzzz nothing")
    assert shown_refs(bar) == []
    assert "own words" in bar.hint.text()


def test_keyboard_navigation_and_enter_choose_a_tool(qtbot, engine) -> None:
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.set_tools(engine.library.tools())
    bar.popup()
    qtbot.keyClicks(bar.input, "a")
    first, second = shown_refs(bar)[:2]
    qtbot.keyClick(bar.input, Qt.Key.Key_Down)
    qtbot.keyClick(bar.input, Qt.Key.Key_Down)
    qtbot.keyClick(bar.input, Qt.Key.Key_Up)
    with qtbot.waitSignal(bar.tool_chosen) as chosen:
        qtbot.keyClick(bar.input, Qt.Key.Key_Return)
    assert chosen.args == [second] and second != first
    assert bar.isVisible()  # the tool opens in this same window


def test_escape_closes(qtbot, engine) -> None:
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.set_tools(engine.library.tools())
    bar.popup()
    assert bar.isVisible()
    qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_unmatched_text_goes_to_the_router_seam(qtbot, engine) -> None:
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.set_tools(engine.library.tools())
    bar.popup()
    qtbot.keyClicks(bar.input, "please tell me something nice")
    assert shown_refs(bar) == []
    with qtbot.waitSignal(bar.text_submitted) as submitted:
        qtbot.keyClick(bar.input, Qt.Key.Key_Return)
    assert submitted.args == ["please tell me something nice"]
    bar.popup()
    qtbot.keyClicks(bar.input, "echo")
    with qtbot.waitSignal(bar.text_submitted):  # Ctrl+Enter: free text even when tools match
        qtbot.keyClick(bar.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def test_command_bar_enter_opens_the_form_and_runs(qtbot, controller, forms) -> None:
    forms.values = {"text": "typed"}
    controller.open_command_bar()
    bar = controller.text.command_bar
    qtbot.keyClicks(bar.input, "echo text")
    qtbot.keyClick(bar.input, Qt.Key.Key_Return)
    assert forms.calls == [("hello.echo_text", {})]
    (session,) = controller.runs.sessions.values()
    qtbot.waitUntil(lambda: session.result is not None)
    assert session.window.output_text().strip() == "typed"


def test_free_text_uses_the_router_and_prefills_the_form(qtbot, engine) -> None:
    class ModelLike:
        instant = False  # runs on a worker thread, like a model would
        busy_text = "Thinking…"

        def propose(self, text, tools, *, mode=None, cancel=None):
            assert {t.ref for t in tools} >= {"hello.echo_text"}
            return proposal_of("hello.echo_text", {"text": text.upper()})

    forms = FakeForms({})
    controller = make_controller(engine, router=ModelLike(), forms=forms, approvals=FakeApprovals())
    controller.start()
    try:
        controller.text.route("shout this")
        qtbot.waitUntil(lambda: bool(controller.runs.sessions), timeout=3000)
        assert forms.calls == [("hello.echo_text", {"text": "SHOUT THIS"})]
        assert controller.text.asking.wait(10)
    finally:
        controller.shutdown()


def test_free_text_without_any_match_says_so(controller, notifications) -> None:
    controller.text.route("qqqq xxxx")
    assert notifications[-1][0] == "No tool found"


def test_fuzzy_router_proposes_the_best_match(engine) -> None:
    proposal = FuzzyRouter().propose("could you say hello please", engine.library.tools())
    assert proposal is not None and proposal.ref == "hello.say_hello"
    assert FuzzyRouter().propose("qqqq", engine.library.tools()) is None


def test_second_instance_message_opens_the_command_bar(controller) -> None:
    controller.handle_message("open-command-bar")
    assert controller.text.command_bar.isVisible()
    controller.text.command_bar.hide()
    controller.handle_message("ask say hello")
    assert "hello.say_hello" in {s.prepared.ref for s in controller.runs.sessions.values()}


def test_reopening_keeps_the_index_until_the_library_changes(qtbot, controller, skills_dir) -> None:
    controller.open_command_bar()
    bar = controller.text.command_bar
    index = bar.index
    assert index is not None
    qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
    controller.open_command_bar()
    assert bar.index is index  # nothing changed: the same index, not a new one
    controller.reload()
    controller.open_command_bar()
    assert bar.index is index  # a reload that found no change keeps it too

    write_skill(
        skills_dir,
        "hello",
        [tool_block("say_hello", "Print a friendly greeting in Esperanto.", "echo saluton")],
    )
    controller.reload()
    controller.open_command_bar()
    assert bar.index is not index  # the library changed: a new index, with the new text
    qtbot.keyClicks(bar.input, "esperanto")
    assert shown_refs(bar) == ["hello.say_hello"]


def test_reopening_after_a_change_ranks_nothing_it_will_not_show(
    qtbot, controller, skills_dir
) -> None:
    """The words typed before closing are gone when the bar opens again: the new index
    (after a library change) is not asked to rank them."""
    controller.open_command_bar()
    bar = controller.text.command_bar
    qtbot.keyClicks(bar.input, "say")
    qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
    write_skill(skills_dir, "hello", [tool_block("say_hello", "Greets in Esperanto.", "echo")])
    controller.reload()
    asked: list[str] = []
    rank = FuzzyIndex.rank

    def spy(self, query, *args, **kwargs):
        asked.append(query)
        return rank(self, query, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FuzzyIndex, "rank", spy)
        controller.open_command_bar()
    assert bar.input.text() == "" and asked == []
    qtbot.keyClicks(bar.input, "esperanto")
    assert shown_refs(bar) == ["hello.say_hello"]


def test_a_mode_change_offers_other_tools(qtbot, controller, skills_dir) -> None:
    write_skill(
        skills_dir,
        "meet",
        [tool_block("mute_all", "Mute everyone.", "echo muted")],
        extra="modes: [Meeting]",
    )
    controller.reload()
    controller.set_mode("Dev")
    controller.open_command_bar()
    bar = controller.text.command_bar
    qtbot.keyClicks(bar.input, "mute")
    assert shown_refs(bar) == []
    controller.set_mode("Meeting")
    controller.open_command_bar()
    qtbot.keyClicks(bar.input, "mute")
    assert shown_refs(bar) == ["meet.mute_all"]


def test_a_new_index_splits_words_off_the_gui_thread_and_a_patched_one_at_once(
    qtbot, controller, skills_dir
) -> None:
    """The first index's word postings are made on a thread of their own (tens of
    milliseconds at 5,000 tools); after an edit the patched index has them already."""
    threads: list[threading.Thread] = []
    prepare = FuzzyIndex.prepare

    def spy(self) -> None:
        threads.append(threading.current_thread())
        prepare(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FuzzyIndex, "prepare", spy)
        controller.open_command_bar()
        bar = controller.text.command_bar
        qtbot.waitUntil(lambda: bar.index.prepared)
        assert threads and threading.main_thread() not in threads
        qtbot.keyClicks(bar.input, "say")
        qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
        tools = [tool_block(n, f"{n} in Esperanto.", "echo") for n in ("say_hello", "echo_text")]
        write_skill(skills_dir, "hello", tools)  # as many tools as before: a patch
        controller.reload()
        controller.open_command_bar()
        assert bar.index.prepared and len(threads) == 1
    qtbot.keyClicks(bar.input, "say esperanto")
    assert shown_refs(bar) == ["hello.say_hello"]


def test_the_bar_and_its_index_are_made_ahead_of_the_first_open(qtbot, engine, monkeypatch) -> None:
    """A while after the load the bar is made, hidden, and its ranker over the tools on a
    thread, so that the first hotkey press only shows it."""
    from gibberish.ui import lifecycle as controller_module

    made_on: list[threading.Thread] = []
    for_tools = FuzzyIndex.for_tools.__func__

    def spy(cls, tools, **kwargs):
        made_on.append(threading.current_thread())
        return for_tools(cls, tools, **kwargs)

    monkeypatch.setattr(FuzzyIndex, "for_tools", classmethod(spy))
    monkeypatch.setattr(controller_module, "COMMAND_BAR_WARM_UP_MS", 10)
    ctl = make_controller(engine, forms=FakeForms(), approvals=FakeApprovals())
    ctl.start()
    try:
        made = lambda: ctl.text.command_bar is not None and ctl.text.command_bar.index_made_ahead  # noqa: E731
        qtbot.waitUntil(made)
        bar = ctl.text.command_bar
        assert not bar.isVisible() and bar.index is None
        ctl.open_command_bar()
        assert bar.isVisible() and bar.index is not None and not bar.index_made_ahead
        assert len(made_on) == 1 and made_on[0] is not threading.main_thread()
        qtbot.keyClicks(bar.input, "greeting")
        assert shown_refs(bar) == ["hello.say_hello"]
    finally:
        ctl.shutdown()


def test_the_bar_is_not_made_ahead_while_a_menu_is_open(qtbot, engine, monkeypatch) -> None:
    """Making the bar ahead holds the GUI thread for a while: never while a menu shows."""
    from PySide6.QtWidgets import QApplication, QMenu

    from gibberish.ui import lifecycle as controller_module

    monkeypatch.setattr(controller_module, "COMMAND_BAR_WARM_UP_MS", 10)
    monkeypatch.setattr(controller_module, "COMMAND_BAR_WARM_UP_RETRY_MS", 20)
    menu = QMenu()
    menu.addAction("open")
    menu.popup(menu.pos())
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is menu)
    ctl = make_controller(engine, forms=FakeForms(), approvals=FakeApprovals())
    ctl.start()
    try:
        qtbot.wait(300)  # fifteen retries: none made the bar while the menu showed
        assert ctl.text.command_bar is None
        menu.hide()
        qtbot.waitUntil(lambda: ctl.text.command_bar is not None)
    finally:
        ctl.shutdown()


def test_the_popup_is_as_tall_as_its_rows_as_you_type(qtbot) -> None:
    """Fitted to the screen when it opens, the popup still shrinks and grows with the
    rows at every letter (never left at the empty query's height)."""
    from gibberish.engine.core import Engine, EngineOptions

    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.set_tools(Engine(EngineOptions(include_user=False)).library.tools())
    bar.popup()
    full = bar.height()
    bar.input.setText("disk usage")
    assert bar.model.rowCount() < 4
    assert bar.height() < full - 2 * bar.results.sizeHintForRow(0)
    bar.input.clear()
    assert bar.height() == full
