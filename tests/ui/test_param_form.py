"""The parameter form: one widget per type, required fields, defaults, live argv preview."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QLineEdit, QPlainTextEdit, QSpinBox

from gibberish.engine.core import Engine
from gibberish.ui.runs.param_form import FormPrompter, ParameterForm


def make_form(qtbot, engine: Engine, ref: str, prefilled=None) -> ParameterForm:
    target = engine.library.find_tool(ref)
    form = ParameterForm(
        target.skill,
        target.tool,
        lambda args: engine.runs.render(target, args),
        prefilled=prefilled,
    )
    qtbot.addWidget(form)
    return form


def test_one_widget_per_type_with_defaults(qtbot, engine: Engine) -> None:
    form = make_form(qtbot, engine, "kinds.all_types")
    assert isinstance(form.fields["name"].editor, QLineEdit)
    assert isinstance(form.fields["count"].editor, QSpinBox)
    assert isinstance(form.fields["ratio"].editor, QDoubleSpinBox)
    assert isinstance(form.fields["verbose"].editor, QCheckBox)
    assert isinstance(form.fields["items"].editor, QPlainTextEdit)
    assert form.fields["count"].editor.value() == 3
    assert form.fields["ratio"].editor.value() == 0.5
    required = form.findChild(object, "label-name")
    assert required.text() == "A name to print *" and required.font().bold()  # from its description
    assert "*" in form.findChild(object, "label-name").text()
    assert "*" not in form.findChild(object, "label-count").text()


def test_required_field_blocks_run_until_filled(qtbot, engine: Engine) -> None:
    form = make_form(qtbot, engine, "kinds.all_types")
    assert not form.ok_button.isEnabled()
    assert "Still to fill in: A name to print" in form.error_label.text()
    qtbot.keyClicks(form.fields["name"].editor, "Ada")
    assert form.ok_button.isEnabled()
    assert form.error_label.isHidden()
    assert form.argv == ["echo", "Ada", "3", "0.5"]


def test_preview_is_the_exact_argv_and_follows_every_change(qtbot, engine: Engine) -> None:
    form = make_form(qtbot, engine, "kinds.all_types")
    form.fields["name"].editor.setText("two words; $HOME")
    form.fields["verbose"].editor.setChecked(True)
    form.fields["items"].editor.setPlainText("a b\n\nc\n")
    form.fields["count"].editor.setValue(7)
    assert form.argv == ["echo", "two words; $HOME", "7", "0.5", "--verbose", "a b", "c"]
    assert form.preview.toPlainText() == "echo 'two words; $HOME' 7 0.5 --verbose 'a b' c"
    assert form.values() == {
        "name": "two words; $HOME",
        "count": 7,
        "ratio": 0.5,
        "verbose": True,
        "items": ["a b", "c"],
    }


def test_render_error_is_shown_inline_naming_the_field(qtbot, engine: Engine) -> None:
    form = make_form(qtbot, engine, "kinds.all_types")
    form.fields["name"].editor.setText("--rm")  # would be read as an option
    assert not form.ok_button.isEnabled()
    assert form.error_label.isVisible() or not form.error_label.isHidden()
    assert "name" in form.error_label.text()
    assert form.fields["name"].editor.property("invalid") is True


def test_prefilled_values_override_defaults_and_bad_ones_are_reported(
    qtbot, engine: Engine
) -> None:
    form = make_form(
        qtbot,
        engine,
        "kinds.all_types",
        prefilled={"name": "Grace", "count": "12", "items": ["x", "y"], "ratio": "lots", "nope": 1},
    )
    assert form.fields["count"].editor.value() == 12
    assert form.fields["items"].items() == ["x", "y"]
    assert form.fields["ratio"].editor.value() == 0.5
    assert len(form.prefill_problems) == 2
    assert form.ok_button.isEnabled()


def test_optional_integer_without_default_is_left_out_until_ticked(qtbot, engine: Engine) -> None:
    import tests.ui.conftest as c

    root = engine.options.extra_skills_dirs[0]
    c.write_skill(
        root,
        "limits",
        [
            c.tool_block(
                "head",
                "Show the first lines.",
                "echo {{lines:-n}}",
                c.param_table([("lines", "integer", "no", "How many lines")]),
            )
        ],
    )
    engine.library.reload()
    form = make_form(qtbot, engine, "limits.head")
    assert form.values() == {}
    assert form.argv == ["echo"]
    form.fields["lines"].include.setChecked(True)
    form.fields["lines"].editor.setValue(4)
    assert form.argv == ["echo", "-n", "4"]


def test_form_prompter_returns_values_on_run_and_none_on_cancel(qtbot, engine: Engine) -> None:
    target = engine.library.find_tool("hello.echo_text")
    prompter = FormPrompter()

    def fill_and_accept() -> None:
        form = next(w for w in _top_level() if isinstance(w, ParameterForm) and w.isVisible())
        form.fields["text"].editor.setText("hi")
        form.ok_button.click()

    QTimer.singleShot(50, fill_and_accept)
    values = prompter.ask(target.skill, target.tool, lambda a: engine.runs.render(target, a))
    assert values == {"text": "hi"}

    def cancel() -> None:
        form = next(w for w in _top_level() if isinstance(w, ParameterForm) and w.isVisible())
        form.reject()

    QTimer.singleShot(50, cancel)
    assert prompter.ask(target.skill, target.tool, lambda a: engine.runs.render(target, a)) is None


def _top_level():
    from PySide6.QtWidgets import QApplication

    return QApplication.topLevelWidgets()


def test_tools_without_parameters_skip_the_form(qtbot, controller, forms) -> None:
    session = controller.launch("hello.say_hello")
    assert forms.calls == []
    assert session is not None


def test_tools_with_parameters_use_the_form_and_accept_prefills(qtbot, controller, forms) -> None:
    forms.values = {}
    session = controller.launch("hello.echo_text", {"text": "prefilled"})
    assert forms.calls == [("hello.echo_text", {"text": "prefilled"})]
    qtbot.waitUntil(lambda: session.result is not None)
    assert session.window.output_text().strip() == "prefilled"


def test_cancelled_form_runs_nothing(controller, forms, approvals) -> None:
    forms.cancel = True
    assert controller.launch("hello.echo_text") is None
    assert controller.runs.sessions == {}
    assert approvals.seen == []
