"""How often the chat parser reads the round-11 blind sets fully right (issue #13), counts only.

Two sets, written for issue #13's final held-out measurement by someone who did not read or run the
parser while writing them, and committed ("freeze round-11 blind sets ... before any parser run",
d382b30) before this benchmark existed; three table3 texts and one gen11 frame were made unambiguous
in ac338b2, before anyone had seen a count:

- ``heldout/table3``: 508 hand-written Slack messages, 253 English and 255 Spanish
  (tests/heldout/table3.py, tests/data/heldout/table3.json);
- ``heldout/gen11``: round 11's independent generator, 3,000 messages from seed 11
  (tests/heldout/gen11.py), with vocabularies, frames, noise and config shapes that neither
  tests/phrasegen.py nor tests/heldout/gen9.py has.

They are BLIND: nobody tunes the parser on them, and this benchmark prints counts only, never a
message (there is no ``--show``). The lead runs it once, at the end of the session, on the merged
parser; its figures are then recorded here, and from then on the sets are diagnosed like the
earlier ones.

Measured ONCE, blind, by the lead on main at c951d8f (the parser of i13-parse7 and i13-speed2
merged; load 1.5 on 2 CPUs), 2026-12-01 22:14 UTC:

    heldout/table3   409/508 fully right = 80.5% (en 81.8% of 253, es 79.2% of 255); answered with a value the user did not say: 16 (invented 6, misread 4, default over a stated value 6)
    heldout/gen11    976/3000 fully right = 32.5% (en 32.7% of 1515, es 32.4% of 1485); answered with a value the user did not say: 464 (invented 312, misread 168, default over a stated value 20)

From that commit on, both sets are DIAGNOSED: their failures may be read and fixed.

Each set prints one line, as benchmarks/parse_heldout.py does: how many messages are fully right
(``tests.phrasegen.judge``: the intent, the clarify code where labelled, and exactly the labelled
fields), by language, and the count of answers built on a value the user did not say (a field the
message did not state, a field read as another value, or a default used where the message stated a
value that cannot be read; defaults for what a message does not mention are listed as assumed in the
answer and are not counted). Then the set's composition (messages by language, by kind and by
expected intent). Where the parser raised an unexpected error, it prints where in the parser (file,
line, function), never the message.

    python benchmarks/parse_blind.py [--n 3000] [--seed 11] [--limit N]

``--limit N`` reads only the first N messages of each set (a smoke run for tests).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.catalog import Catalog  # noqa: E402
from advisor.errors import ParseError  # noqa: E402
from advisor.parse import parse_message  # noqa: E402
from advisor.spec import SpecRequest  # noqa: E402
from tests import phrasegen  # noqa: E402
from tests.heldout import gen11, table3  # noqa: E402

SETS = ("heldout/table3", "heldout/gen11")


def _failed(error: str) -> dict:
    return {"ok": False, "unsaid": False, "error": error, "invented": [], "misread": [], "missing": [],
            "intent_ok": False, "assumed_over_stated": False}


def judge_all(entries: list[dict], catalog: Catalog) -> list[dict]:
    """One ``phrasegen.judge`` verdict per entry (a ParseError or a crash is a failure, not an answer)."""
    out = []
    for entry in entries:
        previous = SpecRequest(**entry["previous"]) if "previous" in entry else None
        try:
            result = parse_message(entry["text"], catalog, previous=previous)
        except ParseError as exc:
            out.append(_failed(exc.code))
            continue
        except Exception as exc:  # a bug in the parser: a failure, reported by where it was raised
            frames = traceback.extract_tb(exc.__traceback__)[-2:]
            where = f"{type(exc).__name__} at " + " -> ".join(
                f"{Path(f.filename).name}:{f.lineno} ({f.name})" for f in frames)
            out.append({**_failed(f"crash {type(exc).__name__}"), "crash": where})
            continue
        out.append(phrasegen.judge(entry, result))
    return out


def summary(entries: list[dict], verdicts: list[dict]) -> dict:
    """The counts the report prints (also what tests read)."""
    unsaid = [v for v in verdicts if v["unsaid"]]
    return {"n": len(entries), "ok": sum(v["ok"] for v in verdicts),
            "langs": dict(Counter(e["lang"] for e in entries)),
            "ok_lang": dict(Counter(e["lang"] for e, v in zip(entries, verdicts) if v["ok"])),
            "unsaid": len(unsaid), "invented": sum(bool(v["invented"]) for v in unsaid),
            "misread": sum(bool(v["misread"]) for v in unsaid),
            "over": sum(bool(v["assumed_over_stated"]) for v in unsaid),
            "crashes": dict(Counter(v["crash"] for v in verdicts if "crash" in v))}


def kinds_of(entry: dict) -> list[str]:
    """table3 lists several kinds per message, gen11 one."""
    kind = entry.get("kind", "estimate")
    return list(kind) if isinstance(kind, list) else [kind]


def composition(entries: list[dict]) -> str:
    langs = Counter(e["lang"] for e in entries)
    kinds = Counter(k for e in entries for k in kinds_of(e))
    intents = Counter(e["expected"].get("intent", "estimate") for e in entries)
    return (f"composition: {', '.join(f'{lang} {c}' for lang, c in sorted(langs.items()))}; by kind: "
            + ", ".join(f"{k} {c}" for k, c in kinds.most_common())
            + "; by expected intent: " + ", ".join(f"{k} {c}" for k, c in intents.most_common()))


def report(name: str, entries: list[dict], verdicts: list[dict]) -> dict:
    s = summary(entries, verdicts)
    by_lang = ", ".join(f"{lang} {s['ok_lang'].get(lang, 0) / count:.1%} of {count}"
                        for lang, count in sorted(s["langs"].items()))
    print(f"{name:<16} {s['ok']}/{s['n']} fully right = {s['ok'] / max(s['n'], 1):.1%} ({by_lang}); "
          f"answered with a value the user did not say: {s['unsaid']} (invented {s['invented']}, "
          f"misread {s['misread']}, default over a stated value {s['over']})")
    for where, count in sorted(s["crashes"].items()):
        print(f"    raised an unexpected error on {count} message(s): {where}")
    print(f"    {composition(entries)}")
    return s


def load_sets(catalog: Catalog, *, n: int = gen11.N_DEFAULT, seed: int = 11) -> list[tuple[str, list[dict]]]:
    return [("heldout/table3", table3.load()), ("heldout/gen11", gen11.generate(n, catalog=catalog, seed=seed))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=gen11.N_DEFAULT, help="generated messages (gen11)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--limit", type=int, default=None, help="read only the first N messages of each set")
    args = parser.parse_args(argv)
    catalog = Catalog.in_memory()
    for name, entries in load_sets(catalog, n=args.n, seed=args.seed):
        entries = entries[: args.limit] if args.limit is not None else entries
        report(name, entries, judge_all(entries, catalog))


if __name__ == "__main__":
    main()
