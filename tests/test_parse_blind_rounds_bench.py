"""benchmarks/parse_blind15.py, parse_blind17.py and parse_blind19.py run on their rounds' blind sets and print counts
only; issue #13's target on them.

Each round's sets' structure is checked by the tests written with them (tests/test_parse_blind15t_counts.py and
tests/test_parse_blind15g_counts.py for table5 and gen15; tests/test_parse_blind17t_counts.py and
tests/test_parse_blind17g_counts.py for table6 and gen17; tests/test_parse_blind19t_counts.py and
tests/test_parse_blind19g_counts.py for table7 and gen19). Here, for each round: the benchmark's smoke run prints one
count line and one composition line per set and no message, ``--show`` prints the failures of the now diagnosed sets
(round 15's measured once, blind, at 0e5bd7c; round 17's at e803b4e and a95d8d3; round 19's gen19 at 9dddc87) and
never those of a set still blind (round 19's table7), and issue #13's target (at least
97% fully right and no answer built on a value the user did not say, on each set) is
``test_each_blind_round_set_meets_issue_13s_target``: ``slow`` and ``xfail(strict=False)`` as the earlier rounds'
are, so CI stays green while the parser is below it and a pass shows as XPASS; its assertion message carries counts
only.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from advisor.catalog import Catalog
from tests.heldout import gen15, gen17, gen19, table5, table6, table7
from tests.test_parse_blind_counts import TARGET

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Round:
    bench: str  # the benchmark's module in benchmarks/
    names: tuple[str, str]  # its two line labels
    table: ModuleType  # the hand-written set
    gen: ModuleType  # the generator, with its seed
    seed: int
    blind: frozenset[str] = frozenset()  # line labels whose failures --show never prints

    def line(self) -> re.Pattern[str]:
        return re.compile(rf"^({'|'.join(self.names)})\s+(\d+)/(\d+) fully right = [\d.]+% \((?:en|es) [\d.]+% of \d+"
                          r"(?:, es [\d.]+% of \d+)?\); answered with a value the user did not say: \d+ \(invented \d+, "
                          r"misread \d+, default over a stated value \d+\)$")

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{self.bench}.py"), *args],
                              capture_output=True, text=True, timeout=600, cwd=ROOT)


ROUNDS = {
    "round15": Round("parse_blind15", ("heldout/diagnosed-table5", "generated/diagnosed15"), table5, gen15, 15),
    "round17": Round("parse_blind17", ("heldout/diagnosed-table6", "generated/diagnosed17"), table6, gen17, 17),
    "round19": Round("parse_blind19", ("heldout/table7", "generated/diagnosed19"), table7, gen19, 19,
                     frozenset({"heldout/table7"})),
}
COMPOSITION = re.compile(r"^    composition: (?:en \d+)?(?:, )?(?:es \d+)?; by kind: .+; by expected intent: .+$")


@pytest.mark.parametrize("name", ROUNDS)
def test_the_benchmark_runs_and_prints_counts_only(name):
    rnd = ROUNDS[name]
    line = rnd.line()
    out = rnd.run("--n", "40", "--limit", "40")
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith(("heldout/", "generated/"))]
    assert len(lines) == 2 and all(line.match(ln) and line.match(ln).group(3) == "40" for ln in lines)
    assert sum(bool(COMPOSITION.match(ln)) for ln in out.stdout.splitlines()) == 2
    others = [ln for ln in out.stdout.splitlines()
              if not (line.match(ln) or COMPOSITION.match(ln) or ln.startswith("    raised an unexpected error"))]
    assert others == []
    texts = [e["text"] for e in rnd.table.load()[:40] + rnd.gen.generate(40, catalog=Catalog.in_memory(), seed=rnd.seed)]
    assert not any(t in out.stdout for t in texts if len(t) > 12), "without --show the benchmark prints counts only"


@pytest.mark.parametrize("name", ROUNDS)
def test_the_benchmark_shows_failures_of_the_diagnosed_sets_only(name):
    """The sets measured blind and now diagnosed: ``--show`` prints their failures; a set still blind (round 19's
    table7) shows its counts and none of its messages."""
    rnd = ROUNDS[name]
    line = rnd.line()
    out = rnd.run("--n", "100", "--limit", "100", "--show", "2")
    assert out.returncode == 0, out.stderr
    counts = [line.match(ln) for ln in out.stdout.splitlines() if ln.startswith(("heldout/", "generated/"))]
    shown = [ln for ln in out.stdout.splitlines() if ln.startswith("      want ")]
    assert len(counts) == 2
    assert len(shown) == sum(min(2, int(m.group(3)) - int(m.group(2))) for m in counts if m.group(1) not in rnd.blind)
    assert all(f"    {label} is blind: its failures are not shown (counts only)" in out.stdout for label in rnd.blind)
    texts = [e["text"] for e in rnd.table.load()[:100]] if any(lb.startswith("heldout/") for lb in rnd.blind) else []
    assert not any(t in out.stdout for t in texts if len(t) > 12), "a blind set's messages are never printed"


def _measure(bench: str, entries, catalog):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    module = importlib.import_module(bench)
    return module.summary(entries, module.judge_all(entries, catalog))


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="issue #13's target (>= 97% fully right, no unsaid value) on the round-15 sets "
                                        "(blind once at 0e5bd7c), the round-17 sets (blind at e803b4e and a95d8d3) "
                                        "and the round-19 sets (table7 blind, gen19 blind at 9dddc87); counts in "
                                        "benchmarks/parse_blind15.py, parse_blind17.py and parse_blind19.py")
@pytest.mark.parametrize("name,which", [(n, w) for n in ROUNDS for w in ("table", "gen")])
def test_each_blind_round_set_meets_issue_13s_target(name, which, catalog):
    rnd = ROUNDS[name]
    entries = rnd.table.load() if which == "table" else rnd.gen.generate(rnd.gen.N_DEFAULT, catalog=catalog, seed=rnd.seed)
    s = _measure(rnd.bench, entries, catalog)
    assert s["ok"] / s["n"] >= TARGET and s["unsaid"] == 0, (
        f"{name} {which}: {s['ok']}/{s['n']} fully right, {s['unsaid']} answered with an unsaid value")
