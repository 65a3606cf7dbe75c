"""Held-out phrasings for the chat parser (issue #13), written without reading or running the parser.

- ``tests.heldout.table2``: a hand-written set (tests/data/heldout/table2.json);
- ``tests.heldout.gen9``: round 9's independent generator (3,000 messages from a seed).

Both were committed ("freeze held-out sets ... before any parser run") before the parser ever read
them. Only ``benchmarks/parse_heldout.py`` runs the parser on them, and it prints counts only.
"""
