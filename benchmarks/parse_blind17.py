"""How often the chat parser reads the round-17 sets fully right (issue #13): measured once blind, now diagnosed.

Two sets, written for issue #13's held-out measurement of round 17 by two engineers who did not read
or run the parser while writing them (each set's docstring says what they read, and their slips), and
committed before this benchmark existed:

- ``heldout/table6``: 505 hand-written Slack messages, 250 English and 255 Spanish
  (tests/heldout/table6.py, tests/data/heldout/table6.json; "freeze round-17 blind set table6", 35e802d);
- ``generated/gen17``: round 17's independent generator, 3,000 messages from seed 17
  (tests/heldout/gen17.py; "freeze round-17 blind set gen17", f13f4ea), with vocabularies, frames, noise
  and config shapes checked absent from tests/phrasegen.py, gen9.py, gen11.py, gen13.py and gen15.py.

They were BLIND until the lead measured them (counts only, no message read), twice, 2026-12-02: on main
at e803b4e (the parser of c0feeff) and on main at a95d8d3 (the round's diagnosis of table5 and gen15,
i13-p14a and i13-p14b, merged). From then on they are diagnosed as the earlier rounds' are: ``--show N``
prints failing messages and the lines are labelled ``heldout/diagnosed-table6`` and ``generated/diagnosed17``.

    at e803b4e:
    heldout/table6           382/505 fully right = 75.6% (en 76.8% of 250, es 74.5% of 255); answered with a value the user did not say: 26 (invented 20, misread 3, default over a stated value 3)
        raised an unexpected error on 1 message(s): KeyError at request.py:780 (_clarify_limit)  [fixed in bbf0316]
    generated/gen17          1921/3000 fully right = 64.0% (en 70.4% of 1522, es 57.5% of 1478); answered with a value the user did not say: 93 (invented 30, misread 9, default over a stated value 55)
    at a95d8d3:
    heldout/table6           405/505 fully right = 80.2% (en 80.8% of 250, es 79.6% of 255); answered with a value the user did not say: 25 (invented 19, misread 3, default over a stated value 3)
    generated/gen17          2062/3000 fully right = 68.7% (en 74.0% of 1522, es 63.3% of 1478); answered with a value the user did not say: 113 (invented 32, misread 10, default over a stated value 72)

The round's diagnosis (table5 78.1 -> 91.8%, gen15 65.7 -> 100%) moved the unseen sets by about 5 points
and RAISED the defaults over a stated value on gen17 (55 -> 72): the rules still learn their sets.

Each set prints one line, as benchmarks/parse_heldout.py, parse_blind.py, parse_blind13.py and parse_blind15.py do (the
judging, the counts and the line are parse_heldout.py's ``judge_all``, ``summary``, ``report`` and
``composition``, imported, not copied): how many messages are fully right (``tests.phrasegen.judge``), by
language, and the count of answers built on a value the user did not say (invented, misread, or a default
over a stated value). Then the set's composition. Without ``--show`` it prints counts only, never a message.

    python benchmarks/parse_blind17.py [--n 3000] [--seed 17] [--limit N] [--show N]

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
from tests.heldout import gen17, table6  # noqa: E402

__all__ = ["SETS", "composition", "judge_all", "load_sets", "main", "report", "show_failures", "summary"]  # summary: for tests

SETS = ("heldout/diagnosed-table6", "generated/diagnosed17")


def load_sets(catalog: Catalog, *, n: int = gen17.N_DEFAULT, seed: int = 17) -> list[tuple[str, list[dict]]]:
    return [(SETS[0], table6.load()), (SETS[1], gen17.generate(n, catalog=catalog, seed=seed))]


def main(argv: list[str] | None = None) -> None:
    run_sets(__doc__.splitlines()[0], load_sets, generator="gen17", n_default=gen17.N_DEFAULT, seed=17, argv=argv)


if __name__ == "__main__":
    main()
