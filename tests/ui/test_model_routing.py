"""Natural-language routing in the command bar, against a real loopback model server.

Every test talks HTTP to ``FakeModelServer`` on 127.0.0.1 (or to a closed port) through
the real Engine → Router → client path; the form and the approval dialog are answered
through the controller's seams (or, where the marking of fields matters, by the real
form). No worker thread may outlive a test.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from msgspec.structs import replace
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from gibberish.assistant.proposal import proposal_of
from gibberish.engine.core import Engine, EngineOptions
from gibberish.settings import ModelSettings
from gibberish.skills.model import Mode
from gibberish.ui.command_bar.routing import FuzzyRouter, ModelRouter
from gibberish.ui.controller import Controller
from gibberish.ui.runs.param_form import FormPrompter, ParameterForm
from tests.assistant.fakeserver import Calls, FakeModelServer, Stall, Text
from tests.ui.conftest import FakeApprovals, FakeForms, make_controller, tool_block, write_skill


def call(name: str, **args: str) -> Text:
    """A FunctionGemma reply calling ``name`` with string arguments."""
    inner = ",".join(f"{k}:<escape>{v}<escape>" for k, v in args.items())
    return Text(f"<start_function_call>call:{name}{{{inner}}}<end_function_call>")


def use_model(engine: Engine, endpoint: str, **fields: Any) -> None:
    """Persist ``[model] enabled = true`` pointing at ``endpoint`` (as the dialog would)."""
    values: dict[str, Any] = {"enabled": True, "endpoint": endpoint, "timeout": 10.0} | fields
    engine.update_settings(replace(engine.settings, model=ModelSettings(**values)))


POOLED = "gibberish-run"
"""The runner's pool threads stay idle for a while after a run, by design (runner/workers.py)."""


@pytest.fixture
def no_threads_left() -> Iterator[None]:
    """Fails the test when a thread it started (asking worker, server) is still alive."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 10
    leaked: list[threading.Thread] = []
    while time.monotonic() < deadline:
        leaked = [
            t
            for t in threading.enumerate()
            if t not in before and t.is_alive() and t.name != POOLED
        ]
        if not leaked:
            break
        time.sleep(0.02)
    assert not leaked, f"threads left running: {leaked}"


@pytest.fixture
def ctl(no_threads_left, controller: Controller) -> Iterator[Controller]:
    """The started controller; on teardown every asking thread must have ended."""
    yield controller
    if controller.text._asking is not None:
        assert controller.text.asking.wait(10), "an asking thread is still running"


@pytest.fixture
def model(ctl: Controller, engine: Engine) -> Iterator[FakeModelServer]:
    """A fake Ollama on 127.0.0.1 serving ``functiongemma``, configured in the settings."""
    server = FakeModelServer().start()
    use_model(engine, server.url)
    try:
        yield server
    finally:
        server.stop()  # releases any Stall, so a cancelled worker can finish
        if ctl.text._asking is not None:
            assert ctl.text.asking.wait(10)


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def type_and_enter(qtbot, ctl: Controller, text: str, *, ctrl: bool = False) -> Any:
    ctl.open_command_bar()
    bar = ctl.text.command_bar
    assert bar is not None
    qtbot.keyClicks(bar.input, text)
    modifier = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    qtbot.keyClick(bar.input, Qt.Key.Key_Return, modifier)
    return bar


def wait_for_answer(qtbot, ctl: Controller, timeout: int = 10_000) -> None:
    qtbot.waitUntil(lambda: not ctl.text.asking.busy, timeout=timeout)


def while_modal(check: Callable[[ParameterForm], None]) -> QTimer:
    """Run ``check`` on the parameter form once it is shown modally (the real dialog)."""
    timer = QTimer()
    timer.setInterval(20)

    def poll() -> None:
        form = QApplication.activeModalWidget()
        if isinstance(form, ParameterForm) and form.isVisible():
            timer.stop()
            check(form)

    timer.timeout.connect(poll)
    timer.start()
    return timer


# --------------------------------------------------------------------------- the model answers


def test_free_text_is_asked_and_the_call_runs_after_the_form_and_the_approval(
    qtbot, ctl: Controller, model: FakeModelServer
) -> None:
    model.queue(call("echo_text", text="hi from the model"))
    assert isinstance(ctl.text.router, ModelRouter)
    ctl.open_command_bar()
    bar = ctl.text.command_bar
    qtbot.keyClicks(bar.input, "print hi from the model please")
    assert bar.refs() == []  # not a tool name: typing-to-filter finds nothing
    assert "Enter to ask functiongemma" in bar.hint.text()
    qtbot.keyClick(bar.input, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: bool(ctl.runs.sessions), timeout=10_000)
    assert bar.isVisible() and bar.steps.active  # the output, in the same window
    assert ctl.seams.forms.calls == [("hello.echo_text", {"text": "hi from the model"})]
    (extras,) = ctl.seams.forms.extras
    assert "functiongemma" in extras["note"] and extras["missing"] == ()
    assert [p.ref for p in ctl.seams.approvals.seen] == ["hello.echo_text"]
    (session,) = ctl.runs.sessions.values()
    qtbot.waitUntil(lambda: session.result is not None, timeout=10_000)
    assert session.window.output_text().strip() == "hi from the model"

    (request,) = model.requests
    assert request.path == "/api/generate"
    assert request.body["model"] == "functiongemma" and request.body["raw"] is True
    assert "print hi from the model please" in request.body["prompt"]
    assert "declaration:echo_text{" in request.body["prompt"]


def test_a_tool_without_parameters_goes_straight_to_the_decision(
    qtbot, ctl: Controller, model: FakeModelServer
) -> None:
    model.queue(call("say_hello"))
    type_and_enter(qtbot, ctl, "greet the room", ctrl=True)
    qtbot.waitUntil(lambda: bool(ctl.runs.sessions), timeout=10_000)
    assert ctl.seams.forms.calls == []  # no parameters: no form
    assert [p.ref for p in ctl.seams.approvals.seen] == ["hello.say_hello"]  # still asked


def test_the_chat_api_setting_is_used(qtbot, ctl: Controller, engine, model) -> None:
    use_model(engine, model.url, api="ollama-chat")
    model.queue(Calls([("echo_text", {"text": "via chat"})]))
    ctl.seams.forms.cancel = True
    type_and_enter(qtbot, ctl, "repeat via chat", ctrl=True)
    qtbot.waitUntil(lambda: bool(ctl.seams.forms.calls), timeout=10_000)
    assert ctl.seams.forms.calls == [("hello.echo_text", {"text": "via chat"})]
    (request,) = model.requests
    assert request.path == "/api/chat"
    assert request.body["messages"][-1] == {"role": "user", "content": "repeat via chat"}


def test_a_missing_argument_opens_the_real_form_with_the_field_marked(
    qtbot, engine: Engine, model: FakeModelServer
) -> None:
    model.queue(call("echo_text"))
    ctl = make_controller(engine, forms=FormPrompter(), approvals=FakeApprovals())
    ctl.start()
    seen: dict[str, Any] = {}

    def check(form: ParameterForm) -> None:
        field = form.fields["text"]
        seen["value"] = field.value()
        seen["marked"] = field.editor.property("invalid")
        seen["note"] = form.note.text() if form.note is not None else ""
        seen["run_enabled"] = form.ok_button.isEnabled()
        field.set("filled in by hand")
        seen["marked_after"] = field.editor.property("invalid")
        form.reject()

    timer = while_modal(check)
    try:
        type_and_enter(qtbot, ctl, "print something", ctrl=True)
        qtbot.waitUntil(lambda: "marked_after" in seen, timeout=10_000)
        timer.stop()
        assert seen["value"] == "" and seen["marked"] is True and seen["run_enabled"] is False
        assert "did not say: text" in seen["note"]
        assert seen["marked_after"] is False
        assert not ctl.runs.sessions  # cancelled in the form: nothing ran, nothing was asked
        assert ctl.seams.approvals.seen == []
        assert ctl.text.asking.wait(10)
    finally:
        timer.stop()
        ctl.shutdown()
        ctl.deleteLater()


def test_a_missing_argument_is_passed_to_the_form_seam(
    qtbot, ctl: Controller, model: FakeModelServer
) -> None:
    model.queue(call("all_types", count="7"))  # ``name`` is required and not given
    ctl.seams.forms.cancel = True
    type_and_enter(qtbot, ctl, "take seven of every kind", ctrl=True)
    qtbot.waitUntil(lambda: bool(ctl.seams.forms.calls), timeout=10_000)
    assert ctl.seams.forms.calls == [("kinds.all_types", {"count": 7})]  # coerced to int
    assert ctl.seams.forms.extras[0]["missing"] == ("name",)


# --------------------------------------------------------------------------- it does not


@pytest.mark.parametrize(
    "reply",
    [
        Text("Sure! I would say hello to everyone."),  # garbage: no function call
        call("launch_rockets", target="moon"),  # a tool that does not exist
    ],
    ids=["garbage", "unknown-tool"],
)
def test_an_unusable_answer_offers_the_closest_tools(
    qtbot, ctl: Controller, model: FakeModelServer, reply: Text
) -> None:
    model.queue(reply, reply)  # the first answer and the one repair retry
    bar = type_and_enter(qtbot, ctl, "please say hello to everyone", ctrl=True)
    wait_for_answer(qtbot, ctl)
    assert len(model.requests) == 2
    assert bar.isVisible() and not bar.busy
    assert "functiongemma was not sure" in bar.status_text
    assert bar.refs()[0] == "hello.say_hello"
    assert ctl.seams.forms.calls == [] and not ctl.runs.sessions  # nothing opened by itself
    qtbot.keyClick(bar.input, Qt.Key.Key_Return)  # the person picks
    assert "hello.say_hello" in {s.prepared.ref for s in ctl.runs.sessions.values()}


def test_no_model_server_says_so_and_offers_fuzzy_matches(
    qtbot, ctl: Controller, engine: Engine, closed_port: int
) -> None:
    use_model(engine, f"http://127.0.0.1:{closed_port}")
    bar = type_and_enter(qtbot, ctl, "could you say hello please", ctrl=True)
    wait_for_answer(qtbot, ctl)
    assert bar.isVisible() and not bar.busy
    assert f"No model server at http://127.0.0.1:{closed_port}" in bar.status_text
    assert "start Ollama" in bar.status_text
    assert bar.status_label.property("failed") is True
    assert bar.settings_link.isVisibleTo(bar)
    assert bar.refs()[:2] == ["hello.say_hello", "hello.echo_text"]
    assert not ctl.runs.sessions


def test_a_model_that_is_not_pulled_says_how_to_pull_it(
    qtbot, ctl: Controller, engine: Engine, model: FakeModelServer
) -> None:
    use_model(engine, model.url, model="gemma-nope")
    bar = type_and_enter(qtbot, ctl, "could you say hello please", ctrl=True)
    wait_for_answer(qtbot, ctl)
    assert "run ollama pull gemma-nope" in bar.status_text  # the command, no backticks
    assert bar.refs()[0] == "hello.say_hello"


def test_nothing_offered_in_this_mode_says_so(qtbot, no_threads_left, tmp_path) -> None:
    skills = tmp_path / "dev-only"
    write_skill(
        skills, "builder", [tool_block("build", "Build it.", "echo built")], extra="modes: [Dev]"
    )
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )
    engine.set_mode(Mode.MEETING)
    server = FakeModelServer().start()
    ctl = make_controller(engine, approvals=FakeApprovals())
    ctl.start()
    try:
        use_model(engine, server.url)
        bar = type_and_enter(qtbot, ctl, "build the thing", ctrl=True)
        wait_for_answer(qtbot, ctl)
        assert bar.status_text.startswith("No tools are available in Meeting mode")
        assert server.requests == []  # the model is not even asked
    finally:
        server.stop()
        assert ctl.text.asking.wait(10)
        ctl.shutdown()
        ctl.deleteLater()


# --------------------------------------------------------------------------- cancelling


def test_escape_while_the_model_thinks_cancels_and_nothing_opens(
    qtbot, ctl: Controller, model: FakeModelServer
) -> None:
    model.queue(Stall(30))
    bar = type_and_enter(qtbot, ctl, "print hi after a long think", ctrl=True)
    qtbot.waitUntil(lambda: len(model.requests) == 1, timeout=5000)
    assert bar.busy and bar.isVisible()
    assert bar.status_text == "Asking functiongemma…"
    assert bar.spinner.spinning and bar.status_hint.text() == "Esc to cancel"
    assert bar.input.isReadOnly()

    qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
    assert not bar.busy and bar.isVisible()  # the first Esc cancels, the next one closes
    assert bar.status_text.startswith("Cancelled")
    assert not ctl.text.asking.busy

    model.stopping.set()  # the server answers now; the worker sees the cancel and ends
    assert ctl.text.asking.wait(10)
    qtbot.wait(100)  # let a (dropped) late delivery through the event loop
    assert ctl.seams.forms.calls == [] and not ctl.runs.sessions
    assert bar.status_text.startswith("Cancelled")
    qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_a_late_answer_is_dropped_even_if_the_router_ignores_cancel(
    qtbot, no_threads_left, engine: Engine
) -> None:
    release = threading.Event()

    class Stubborn:
        instant = False
        busy_text = "Asking stubborn…"
        name = "stubborn"

        def propose(self, text, tools, *, mode=None, cancel=None):
            release.wait(10)
            return proposal_of("hello.echo_text", {"text": "too late"})

    ctl = make_controller(engine, router=Stubborn(), forms=FakeForms(), approvals=FakeApprovals())
    ctl.start()
    try:
        bar = type_and_enter(qtbot, ctl, "anything", ctrl=True)
        assert bar.busy and bar.status_text == "Asking stubborn…"
        bar.hide()  # losing the bar (focus elsewhere) cancels too
        assert not ctl.text.asking.busy
        release.set()
        assert ctl.text.asking.wait(10)
        qtbot.wait(100)
        assert ctl.seams.forms.calls == [] and not ctl.runs.sessions
    finally:
        release.set()
        ctl.shutdown()
        ctl.deleteLater()


def test_a_second_process_asking_shows_the_busy_bar(
    qtbot, ctl: Controller, model: FakeModelServer
) -> None:
    model.queue(Stall(30))
    ctl.handle_message("ask print hi from afar")
    bar = ctl.text.command_bar
    assert bar.isVisible() and bar.busy
    assert bar.input.text() == "print hi from afar"
    ctl.shutdown()  # quitting cancels the question
    assert not ctl.text.asking.busy


# --------------------------------------------------------------------------- no model


def test_model_disabled_keeps_the_fuzzy_path(
    qtbot, ctl: Controller, notifications, engine: Engine, model: FakeModelServer
) -> None:
    use_model(engine, model.url, enabled=False)
    assert isinstance(ctl.text.router, FuzzyRouter)
    ctl.open_command_bar()
    bar = ctl.text.command_bar
    qtbot.keyClicks(bar.input, "echo")  # typing-to-filter as before
    assert bar.refs()[0] == "hello.echo_text"
    bar.input.setText("please say hello to me")
    assert bar.refs() == []
    assert "Enter for the closest tools" in bar.hint.text()
    qtbot.keyClick(bar.input, Qt.Key.Key_Return)
    assert bar.isVisible() and not bar.busy
    assert bar.status_text == "No model configured — Settings → Model"
    assert bar.refs()[0] == "hello.say_hello"
    assert bar.settings_link.isVisibleTo(bar)

    ctl.text.route("could you say hello please")  # ``ask`` from a second process: unchanged
    assert "hello.say_hello" in {s.prepared.ref for s in ctl.runs.sessions.values()}
    assert bar.steps.active  # its output shows in the one window
    ctl.text.route("qqqq xxxx")
    assert notifications[-1][0] == "No tool found"
    assert model.requests == []  # no HTTP at all


def test_switching_the_model_on_and_off_in_settings(
    qtbot, ctl: Controller, model: FakeModelServer
) -> None:
    ctl.open_settings()
    dialog = ctl.dialogs.open["settings"]
    dialog.model_enabled.setChecked(False)
    dialog.accept()
    assert isinstance(ctl.text.router, FuzzyRouter)
    ctl.open_settings()
    dialog = ctl.dialogs.open["settings"]
    assert not dialog.endpoint.isEnabled()  # dimmed while routing is off
    dialog.model_enabled.setChecked(True)
    assert dialog.endpoint.isEnabled()
    dialog.model_name.setText("functiongemma")
    dialog.accept()
    router = ctl.text.router
    assert isinstance(router, ModelRouter) and router.settings.endpoint == model.url
    assert ctl.text.router is router  # kept while the settings stay the same


def test_the_model_feed_index_is_made_ahead_when_a_model_is_set_up(qtbot, engine) -> None:
    """The first request to a model does not wait for the index of the tools offered."""
    from gibberish.ui.command_bar.text_requests import TextRequests

    use_model(engine, "http://127.0.0.1:9")
    text = TextRequests(lambda: engine, lambda: Mode.GLOBAL)
    made = text._model_index_ahead()
    assert made is not None
    made.join(timeout=30)
    builds = engine.feed._tool_indexes.builds
    assert builds == 1
    engine.feed.tool_index(Mode.GLOBAL)
    assert engine.feed._tool_indexes.builds == builds  # the request found it made
    engine.update_settings(replace(engine.settings, model=ModelSettings(enabled=False)))
    assert text._model_index_ahead() is None


def test_several_proposed_calls_are_each_shown_in_order_through_their_own_decision(
    qtbot, ctl: Controller, engine, model
) -> None:
    use_model(engine, model.url, api="ollama-chat")
    model.queue(Calls([("echo_text", {"text": "first"}), ("echo_text", {"text": "second"})]))
    type_and_enter(qtbot, ctl, "say first then second", ctrl=True)
    qtbot.waitUntil(lambda: len(engine.runs.recent()) == 2, timeout=10_000)
    assert ctl.seams.forms.calls == [
        ("hello.echo_text", {"text": "first"}),
        ("hello.echo_text", {"text": "second"}),
    ]
    first_note, second_note = (e["note"] for e in ctl.seams.forms.extras)
    assert "1 more call" in first_note and "Call 2 of 2" in second_note
    assert [p.argv[-1] for p in ctl.seams.approvals.seen] == ["first", "second"]
    outputs = sorted(r.result.envelope.output.strip() for r in engine.runs.recent())
    assert outputs == ["first", "second"]
    shown = ctl.text.command_bar.steps.current()  # the window shows the last call's output
    assert shown is not None and shown.argv[-1] == "second"
