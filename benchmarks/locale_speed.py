"""What one locale per answer costs (issue #16): the import of advisor.report (the bot and
`advisor ask` import it; Babel is imported lazily, on the first figure), the first figure of a
process (Babel's import and its en_US/es_ES locale data), and a whole answer's text in each
language. Prints figures; asserts nothing (timings on a shared machine are noisy: compare the
ratios of one run).

    python benchmarks/locale_speed.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _child(code: str) -> float:
    """Seconds ``code`` takes in a fresh interpreter (what a process start pays)."""
    out = subprocess.run([sys.executable, "-c", f"import time; t0 = time.perf_counter(); {code}; "
                          "print(time.perf_counter() - t0)"], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    cases = {
        "import advisor.report": "import advisor.report",
        "import advisor.report + babel.numbers": "import advisor.report, babel.numbers",
        "first figure (Babel + es_ES data)": "from advisor.i18n import numbers; numbers.money(19.16, 'es')",
        "first figures, both locales": "from advisor.i18n import numbers; numbers.money(1, 'es'); numbers.money(1, 'en')",
    }
    print(f"{'process start, min/median of ' + str(runs):<44} {'min ms':>8} {'median ms':>10}")
    for name, code in cases.items():
        times = [_child(code) for _ in range(runs)]
        print(f"{name:<44} {min(times) * 1e3:8.1f} {statistics.median(times) * 1e3:10.1f}")

    from advisor.answer import Advisor
    from advisor.catalog import Catalog
    from advisor.i18n import numbers
    from bot.render.answer import render_answer

    advisor = Advisor(Catalog.open())
    print(f"\n{'in process, per call':<44} {'mean us':>8}")
    n = 20000
    for name, fn in {"numbers.money(19.16, 'es')": lambda: numbers.money(19.16, "es"),
                     "numbers.decimal(4096, 'en')": lambda: numbers.decimal(4096, "en"),
                     "numbers.gib(2e10, 'es')": lambda: numbers.gib(2e10, "es"),
                     "f'${x:,.2f}' (before, for scale)": lambda: f"${19.16:,.2f}"}.items():
        fn()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        print(f"{name:<44} {(time.perf_counter() - t0) / n * 1e6:8.2f}")
    def clear() -> None:
        for f in (numbers.decimal, numbers.money, numbers.percent):
            f.cache_clear()

    for lang, text in (("en", "qlora llama-3-70b seq 8192, 50M tokens"), ("es", "qlora de llama-3-70b con secuencia de 8192, 50M tokens")):
        reply = advisor.ask(text)
        for cold in (True, False):  # cold: every figure formatted anew (a new question's figures)
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(10):
                    if cold:
                        clear()
                    reply = advisor.ask(text)
                    render_answer(reply.answer, lang, head=reply.data.get("head"))
                best = min(best, (time.perf_counter() - t0) / 10)
            label = f"whole answer (ask + blocks), {lang}, {'cold' if cold else 'warm'} cache"
            print(f"{label:<44} {best * 1e6:8.0f}")


if __name__ == "__main__":
    main()
