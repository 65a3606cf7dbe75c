"""The hand-written phrasing table (tests/data/phrasings.json) and its two splits.

The split was decided before any rule of the round-3 parser was written, by a fixed hash of the
text alone, so nobody can move a phrasing from one side to the other by hand:

    heldout  if int(sha256(text.encode("utf-8")).hexdigest()[:8], 16) % 10 < 3   (about 30%)
    tune     otherwise

``tune`` is what the parser's tests run (tests/test_parse.py) and what rules may be tuned on.
``heldout`` is never tuned on: only ``benchmarks/parse_accuracy.py`` reads it, and it prints the
held-out figures without the failing messages. Every entry records its split, and
``tests/test_parse.py`` checks that each recorded split is the one the hash gives.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

PATH = Path(__file__).resolve().parent / "data" / "phrasings.json"
HELDOUT_TENTHS = 3


def split_of(text: str) -> str:
    bucket = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % 10
    return "heldout" if bucket < HELDOUT_TENTHS else "tune"


def load(split: str | None = None) -> list[dict]:
    entries = json.loads(PATH.read_text(encoding="utf-8"))
    return [e for e in entries if split is None or e["split"] == split]
