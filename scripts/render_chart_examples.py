"""Regenerate the "Show chart" examples under docs/ (the README shows them), from the committed
catalog through the same library the bot uses (advisor.recommend, bot.chart.draw).

    python scripts/render_chart_examples.py            # docs/chart_lora_8b.png, docs/chart_qlora_70b.png
    python scripts/render_chart_examples.py --lang es --out /tmp/charts

Prints, for each PNG, its size, the points, lever arrows and memory bars drawn, and the render
time (the bot renders on its heavy queue; this is the figure to watch). Needs the ``chart`` extra.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.catalog import Catalog  # noqa: E402
from advisor.recommend import recommend  # noqa: E402
from advisor.resolve import resolve_request  # noqa: E402
from advisor.spec import SpecRequest  # noqa: E402
from bot.chart import draw  # noqa: E402

EXAMPLES = {
    # LoRA 8B with a dataset size: hours and dollars to an accepted checkpoint; the recommended
    # one RTX 4090 with Liger CE (its plan's lever, in its label), its other levers (FSDP over two,
    # a shorter sequence, QLoRA) as arrows
    "chart_lora_8b.png": dict(method="lora", model="llama-3.1-8b", seq_len=4096, dataset_tokens=50_000_000),
    # QLoRA 70B at 8k without a dataset size: per million trained tokens, four L40S recommended,
    # one-card A100 / H100 plans with Liger CE and 8-bit AdamW, the RTX 4090 that fits at no count
    # named under the panel and shown in memory
    "chart_qlora_70b.png": dict(method="qlora", model="llama-3-70b", seq_len=8192),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en", choices=("en", "es"))
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    catalog = Catalog.open()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, said in EXAMPLES.items():
        answer = recommend(resolve_request(SpecRequest(**said), catalog), catalog)
        start = time.perf_counter()
        rendered = draw(answer, args.lang)
        seconds = time.perf_counter() - start
        path = args.out / name
        path.write_bytes(rendered.png)
        width, height = (round(v) for v in rendered.figure.get_size_inches() * rendered.figure.dpi)
        chart = rendered.chart
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {width}x{height} px, "
              f"{len(chart.plans)} points, {len(chart.levers)} lever arrows, {len(chart.bars)} memory bars, "
              f"rendered in {seconds:.2f} s")


if __name__ == "__main__":
    main()
