"""The hand-written phrasing table (tests/data/phrasings.json) and its two splits.

The split was decided before any rule of the round-3 parser was written, by a fixed hash of the
text alone, so nobody can move a phrasing from one side to the other by hand:

    diagnosed  if int(sha256(text.encode("utf-8")).hexdigest()[:8], 16) % 10 < 3   (about 30%)
    tune       otherwise

``tune`` is what the parser's tests run (tests/test_parse.py) and what rules may be tuned on.
The other 30% was the round-3 held-out split ("heldout"): it measured the round-3 parser without
being tuned on (99.0% fully right, one answer with a value the user did not say). In round 4 its
failures were read and their mechanisms fixed (tests/test_parse_diagnosed.py), so it is no longer
held out: it is ``diagnosed``, run by the tests like ``tune`` and printed as ``table/diagnosed`` by
``benchmarks/parse_accuracy.py``. Phrasings nobody on the parser tuned on now come from elsewhere:
the generator's ``unseen`` split (tests/phrasegen.py) and a hand-written set by another engineer
(tests/data/phrasings_fresh.json, which the parser's authors never read).

Every entry records its split, and ``tests/test_parse.py`` checks that each recorded split is the
one the hash gives. One label was corrected when the split was diagnosed: "¿y si guardo 5
checkpoints?" states five checkpoints kept (``costs.checkpoints_kept``, as the tuning row "keep 3
checkpoints" does); the round-3 label said it stated nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

PATH = Path(__file__).resolve().parent / "data" / "phrasings.json"
DIAGNOSED_TENTHS = 3
SPLITS = ("tune", "diagnosed")


def split_of(text: str) -> str:
    bucket = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % 10
    return "diagnosed" if bucket < DIAGNOSED_TENTHS else "tune"


def load(split: str | None = None) -> list[dict]:
    entries = json.loads(PATH.read_text(encoding="utf-8"))
    return [e for e in entries if split is None or e["split"] == split]


def check_said_fields(said: dict, catalog) -> None:
    """Assert that a label's stated fields are values the spec accepts and catalog ids (not aliases),
    as every hand-written and generated set labels them (tests/test_phrasings_fresh.py,
    tests/test_parse_heldout_counts.py)."""
    from advisor.spec import CostAssumptions, SpecRequest

    SpecRequest(**said)  # raises on a name or a value the spec does not accept
    if "costs" in said:
        CostAssumptions(**said["costs"])
    assert not (said.get("model") and said.get("params_b")), "a catalog model and a size are never both set"
    if "model" in said:
        known = catalog.find_model(said["model"])
        if known is not None:
            assert known.id == said["model"], f"label the catalog id {known.id!r}, not an alias"
        else:
            owner, _, name = said["model"].partition("/")
            assert owner and name, "a model the catalog does not know is labelled by its Hub id (org/name)"
    if "gpu" in said:
        assert catalog.find_gpu(said["gpu"]) is not None and catalog.find_gpu(said["gpu"]).id == said["gpu"]
    if "region" in said:
        assert catalog.find_region(said["region"]).id == said["region"]


def parsed_and_said(text: str, catalog, previous=None):
    """The parse of one chat message and the fields the message itself said (``result.delta.said()``): what the
    diagnosed-round tests (tests/test_parse_diagnosed13a.py, 15b, 16a, 16b) check a phrasing against."""
    from advisor.parse import parse_message

    result = parse_message(text, catalog, previous=previous)
    return result, result.delta.said()
