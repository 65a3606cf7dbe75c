"""How often the chat parser reads the round-13 sets fully right (issue #13): measured once blind, now diagnosed.

Two sets, written for issue #13's final held-out measurement of round 13 by someone who did not read or
run the parser while writing them, and committed ("freeze round-13 blind sets ... before any parser
run", 7d8ff4e) before this benchmark existed:

- ``heldout/table4``: 523 hand-written Slack messages, 261 English and 262 Spanish
  (tests/heldout/table4.py, tests/data/heldout/table4.json);
- ``heldout/gen13``: round 13's independent generator, 3,000 messages from seed 13
  (tests/heldout/gen13.py), with vocabularies, frames, noise and config shapes that neither
  tests/phrasegen.py nor tests/heldout/gen9.py nor tests/heldout/gen11.py has.

They were BLIND until the lead measured them once (at 73426e4, figures below); from then on they are
diagnosed like the earlier ones: ``--show N`` prints failing messages (benchmarks/parse_heldout.py's
``show_failures``, imported as benchmarks/parse_blind.py does), and the lines are labelled
``heldout/diagnosed-table4`` and ``generated/diagnosed13``.

Each set prints one line, as benchmarks/parse_heldout.py and benchmarks/parse_blind.py do (the judging,
the counts and the line are theirs: ``judge_all``, ``summary``, ``report`` and ``composition`` are
imported from parse_heldout.py, not copied): how many messages are fully right (``tests.phrasegen.judge``:
the intent, the clarify code where labelled, and exactly the labelled fields), by language, and the
count of answers built on a value the user did not say (a field the message did not state, a field read
as another value, or a default used where the message stated a value that cannot be read; defaults for
what a message does not mention are listed as assumed in the answer and are not counted). Then the
set's composition (messages by language, by kind and by expected intent). Where the parser raised an
unexpected error, it prints where in the parser (file, line, function), never the message.

    python benchmarks/parse_blind13.py [--n 3000] [--seed 13] [--limit N] [--show N]

``--limit N`` reads only the first N messages of each set (a smoke run for tests); ``--show N`` prints
up to N failing messages per set, with the label and what the parser read.

Measured once, blind, by the lead on main at 73426e4 (the parser of i13-p9a, i13-p9b and i13-speed3
merged; load 0.8), 2026-12-02:

    heldout/table4           439/523 fully right = 83.9% (en 83.9% of 261, es 84.0% of 262); answered with a value the user did not say: 12 (invented 8, misread 2, default over a stated value 2)
    heldout/gen13            1468/3000 fully right = 48.9% (en 48.0% of 1486, es 49.8% of 1514); answered with a value the user did not say: 207 (invented 97, misread 115, default over a stated value 0)

(The lines were then labelled ``heldout/table4`` and ``heldout/gen13``.) From here on both sets are diagnosed.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # the judging and report of parse_heldout.py, shared

from advisor.catalog import Catalog  # noqa: E402
from parse_heldout import composition, judge_all, report, run_sets, show_failures, summary  # noqa: E402
from tests.heldout import gen13, table4  # noqa: E402

__all__ = ["SETS", "composition", "judge_all", "load_sets", "main", "report", "show_failures", "summary"]  # summary: for tests

SETS = ("heldout/diagnosed-table4", "generated/diagnosed13")


def load_sets(catalog: Catalog, *, n: int = gen13.N_DEFAULT, seed: int = 13) -> list[tuple[str, list[dict]]]:
    return [(SETS[0], table4.load()), (SETS[1], gen13.generate(n, catalog=catalog, seed=seed))]


def main(argv: list[str] | None = None) -> None:
    run_sets(__doc__.splitlines()[0], load_sets, generator="gen13", n_default=gen13.N_DEFAULT, seed=13, argv=argv)


if __name__ == "__main__":
    main()
