"""``gibberish approvals``, ``secrets`` and ``mode``, end to end against the test keyring."""

from __future__ import annotations

import json

SECRET_TOOL = """
### show_token

Print whether the token arrived.

#### Parameters

None.

#### Command

```bash
printenv API_TOKEN
```
"""


def test_approvals_approve_list_revoke_and_reset(write_skill, invoke) -> None:
    write_skill("echoer")
    write_skill("other")
    assert "No approvals yet" in invoke("approvals", "list").output
    approved = invoke("approvals", "approve", "echoer", "--yes")
    assert approved.exit_code == 0 and approved.stdout.startswith("Approved echoer (")
    assert invoke("approvals", "approve", "other", "--yes").exit_code == 0
    listed = invoke("approvals", "list").output
    assert "echoer" in listed and "other" in listed and "approved" in listed
    data = json.loads(invoke("approvals", "list", "--json").stdout)
    assert {d["skill"]: d["status"] for d in data} == {"echoer": "approved", "other": "approved"}
    assert all(len(d["digest"]) == 64 and d["path"] for d in data)

    revoked = invoke("approvals", "revoke", "echoer")
    assert revoked.exit_code == 0 and "Revoked" in revoked.output
    again = invoke("approvals", "revoke", "echoer")
    assert again.exit_code == 1 and "has no approval" in again.output

    assert invoke("approvals", "reset", input="n\n").exit_code == 1  # asked, declined
    assert "other" in invoke("approvals", "list").output
    assert invoke("approvals", "reset", "--yes").exit_code == 0
    assert "No approvals yet" in invoke("approvals", "list").output


def test_approvals_list_says_when_a_skill_changed_or_is_gone(write_skill, invoke) -> None:
    folder = write_skill("echoer")
    gone = write_skill("gone")
    invoke("approvals", "approve", "echoer", "--yes")
    invoke("approvals", "approve", "gone", "--yes")
    (folder / "notes.txt").write_text("new file\n")
    (gone / "SKILL.md").unlink()
    gone.rmdir()
    data = json.loads(invoke("approvals", "list", "--json").stdout)
    assert {d["skill"]: d["status"] for d in data} == {
        "echoer": "changed since approval",
        "gone": "skill not found",
    }


def test_approving_an_unknown_skill_is_a_clear_error(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("approvals", "approve", "nope", "--yes")
    assert result.exit_code == 1 and "No skill named 'nope'" in result.output
    assert "Traceback" not in result.output


def test_secrets_set_list_reach_the_run_and_delete(write_skill, invoke) -> None:
    write_skill("tokened", tools=SECRET_TOOL, extra="secrets: [API_TOKEN]\n")
    listed = invoke("secrets", "list", "tokened").output
    assert "API_TOKEN" in listed and "missing" in listed
    missing = invoke("run", "tokened.show_token", "--yes")
    assert missing.exit_code == 1 and "gibberish secrets set tokened API_TOKEN" in missing.output

    stored = invoke("secrets", "set", "tokened", "API_TOKEN", input="s3cret-value\n")
    assert stored.exit_code == 0 and "Stored API_TOKEN for tokened." in stored.output
    assert "s3cret-value" not in stored.output  # asked without echo
    listed = invoke("secrets", "list", "tokened").output
    assert "set" in listed and "s3cret-value" not in listed
    ran = invoke("run", "tokened.show_token", "--yes", "--json")
    assert json.loads(ran.stdout.splitlines()[-1])["output"] == "s3cret-value\n"

    assert invoke("secrets", "delete", "tokened", "API_TOKEN").exit_code == 0
    gone = invoke("secrets", "delete", "tokened", "API_TOKEN")
    assert gone.exit_code == 1 and "has no stored secret" in gone.output
    assert "missing" in invoke("secrets", "list", "tokened").output


def test_secrets_refuse_undeclared_names_empty_values_and_unknown_skills(
    write_skill, invoke
) -> None:
    write_skill("tokened", tools=SECRET_TOOL, extra="secrets: [API_TOKEN]\n")
    write_skill("plain")
    undeclared = invoke("secrets", "set", "tokened", "OTHER", input="x\n")
    assert undeclared.exit_code == 1 and "does not declare a secret 'OTHER'" in undeclared.output
    assert "Value for" not in undeclared.output  # refused before asking for a value
    empty = invoke("secrets", "set", "tokened", "API_TOKEN", input="\n\n")
    assert empty.exit_code != 0 and "stored" not in empty.output.replace("not stored", "")
    assert "declares no secrets" in invoke("secrets", "list", "plain").output
    unknown = invoke("secrets", "list", "nope")
    assert unknown.exit_code == 1 and "No skill named 'nope'" in unknown.output


def test_mode_show_set_and_auto(invoke) -> None:
    shown = invoke("mode")
    assert shown.exit_code == 0 and "(automatic:" in shown.output
    assert invoke("mode", "show").output == shown.output
    pinned = invoke("mode", "set", "dev")
    assert pinned.exit_code == 0 and "Mode set to Dev (manual)" in pinned.output
    assert invoke("mode", "show").output.startswith("Dev (manual")
    bad = invoke("mode", "set", "party")
    assert bad.exit_code == 2 and "party" in bad.output
    assert invoke("mode", "auto").output.strip() == "Mode detection is automatic."
    assert "(automatic:" in invoke("mode", "show").output
