"""How often the chat parser reads held-out messages fully right: sets nobody tunes the parser on.

Two sets, written for issue #13 by someone who did not read or run the parser while writing them, and
committed ("freeze held-out sets ... before any parser run", d59effb) before this benchmark existed; six
table2 texts were made unambiguous afterwards (6471fe1), before any count on the set was seen:

- ``heldout/table2``: 527 hand-written Slack messages, about half English and half Spanish
  (tests/heldout/table2.py, tests/data/heldout/table2.json);
- ``heldout/gen9``: round 9's independent generator, 3,000 messages from seed 9 (tests/heldout/gen9.py),
  with vocabularies, frames, noise and config shapes that tests/phrasegen.py does not have.

Each set prints one line, as benchmarks/parse_accuracy.py does: how many messages are fully right
(``tests.phrasegen.judge``: the intent, the clarify code where labelled, and exactly the labelled
fields), by language, and the count of answers built on a value the user did not say (a field the
message did not state, a field read as another value, or a default used where the message stated a
value that cannot be read; defaults for what a message does not mention are listed as assumed in the
answer and are not counted). Then the set's composition (messages by language and by kind).

Counts only: this script never prints a failing message, a label, or which kind of message fails
(the sets stay held out). Where the parser raised an unexpected error, it prints where in the parser
(file, line, function), never the message.

    python benchmarks/parse_heldout.py [--n 3000] [--seed 9] [--limit N]

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
from tests.heldout import gen9, table2  # noqa: E402


def _failed(error: str) -> dict:
    return {"ok": False, "unsaid": False, "error": error, "invented": [], "misread": [], "missing": [],
            "intent_ok": False, "assumed_over_stated": False}


def judge_all(entries: list[dict], catalog: Catalog) -> list[dict]:
    """One ``phrasegen.judge`` verdict per entry (a ParseError or a crash is a failure)."""
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
    n = len(entries)
    unsaid = [v for v in verdicts if v["unsaid"]]
    langs = Counter(e["lang"] for e in entries)
    ok_lang = Counter(e["lang"] for e, v in zip(entries, verdicts) if v["ok"])
    return {"n": n, "ok": sum(v["ok"] for v in verdicts), "langs": dict(langs), "ok_lang": dict(ok_lang),
            "unsaid": len(unsaid), "invented": sum(bool(v["invented"]) for v in unsaid),
            "misread": sum(bool(v["misread"]) for v in unsaid),
            "over": sum(bool(v["assumed_over_stated"]) for v in unsaid),
            "crashes": dict(Counter(v["crash"] for v in verdicts if "crash" in v))}


def _kinds(entry: dict) -> list[str]:
    kind = entry.get("kind", "estimate")
    return list(kind) if isinstance(kind, list) else [kind]


def report(name: str, entries: list[dict], verdicts: list[dict]) -> dict:
    s = summary(entries, verdicts)
    by_lang = ", ".join(f"{lang} {s['ok_lang'].get(lang, 0) / count:.1%} of {count}"
                        for lang, count in sorted(s["langs"].items()))
    print(f"{name:<16} {s['ok']}/{s['n']} fully right = {s['ok'] / max(s['n'], 1):.1%} ({by_lang}); "
          f"answered with a value the user did not say: {s['unsaid']} (invented {s['invented']}, "
          f"misread {s['misread']}, default over a stated value {s['over']})")
    for where, count in sorted(s["crashes"].items()):
        print(f"    raised an unexpected error on {count} message(s): {where}")
    kinds = Counter(k for e in entries for k in _kinds(e))
    intents = Counter(e["expected"].get("intent", "estimate") for e in entries)
    print(f"    composition: {', '.join(f'{lang} {c}' for lang, c in sorted(s['langs'].items()))}; by kind: "
          + ", ".join(f"{k} {c}" for k, c in kinds.most_common())
          + "; by expected intent: " + ", ".join(f"{k} {c}" for k, c in intents.most_common()))
    return s


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=gen9.N_DEFAULT, help="generated messages (gen9)")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--limit", type=int, default=None, help="read only the first N messages of each set")
    args = parser.parse_args(argv)
    catalog = Catalog.in_memory()
    sets = [("heldout/table2", table2.load()), ("heldout/gen9", gen9.generate(args.n, catalog=catalog, seed=args.seed))]
    for name, entries in sets:
        entries = entries[: args.limit] if args.limit is not None else entries
        report(name, entries, judge_all(entries, catalog))


if __name__ == "__main__":
    main()
