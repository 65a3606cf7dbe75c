"""Property tests over everything a person (or a script) can hand the advisor outside chat text:
spec values, catalog names, and the catalog admin CLI. Whatever comes in, the only failures are
the ones the code promises (SpecError, UnknownModel/UnknownGpu with suggestions, a CLI exit of 2
with a message), never a traceback; and an accepted spec always gets a finite answer.

Budgets: each test is a few seconds on the 2-core CI machine (derandomized, so CI sees the same
examples every run and a failure reproduces)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from advisor.answer import Advisor
from advisor.catalog import Catalog
from advisor.errors import CatalogError, SpecError, UnknownGpu, UnknownModel
from advisor.spec import (
    MAX_DATASET_TOKENS, MAX_EPOCHS, MAX_GPUS, MAX_MICRO_BATCH, MAX_PARAMS_B, MAX_SEQ_LEN, SpecRequest, resolve,
)
from tests.conftest import ROOT


def budget(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


FIELDS = list(SpecRequest.model_fields)
WILD_NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 10**12, 10**9, 2**63, -(2**63), 1e-300, 5e-324, 1e308, float("nan"), float("inf")]),
)
WILD_VALUES = st.one_of(WILD_NUMBERS, st.text(max_size=30), st.booleans(), st.none(),
                        st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
WILD_REQUESTS = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=12), WILD_VALUES, max_size=6)


@budget(400)
@given(said=WILD_REQUESTS)
def test_resolve_raises_only_spec_error_with_a_message(said):
    try:
        spec, assumed = resolve(said)
    except SpecError as exc:
        assert str(exc).startswith("Invalid fine-tuning spec: ") and len(str(exc)) > len("Invalid fine-tuning spec: ")
        return
    assert spec.model is not None or spec.params_b is not None
    assert all(isinstance(name, str) for name in assumed)


@budget(300)
@given(said=WILD_REQUESTS)
def test_spec_request_raises_only_validation_error_and_resolve_agrees(said):
    """SpecRequest itself is pydantic (a ValidationError); resolve() turns the same problems into
    a SpecError. A request SpecRequest refuses is never accepted by resolve."""
    try:
        request = SpecRequest(**{k: v for k, v in said.items() if v is not None})
    except ValidationError:
        with pytest.raises(SpecError):
            resolve(said)
        return
    assert SpecRequest.model_validate_json(request.model_dump_json()) == request


@pytest.mark.parametrize("field, value, words", [
    ("seq_len", 10**9, "sequence length"),
    ("params_b", 1000.0, "model size"),
    ("params_b", 1e12, "model size"),
    ("micro_batch", -5, "micro-batch"),
    ("num_gpus", 0, "number of GPUs"),
    ("epochs", float("nan"), "epochs"),
    ("dataset_tokens", 10**15, "dataset size"),
    ("lora_rank", float("inf"), "LoRA rank"),
])
def test_out_of_range_numbers_are_refused_with_a_message_that_names_them(field, value, words):
    with pytest.raises(SpecError) as err:
        resolve({"model": "llama-3.1-8b", field: value})
    assert words in str(err.value)


# Inside every bound the spec accepts: the answer must come back (or a SpecError/CatalogError
# turned into a problem answer), and every number in it finite.
IN_BOUNDS = st.fixed_dictionaries({}, optional={
    "method": st.sampled_from(["full", "lora", "qlora"]),
    "model": st.sampled_from(["llama-3.1-8b", "llama-3-70b", "phi-4", "tiny-test", "qwen2.5-7b"]),
    "params_b": st.floats(min_value=1e-6, max_value=MAX_PARAMS_B),
    "seq_len": st.integers(1, MAX_SEQ_LEN),
    "micro_batch": st.integers(1, MAX_MICRO_BATCH),
    "num_gpus": st.integers(1, MAX_GPUS),
    "lora_rank": st.integers(1, 65536),
    "gradient_checkpointing": st.booleans(),
    "optimizer": st.sampled_from(["adamw", "adamw-8bit", "paged-adamw-8bit", "sgd"]),
    "precision": st.sampled_from(["bf16-mixed", "bf16", "fp16-mixed", "fp32"]),
    "attention": st.sampled_from(["flash", "eager"]),
    "sharding": st.sampled_from(["ddp", "fsdp"]),
    "dataset_tokens": st.integers(1, MAX_DATASET_TOKENS),
    "epochs": st.floats(min_value=1e-9, max_value=MAX_EPOCHS),
    "layers": st.integers(1, 1024),
    "hidden": st.integers(8, 65536),
    "heads": st.integers(1, 1024),
    "vocab": st.integers(2, 1_048_576),
})


def finite_everywhere(node, path="") -> list[str]:
    if isinstance(node, float):
        return [] if math.isfinite(node) else [path]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in finite_everywhere(v, f"{path}.{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in finite_everywhere(v, f"{path}[{i}]")]
    return []


@budget(120)
@given(said=IN_BOUNDS)
def test_every_accepted_request_gets_a_finite_answer(said, catalog):
    if "model" not in said and "params_b" not in said:
        said["params_b"] = 8.0
    answer = Advisor(catalog).estimate(SpecRequest(**said))
    assert answer.text
    assert finite_everywhere(answer.data) == [], said
    json.dumps(answer.data, default=str, allow_nan=False)


NAMES = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
    st.sampled_from(["", " ", "\x00", "H100", "h100s", "a100 80gb", "llama 3 70b", "🚀", "../../etc/passwd",
                     "'; DROP TABLE gpus; --", "%", "_", "*", "\u202e", "Ｈ１００", "h" * 5000]),
)


@budget(300)
@given(name=NAMES)
def test_gpu_lookup_finds_or_suggests(name, catalog):
    known = {g.id for g in catalog.gpus()}
    try:
        gpu = catalog.gpu(name)
    except UnknownGpu as exc:
        assert exc.name == name and set(exc.suggestions) <= known and len(exc.suggestions) <= 3
        assert repr(name) in str(exc) or name in str(exc)
        assert catalog.find_gpu(name) is None
        return
    assert gpu.id in known and catalog.find_gpu(name) == gpu


@budget(300)
@given(name=NAMES)
def test_model_lookup_finds_or_suggests(name, catalog):
    known = {m.id for m in catalog.models()}
    try:
        model = catalog.model(name)
    except UnknownModel as exc:
        assert exc.name == name and set(exc.suggestions) <= known and len(exc.suggestions) <= 3
        assert catalog.find_model(name) is None
        return
    assert model.id in known


@budget(200)
@given(name=NAMES)
def test_region_lookup_raises_only_catalog_error(name, catalog):
    try:
        region = catalog.region(name)
    except CatalogError as exc:
        assert "Known:" in str(exc)
        return
    assert region.id in {r.id for r in catalog.regions()}


@pytest.mark.parametrize("typo, expected", [("h10", "h100"), ("a1OO", "a100"), ("lama-3-70b", "llama-3-70b")])
def test_a_near_miss_suggests_the_right_name(typo, expected, catalog):
    lookup = catalog.model if "lama" in typo else catalog.gpu
    with pytest.raises((UnknownGpu, UnknownModel)) as err:
        lookup(typo)
    assert any(s.startswith(expected) for s in err.value.suggestions), err.value.suggestions


# --- the admin CLI on a scratch copy -------------------------------------------------------------

GPU_ARGS = st.sampled_from(["h100", "a100-80gb", "rtx-4090", "H100 SXM", "nope", "", "🚀", "-", "--help"]) | st.text(max_size=10)
NUMBER_ARGS = st.sampled_from(["2.5", "0", "-1", "nan", "inf", "-inf", "1e309", "999.99", "1000", "abc", "", "1_0", "0x10"]) \
    | st.floats(allow_nan=True).map(repr) | st.text(max_size=6)
# Any JSON an admin may paste: objects with and without a string id, and other shapes.
ROW_JSON = st.sampled_from(["{not json", '{"id": "x"}', '{"id": "h100"}', '{"id": ""}', "{}", "[]", "null",
                            '"h100"', '{"id": 1}']) \
    | st.fixed_dictionaries({"id": st.text(min_size=1, max_size=8)},
                            optional={k: WILD_VALUES for k in ["display_name", "memory_gb", "price_usd_per_hour",
                                                               "offered", "aliases"]}).map(lambda d: json.dumps(d, default=str))
ADMIN_COMMANDS = st.one_of(
    st.tuples(st.just("set-price"), GPU_ARGS, NUMBER_ARGS),
    st.tuples(st.just("set-offered"), GPU_ARGS, st.sampled_from(["yes", "no", "maybe", ""]),
              st.sampled_from(["--price", "--regions"]), NUMBER_ARGS | st.sampled_from(["eu-west", "zz", ",", ""])),
    st.tuples(st.just("remove"), GPU_ARGS),
    st.tuples(st.just("add"), ROW_JSON),
    st.tuples(st.just("set-storage-price"), st.sampled_from(["eu-west", "us-east", "zz", ""]) | st.text(max_size=5), NUMBER_ARGS),
    st.tuples(st.just("show"), GPU_ARGS),
    st.tuples(st.just("audit"), st.just("--limit"), NUMBER_ARGS),
).map(list)


@pytest.fixture(scope="module")
def admin_db(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("fuzzcli") / "catalog.db"
    shutil.copy(ROOT / "catalog.db", target)
    return target


def run_catalog(args: list[str], db: Path):
    from advisor.cli import main

    return CliRunner().invoke(main, ["catalog", *args, "--db", str(db)], catch_exceptions=True)


@budget(250)
@given(args=ADMIN_COMMANDS)
def test_catalog_admin_commands_exit_0_or_2_with_a_message(args, admin_db):
    result = run_catalog(args, admin_db)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, (args, repr(result.exception), result.output[-500:])
    assert result.exit_code in (0, 2), (args, result.exit_code, result.output)
    if result.exit_code == 2:
        assert "Error" in result.output, (args, result.output)


# Found by the fuzzing above: `add` assumed a JSON object with a string "id", and `audit --limit`
# passed any int to SQLite (which takes 64-bit integers only). Both are guarded now.
@pytest.mark.parametrize("args", [
    ["add", "{}"],
    ["add", "[]"],
    ["add", "null"],
    ["add", '"h100"'],
    ["add", '{"id": 1}'],
    ["audit", "--limit", str(2**64)],
    ["add", '{"id": "x"}'],
    ["set-price", "no-such-gpu", "2"],
])
def test_once_crashing_admin_commands_are_refused_with_a_message(args, admin_db):
    result = run_catalog(args, admin_db)
    assert result.exit_code == 2 and "Error" in result.output, (args, repr(result.exception))


def test_the_fuzzed_catalog_still_opens_and_its_audit_rows_are_well_formed(admin_db, scratch_db):
    """After the fuzzing above the scratch catalog opens and every audit row has an actor and a
    time; an edit on a fresh copy is the newest row, with its new value."""
    assert Catalog.open(admin_db).gpus() and all(r["actor"] and r["at"] for r in Catalog.open(admin_db).audit_log(10_000))
    assert run_catalog(["set-price", "h100", "2.49", "--actor", "fuzz"], scratch_db).exit_code == 0
    cat = Catalog.open(scratch_db)
    rows = cat.audit_log(limit=10_000)
    assert rows and all(r["actor"] and r["at"] for r in rows)
    assert rows[0]["actor"] == "fuzz" and json.loads(rows[0]["new_value"]) == 2.49
