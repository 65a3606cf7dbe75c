"""Held-out phrasings for the chat parser (issue #13), written without reading or running the parser.

- ``tests.heldout.table2``: a hand-written set (tests/data/heldout/table2.json);
- ``tests.heldout.gen9``: round 9's independent generator (3,000 messages from a seed);
- ``tests.heldout.table3`` and ``tests.heldout.gen11``: round 11's hand-written set
  (tests/data/heldout/table3.json) and generator, by another writer.

Each pair was committed ("freeze ... before any parser run") before the parser ever read it, and
measured once, blind: table2 and gen9 by ``benchmarks/parse_heldout.py``, table3 and gen11 by
``benchmarks/parse_blind.py`` (the figures are in each benchmark's docstring). After that one
measurement a set is diagnosed: its failures are read and fixed, and it checks for regressions.
"""
