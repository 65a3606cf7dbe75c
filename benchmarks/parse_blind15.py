"""How often the chat parser reads the round-15 sets fully right (issue #13): measured once blind, now diagnosed.

Two sets, written for issue #13's held-out measurement of round 15 by two engineers who did not read
or run the parser while writing them (each set's docstring says what they read), and committed before
this benchmark existed:

- ``heldout/table5``: 547 hand-written Slack messages, 271 English and 276 Spanish
  (tests/heldout/table5.py, tests/data/heldout/table5.json; "freeze round-15 blind set table5", 199d1c4);
- ``generated/gen15``: round 15's independent generator, 3,000 messages from seed 15
  (tests/heldout/gen15.py; "freeze round-15 blind set gen15", d9512ad), with vocabularies, frames, noise
  and config shapes checked absent from tests/phrasegen.py, gen9.py, gen11.py and gen13.py.

They were BLIND until the lead measured them once (at 0e5bd7c, figures below); from then on they are
diagnosed as round 13's are (benchmarks/parse_blind13.py): ``--show N`` prints failing messages and the
lines are labelled ``heldout/diagnosed-table5`` and ``generated/diagnosed15``.

Measured once, blind, by the lead on main at 0e5bd7c (the parser of i13-p11a and i13-p11b merged;
load 0.8), 2026-12-02:

    heldout/table5           424/547 fully right = 77.5% (en 79.3% of 271, es 75.7% of 276); answered with a value the user did not say: 23 (invented 16, misread 5, default over a stated value 2)
    generated/gen15          1627/3000 fully right = 54.2% (en 50.2% of 1483, es 58.1% of 1517); answered with a value the user did not say: 230 (invented 85, misread 108, default over a stated value 42)
        raised an unexpected error on 1 message(s): ValidationError at request.py:428 (_show) -> main.py:280 (__init__)

(The lines were then labelled ``heldout/table5`` and ``generated/gen15``.) From here on both sets are diagnosed.

Each set prints one line, as benchmarks/parse_heldout.py, parse_blind.py and parse_blind13.py do (the
judging, the counts and the line are parse_heldout.py's ``judge_all``, ``summary``, ``report`` and
``composition``, imported, not copied): how many messages are fully right (``tests.phrasegen.judge``), by
language, and the count of answers built on a value the user did not say (invented, misread, or a default
over a stated value). Then the set's composition. Without ``--show`` it prints counts only, never a message.

    python benchmarks/parse_blind15.py [--n 3000] [--seed 15] [--limit N] [--show N]

``--limit N`` reads only the first N messages of each set (a smoke run for tests); ``--show N`` prints up
to N failing messages per set, with the label and what the parser read (it was refused while the sets
were blind).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # the judging and report of parse_heldout.py, shared

from advisor.catalog import Catalog  # noqa: E402
from parse_heldout import composition, judge_all, report, run_sets, show_failures, summary  # noqa: E402
from tests.heldout import gen15, table5  # noqa: E402

__all__ = ["SETS", "composition", "judge_all", "load_sets", "main", "report", "show_failures", "summary"]  # summary: for tests

SETS = ("heldout/diagnosed-table5", "generated/diagnosed15")


def load_sets(catalog: Catalog, *, n: int = gen15.N_DEFAULT, seed: int = 15) -> list[tuple[str, list[dict]]]:
    return [(SETS[0], table5.load()), (SETS[1], gen15.generate(n, catalog=catalog, seed=seed))]


def main(argv: list[str] | None = None) -> None:
    run_sets(__doc__.splitlines()[0], load_sets, generator="gen15", n_default=gen15.N_DEFAULT, seed=15, argv=argv)


if __name__ == "__main__":
    main()
