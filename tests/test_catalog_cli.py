"""Issue #16 item 7: `advisor catalog list` has a header and aligned columns; `catalog show`
formats its fields (GiB with the exact bytes, prices, regions) and cites a datasheet that exists
in the repository."""

from __future__ import annotations

import csv
import re

import pytest
from click.testing import CliRunner

from advisor.catalog import Catalog
from advisor.cli import main
from tests.conftest import ROOT


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, ["catalog", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _columns(header: str) -> list[int]:
    return [m.start() for m in re.finditer(r"(?<!\S)\S", header)]


def test_list_has_a_header_and_aligned_columns():
    lines = _run("list").splitlines()
    header, rule, *rows = lines
    assert header.split()[:2] == ["id", "GPU"] and "usable memory" in header and "price" in header
    assert set(rule.replace(" ", "")) == {"-"}
    rows = rows[:rows.index("")]
    offered = Catalog.open().gpus(offered_only=True)
    assert [r.split()[0] for r in rows] == [g.id for g in offered]
    starts = [m.start() for m in re.finditer(r"-+", rule)]
    ends = [m.end() for m in re.finditer(r"-+", rule)]
    for row in rows:  # every cell inside its column (left-aligned from its start, right-aligned to its end)
        assert row[starts[1] - 2:starts[1]] == "  " and row[starts[1]] != " "
        assert row[ends[2] - 1] != " " and row[ends[2]] == " "  # usable memory, right-aligned
        assert re.search(r"\$\d+\.\d\d/h", row[starts[4]:ends[4]])


def test_list_models_has_a_header_too():
    header, rule, first, *_ = _run("list", "--models").splitlines()
    assert header.split()[:3] == ["id", "model", "params"] and set(rule.replace(" ", "")) == {"-"}
    assert re.search(r"\d+\.\d\dB", first)


def test_show_gpu_formats_bytes_prices_regions_and_cites_a_datasheet_in_the_repository():
    gpu = Catalog.open().gpu("h100-sxm")
    out = _run("show", "H100")
    assert out.splitlines()[0] == gpu.display_name
    assert f"{gpu.usable_memory_bytes / 2**30:.2f} GiB ({gpu.usable_memory_bytes:,} bytes)" in out
    assert str(gpu.usable_memory_bytes) not in out  # no raw byte counts
    assert "$2.69/h" in out and "eu-west = EU West (Paris)" in out and "['" not in out
    [ref] = [line for line in out.splitlines() if line.strip().startswith("datasheet")]
    assert "../shared" not in ref
    path, line = re.search(r"(docs/\S+\.csv), line (\d+)", ref).groups()
    rows = (ROOT / path).read_text().splitlines()
    assert rows[int(line) - 1].startswith("H100,SXM5,80,")


@pytest.mark.parametrize("gpu", [g.id for g in Catalog.open().gpus()])
def test_every_gpus_datasheet_row_exists_and_names_it(gpu):
    from advisor.cli.catalog_cmd import datasheet_reference

    g = Catalog.open().gpu(gpu)
    ref = datasheet_reference(g)
    path, line = re.match(r"(\S+\.csv), line (\d+) ", ref).groups()
    with (ROOT / path).open(newline="") as fh:
        row = list(csv.DictReader(fh))[int(line) - 2]
    assert all(w in g.display_name.lower() for w in row["gpu"].lower().split()) and row["form_factor"] == g.form_factor


def test_show_model_formats_parameter_counts():
    out = _run("show", "llama 3 70b")
    assert "70.55B (70,553,706,496)" in out and "128,256" in out and "70553706496\n" not in out
