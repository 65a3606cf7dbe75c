"""How often the chat parser reads the round-11 sets fully right (issue #13): measured once blind, now diagnosed.

Two sets, written for issue #13's final held-out measurement by someone who did not read or run the
parser while writing them, and committed ("freeze round-11 blind sets ... before any parser run",
d382b30) before this benchmark existed; three table3 texts and one gen11 frame were made unambiguous
in ac338b2, before anyone had seen a count:

- ``heldout/diagnosed-table3`` (was ``heldout/table3``): 508 hand-written Slack messages, 253 English and 255 Spanish
  (tests/heldout/table3.py, tests/data/heldout/table3.json);
- ``generated/diagnosed11`` (was ``heldout/gen11``): round 11's independent generator, 3,000 messages from seed 11
  (tests/heldout/gen11.py), with vocabularies, frames, noise and config shapes that neither
  tests/phrasegen.py nor tests/heldout/gen9.py has.

They were BLIND until the measurement below: nobody tuned the parser on them and this benchmark printed
counts only. The lead ran it once, at the end of the session, on the merged parser; its figures are
recorded here, and from then on the sets are diagnosed like the earlier ones (``--show``).

Measured ONCE, blind, by the lead on main at c951d8f (the parser of i13-parse7 and i13-speed2
merged; load 1.5 on 2 CPUs), 2026-12-01 22:14 UTC:

    heldout/table3   409/508 fully right = 80.5% (en 81.8% of 253, es 79.2% of 255); answered with a value the user did not say: 16 (invented 6, misread 4, default over a stated value 6)
    heldout/gen11    976/3000 fully right = 32.5% (en 32.7% of 1515, es 32.4% of 1485); answered with a value the user did not say: 464 (invented 312, misread 168, default over a stated value 20)

From that commit on, both sets are DIAGNOSED: their failures may be read and fixed
(tests/test_parse_diagnosed12.py), so their figures are no longer held-out ones.

Each set prints one line, as benchmarks/parse_heldout.py does: how many messages are fully right
(``tests.phrasegen.judge``: the intent, the clarify code where labelled, and exactly the labelled
fields), by language, and the count of answers built on a value the user did not say (a field the
message did not state, a field read as another value, or a default used where the message stated a
value that cannot be read; defaults for what a message does not mention are listed as assumed in the
answer and are not counted). Then the set's composition (messages by language, by kind and by
expected intent). Where the parser raised an unexpected error, it prints where in the parser (file,
line, function).

    python benchmarks/parse_blind.py [--n 3000] [--seed 11] [--limit N] [--show N]

``--limit N`` reads only the first N messages of each set (a smoke run for tests); ``--show N`` prints
up to N failing messages of each set, with the label and what the parser read (as
benchmarks/parse_heldout.py does).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # the judging and report of parse_heldout.py, shared

from advisor.catalog import Catalog  # noqa: E402
from parse_heldout import judge_all, report, run_sets, show_failures, summary  # noqa: E402
from tests.heldout import gen11, table3  # noqa: E402

__all__ = ["SETS", "judge_all", "load_sets", "main", "report", "show_failures", "summary"]  # summary: for tests

SETS = ("heldout/diagnosed-table3", "generated/diagnosed11")


def load_sets(catalog: Catalog, *, n: int = gen11.N_DEFAULT, seed: int = 11) -> list[tuple[str, list[dict]]]:
    return [(SETS[0], table3.load()), (SETS[1], gen11.generate(n, catalog=catalog, seed=seed))]


def main(argv: list[str] | None = None) -> None:
    run_sets(__doc__.splitlines()[0], load_sets, generator="gen11", n_default=gen11.N_DEFAULT, seed=11, argv=argv)


if __name__ == "__main__":
    main()
