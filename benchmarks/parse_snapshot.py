"""Every parse result of the parser's benchmark sets, as JSON: a guard for behaviour-neutral changes.

A speed change to ``advisor.parse`` (how rules are dispatched, how names are looked up, how slots are
scanned) must not change a single result. This script parses every message of every set that
benchmarks/parse_accuracy.py, benchmarks/parse_heldout.py and benchmarks/parse_speed.py load:

- the hand-written table's splits (tests/phrasings.py ``tune`` and ``diagnosed``), the fresh table
  (tests/phrasings_fresh.py) and tests/data/phrasings.json with its thread requests;
- every split of tests/phrasegen.py (``SPLITS``) at the accuracy benchmark's size and seed (3000, 13)
  and at the speed benchmark's (1000, 11);
- diagnosed-table2 (tests/heldout/table2.py) and diagnosed10 (tests/heldout/gen9.py, 3000 from seed 9),

and writes, per message, every field of its ``ParseResult`` (``request`` and ``delta`` as their full
``model_dump``, not only the parse contract's keys), or the code of the ``ParseError`` it raised, or
the type and text of any other exception. The file lives outside the repository (its held-out texts
are no one's to commit):

    python benchmarks/parse_snapshot.py dump /tmp/speed2-snap-before.json
    python benchmarks/parse_snapshot.py dump /tmp/speed2-snap-after.json
    python benchmarks/parse_snapshot.py compare /tmp/speed2-snap-before.json /tmp/speed2-snap-after.json

``compare`` prints the count of results per set and every set and index that differ (never the
message text), and exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.catalog import Catalog  # noqa: E402
from advisor.errors import ParseError  # noqa: E402
from advisor.parse import parse_message  # noqa: E402
from advisor.spec import SpecRequest  # noqa: E402
from tests import phrasegen, phrasings, phrasings_fresh  # noqa: E402
from tests.heldout import gen9, table2  # noqa: E402

PHRASINGS_JSON = ROOT / "tests" / "data" / "phrasings.json"


def sets(catalog: Catalog) -> list[tuple[str, list[dict]]]:
    """Every (name, entries) the parse benchmarks load."""
    out = [("table/tune", phrasings.load("tune")), ("table/diagnosed", phrasings.load("diagnosed")),
           ("table/diagnosed-fresh", phrasings_fresh.load()),
           ("table/phrasings.json", json.loads(PHRASINGS_JSON.read_text(encoding="utf-8")))]
    for split in phrasegen.SPLITS:
        out.append((f"generated/{split}", phrasegen.generate(3000, split=split, catalog=catalog, seed=13)))
        out.append((f"speed/{split}", phrasegen.generate(1000, split=split, catalog=catalog, seed=11)))
    out.append(("heldout/diagnosed-table2", table2.load()))
    out.append(("generated/diagnosed10", gen9.generate(gen9.N_DEFAULT, catalog=catalog, seed=9)))
    return out


def result_json(result: Any) -> dict[str, Any]:
    """Every field of a ``ParseResult``: the models dumped whole, the rest as they are."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        out[f.name] = value.model_dump(mode="json") if isinstance(value, SpecRequest) else value
    return out


def parse_one(entry: dict, catalog: Catalog) -> dict[str, Any]:
    previous = SpecRequest(**entry["previous"]) if "previous" in entry else None
    try:
        return result_json(parse_message(entry["text"], catalog, previous=previous))
    except ParseError as exc:
        return {"parse_error": exc.code}
    except Exception as exc:  # a crash is a result too: it must stay the same crash
        return {"crash": f"{type(exc).__name__}: {exc}"}


def dump(path: Path) -> None:
    catalog = Catalog.in_memory()
    snapshot = {name: [parse_one(e, catalog) for e in entries] for name, entries in sets(catalog)}
    path.write_text(json.dumps(snapshot, sort_keys=True, default=repr), encoding="utf-8")
    print(f"{sum(len(v) for v in snapshot.values())} results of {len(snapshot)} sets -> {path}")


def compare(before: Path, after: Path) -> int:
    a = json.loads(before.read_text(encoding="utf-8"))
    b = json.loads(after.read_text(encoding="utf-8"))
    differ = 0
    for name in sorted(set(a) | set(b)):
        ra, rb = a.get(name), b.get(name)
        if ra is None or rb is None:
            print(f"{name}: only in {'after' if ra is None else 'before'}")
            differ += 1
            continue
        bad = [i for i, (x, y) in enumerate(zip(ra, rb)) if x != y]
        if len(ra) != len(rb):
            print(f"{name}: {len(ra)} results before, {len(rb)} after")
            differ += 1
        if bad:
            differ += len(bad)
            print(f"{name}: {len(bad)} of {len(ra)} differ, first at #{', #'.join(map(str, bad[:10]))}")
    total = sum(len(v) for v in a.values())
    print(f"{total} results of {len(a)} sets: " + ("identical" if not differ else f"{differ} differences"))
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("path", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.cmd == "dump":
        dump(args.path)
    else:
        sys.exit(compare(args.before, args.after))


if __name__ == "__main__":
    main()
