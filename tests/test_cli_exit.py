"""The console script ends a heavy command without tearing the interpreter down
(``advisor.cli.common.leave``), and still does what a normal exit does for the user: atexit
handlers run, buffered output is delivered, the exit status is kept."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

_SCRIPT = """
import atexit, sys
{heavy}
from advisor.cli.common import leave
atexit.register(lambda: open(sys.argv[1], "w").write("atexit ran"))
sys.stdout.write("buffered, no newline")
leave({code})
print(" / returned: a normal exit follows")
"""


def _run(tmp_path, code: str, heavy: bool):
    marker = tmp_path / "marker"
    script = _SCRIPT.format(code=code, heavy="import torch" if heavy else "")
    proc = subprocess.run([sys.executable, "-c", script, str(marker)], capture_output=True, text=True, cwd=ROOT)
    return proc, marker.read_text() if marker.exists() else None


@pytest.mark.parametrize("code,status", [("0", 0), ("None", 0), ("3", 3), ("'a message'", 1)])
def test_with_torch_loaded_it_exits_at_once_keeping_status_output_and_atexit(tmp_path, code, status):
    pytest.importorskip("torch")
    proc, marker = _run(tmp_path, code, heavy=True)
    assert proc.returncode == status
    assert proc.stdout == "buffered, no newline"  # delivered, and nothing after leave() ran
    assert marker == "atexit ran"
    if status == 1:
        assert "a message" in proc.stderr


def test_without_a_heavy_library_it_returns_and_the_normal_exit_follows(tmp_path):
    proc, marker = _run(tmp_path, "0", heavy=False)
    assert proc.returncode == 0
    assert proc.stdout == "buffered, no newline / returned: a normal exit follows\n"
    assert marker == "atexit ran"


def test_the_console_script_keeps_a_commands_exit_status(tmp_path):
    """``python -m advisor`` goes through the group's ``__call__``: a usage error is status 2
    with click's message, whether or not torch got imported first."""
    for pre in ("", "import torch; "):
        if pre:
            pytest.importorskip("torch")
        proc = subprocess.run([sys.executable, "-c", pre + "import sys; sys.argv[0] = 'advisor'; "
                               "from advisor.cli import main; main()", "estimate", "--no-such-flag"],
                              capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode == 2
        assert "no-such-flag" in proc.stderr
