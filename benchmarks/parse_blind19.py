"""How often the chat parser reads the round-19 sets fully right (issue #13): table7 blind, gen19 measured blind, then diagnosed.

Two sets, written for issue #13's held-out measurement of round 19 by two helpers who did not read or run
the parser while writing them (each set's docstring says what they read, and their slips), and committed
before any parser run on them:

- ``heldout/table7``: 452 hand-written Slack messages, 223 English and 229 Spanish
  (tests/heldout/table7.py, tests/data/heldout/table7.json; "freeze round-19 blind set table7", e14f58e);
  it stays BLIND: ``--show`` never prints its failures, only its counts, and nobody tunes the parser on it;
- ``generated/gen19``: round 19's independent generator, 3,000 messages from seed 19
  (tests/heldout/gen19.py; "freeze round-19 blind set gen19", 23e5eba). It was measured blind (counts only)
  and is then DIAGNOSED: ``--show N`` prints its failing messages, and the line is labelled
  ``generated/diagnosed19``. ``--seed 21`` (same generator, other draws) is the check that a fix
  generalizes within the generator; nobody reads seed 21's failures.

Measured by the lead, counts only, 2026-12-03:

    blind, on the parser of 9dddc87 (the rounds' diagnosis of table6 and gen17 not merged):
    heldout/table7           363/452 fully right = 80.3% (en 82.1% of 223, es 78.6% of 229); answered with a value the user did not say: 15 (invented 12, misread 3, default over a stated value 0)
    generated/gen19          1993/3000 fully right = 66.4% (en 73.1% of 1554, es 59.3% of 1446); answered with a value the user did not say: 155 (invented 100, misread 27, default over a stated value 30)

    table7 stayed blind as the round's diagnosis was merged (table7's count line only, after each merge):
    + i13-p19b (gen17's misses; c3df264):      table7 361/452 = 79.9%, unsaid 15; gen19 2094/3000 = 69.8%, unsaid 155
    + i13-p19a (table6's unsaid; e7491b0):     table7 364/452 = 80.5%, unsaid 13; gen19 2094/3000, unsaid 155
    + i13-p19c (gen19 diagnosed; 3878d39):     table7 372/452 = 82.3%, unsaid 10; gen19 2832/3000 = 94.4%, unsaid 8
    + the judge reads a row's params as said (cadd8ce; the parser unchanged: the can_i_gpu FAQ rows labelled by
      params only, as tables 6 and 7 label them, no longer count the GPU they name as invented):
                                               table7 377/452 = 83.4%, unsaid 5
    + i13-p19d (gen19's and table6's last unsaid; c446e33):
    heldout/table7           378/452 fully right = 83.6% (en 85.2% of 223, es 82.1% of 229); answered with a value the user did not say: 4 (invented 4, misread 0, default over a stated value 0)
    generated/diagnosed19    2840/3000 fully right = 94.7% (en 96.1% of 1554, es 93.2% of 1446); answered with a value the user did not say: 0 (invented 0, misread 0, default over a stated value 0)
    generated/diagnosed19 at --seed 21 (never read): 1961/3000 = 65.4%, unsaid 156 blind at 9dddc87; 2816/3000 = 93.9%, unsaid 0 at c446e33
    + ms-swift's command line states the hf stack (its Trainer subclasses transformers'; phrasegen's diagnosed5
      relabelled to match, its line unchanged at 2990/3000):
    heldout/table7           382/452 fully right = 84.5% (en 86.1% of 223, es 83.0% of 229); answered with a value the user did not say: 4 (invented 4, misread 0, default over a stated value 0)
    generated/diagnosed19    2866/3000 fully right = 95.5% (en 97.0% of 1554, es 94.0% of 1446); answered with a value the user did not say: 0 (invented 0, misread 0, default over a stated value 0)
    generated/diagnosed19 at --seed 21 (never read): 2859/3000 = 95.3%, unsaid 0

Of table7's 15 more messages fully right (363 -> 378), 5 are the judge's params reading, 9 the gen19 diagnosis (p19c, p19d) and
1 the table6/gen17 diagnosis (p19a +3, p19b -2): the diagnosis of a set moves the unseen hand-written one
little, and a generator's diagnosis more than a table's.

Each set prints one line, as benchmarks/parse_heldout.py and the other rounds' benchmarks do (the judging,
the counts and the line are parse_heldout.py's ``judge_all``, ``summary``, ``report`` and ``composition``,
imported, not copied): how many messages are fully right (``tests.phrasegen.judge``), by language, and the
count of answers built on a value the user did not say (invented, misread, or a default over a stated
value). Then the set's composition.

    python benchmarks/parse_blind19.py [--n 3000] [--seed 19] [--limit N] [--show N]

``--limit N`` reads only the first N messages of each set (a smoke run for tests); ``--show N`` prints up
to N failing messages of gen19, with the label and what the parser read, and never table7's.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # the judging and report of parse_heldout.py, shared

from advisor.catalog import Catalog  # noqa: E402
from parse_heldout import composition, judge_all, report, run_sets, show_failures, summary  # noqa: E402
from tests.heldout import gen19, table7  # noqa: E402

__all__ = ["BLIND", "SETS", "composition", "judge_all", "load_sets", "main", "report", "show_failures",
           "summary"]  # summary: for tests

SETS = ("heldout/table7", "generated/diagnosed19")
BLIND = frozenset({"heldout/table7"})  # its failures are never printed


def load_sets(catalog: Catalog, *, n: int = gen19.N_DEFAULT, seed: int = 19) -> list[tuple[str, list[dict]]]:
    return [(SETS[0], table7.load()), (SETS[1], gen19.generate(n, catalog=catalog, seed=seed))]


def main(argv: list[str] | None = None) -> None:
    run_sets(__doc__.splitlines()[0], load_sets, generator="gen19", n_default=gen19.N_DEFAULT, seed=19, argv=argv,
             blind=BLIND)


if __name__ == "__main__":
    main()
