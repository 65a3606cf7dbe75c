"""The shape of the project: import direction, optional extras, README and CI in agreement."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import click

from tests.conftest import ROOT

FORBIDDEN_IN_ADVISOR = ("bot", "slack_bolt", "slack_sdk")
HEAVY = ("torch", "ray", "matplotlib")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_advisor_never_imports_bot_or_slack():
    for path in (ROOT / "advisor").rglob("*.py"):
        assert not _imports(path) & set(FORBIDDEN_IN_ADVISOR), path


def test_advisor_never_reads_the_environment_outside_the_cli():
    for path in (ROOT / "advisor").rglob("*.py"):
        if "cli" in path.parts:
            continue
        assert "os.environ" not in path.read_text(encoding="utf-8"), path


def test_cli_and_ask_start_without_heavy_extras():
    code = (
        "import sys, advisor.cli\n"
        "from click.testing import CliRunner\n"
        "r = CliRunner().invoke(advisor.cli.main, ['ask', 'qlora llama-3-70b seq 8192'])\n"
        "assert r.exit_code == 0, r.output\n"
        "r = CliRunner().invoke(advisor.cli.main, ['estimate', '--model', 'llama-3.1-8b', '--method', 'qlora', '--json'])\n"
        "assert r.exit_code == 0, r.output\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _commands(group: click.Group, prefix: str = "advisor") -> list[str]:
    out = []
    for name, cmd in group.commands.items():
        full = f"{prefix} {name}"
        out += _commands(cmd, full) if isinstance(cmd, click.Group) else [full]
    return out


def test_every_cli_command_is_documented_in_the_readme():
    from advisor.cli import main

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [c for c in _commands(main) if f"`{c}" not in readme]
    assert not missing


def test_ci_runs_exactly_the_readme_test_command():
    sys.path.insert(0, str(ROOT / "scripts"))
    from readme_command import command

    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "readme_command.py test" in ci
    assert "pytest" in command("test") and "torch==2.13.0" in command("test")
    assert re.search(r"advisor (ask|catalog list)", command("run"))
