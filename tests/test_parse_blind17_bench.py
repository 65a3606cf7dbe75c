"""benchmarks/parse_blind17.py runs on the round-17 blind sets and prints counts only; issue #13's target on them.

The sets' structure is checked by tests/test_parse_blind17t_counts.py (table6) and
tests/test_parse_blind17g_counts.py (gen17), written with the sets. Here: the benchmark's smoke run prints
one count line and one composition line per set and no message, ``--show`` prints the failures of the now
diagnosed sets (measured once, blind, at e803b4e and a95d8d3), and issue #13's target (at least 97% fully right and no answer built on a value the user did not
say, on each set) is ``test_each_round17_set_meets_issue_13s_target``: ``slow`` and ``xfail(strict=False)``
as the earlier rounds' are, so CI stays green while the parser is below it and a pass shows as XPASS; its
assertion message carries counts only.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.catalog import Catalog
from tests.heldout import gen17, table6
from tests.test_parse_blind_counts import TARGET

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "parse_blind17.py"
NAMES = r"heldout/diagnosed-table6|generated/diagnosed17"
LINE = re.compile(rf"^({NAMES})\s+(\d+)/(\d+) fully right = [\d.]+% \((?:en|es) [\d.]+% of \d+"
                  r"(?:, es [\d.]+% of \d+)?\); answered with a value the user did not say: \d+ \(invented \d+, "
                  r"misread \d+, default over a stated value \d+\)$")
COMPOSITION = re.compile(r"^    composition: (?:en \d+)?(?:, )?(?:es \d+)?; by kind: .+; by expected intent: .+$")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_the_benchmark_runs_and_prints_counts_only():
    out = _run("--n", "40", "--limit", "40")
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith(("heldout/", "generated/"))]
    assert len(lines) == 2 and all(LINE.match(line) and LINE.match(line).group(3) == "40" for line in lines)
    assert sum(bool(COMPOSITION.match(line)) for line in out.stdout.splitlines()) == 2
    others = [line for line in out.stdout.splitlines()
              if not (LINE.match(line) or COMPOSITION.match(line) or line.startswith("    raised an unexpected error"))]
    assert others == []
    texts = [e["text"] for e in table6.load()[:40] + gen17.generate(40, catalog=Catalog.in_memory(), seed=17)]
    assert not any(t in out.stdout for t in texts if len(t) > 12), "without --show the benchmark prints counts only"


def test_the_benchmark_shows_failures_of_the_diagnosed_sets():
    """Both sets were measured blind once (e803b4e and a95d8d3) and are now diagnosed: ``--show`` prints failures."""
    out = _run("--n", "100", "--limit", "100", "--show", "2")
    assert out.returncode == 0, out.stderr
    counts = [LINE.match(line) for line in out.stdout.splitlines() if line.startswith(("heldout/", "generated/"))]
    shown = [line for line in out.stdout.splitlines() if line.startswith("      want ")]
    assert len(counts) == 2 and len(shown) == sum(min(2, int(m.group(3)) - int(m.group(2))) for m in counts)


def _measure(entries, catalog):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import parse_blind17

    return parse_blind17.summary(entries, parse_blind17.judge_all(entries, catalog))


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="issue #13's target (>= 97% fully right, no unsaid value) on the round-17 "
                                        "sets (blind once at e803b4e and a95d8d3); counts in benchmarks/parse_blind17.py")
@pytest.mark.parametrize("name", ["table6", "gen17"])
def test_each_round17_set_meets_issue_13s_target(name, catalog):
    entries = table6.load() if name == "table6" else gen17.generate(gen17.N_DEFAULT, catalog=catalog, seed=17)
    s = _measure(entries, catalog)
    assert s["ok"] / s["n"] >= TARGET and s["unsaid"] == 0, (
        f"{name}: {s['ok']}/{s['n']} fully right, {s['unsaid']} answered with an unsaid value")
