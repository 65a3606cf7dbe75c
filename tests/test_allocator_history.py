"""The model against allocator histories in PyTorch's snapshot format, and its own snapshots
read by torch's memory tools (torch.cuda._memory_viz, pure Python: no GPU needed)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.allocator import AllocatorConfig, CachingAllocator
from advisor.allocator.history import check_history, to_snapshot

MIB = 1024 * 1024
BASE, OTHER = 0x7F0000000000, 0x7F0040000000


def recorded_three_8mib():
    """What the device records for 8, 8, 8 MiB (hand-written from CCA:2488-2496 and the split
    rule): a 20 MiB segment holds the first two at offsets 0 and 8 MiB, the third gets a second
    segment at offset 0."""
    return [
        {"action": "segment_alloc", "addr": BASE, "size": 20 * MIB},
        {"action": "alloc", "addr": BASE, "size": 8 * MIB},
        {"action": "alloc", "addr": BASE + 8 * MIB, "size": 8 * MIB},
        {"action": "segment_alloc", "addr": OTHER, "size": 20 * MIB},
        {"action": "alloc", "addr": OTHER, "size": 8 * MIB},
        {"action": "free_requested", "addr": BASE, "size": 8 * MIB},
        {"action": "free_completed", "addr": BASE, "size": 8 * MIB},
        {"action": "alloc", "addr": BASE, "size": 6 * MIB},  # best fit: the freed 8 MiB at offset 0
    ]


def test_a_recorded_history_that_follows_the_rules_matches():
    check = check_history(recorded_three_8mib())
    assert check.matches and check.allocations == 4
    assert check.recorded_segments == [("segment_alloc", 20 * MIB)] * 2


def test_a_history_the_rules_cannot_produce_is_caught():
    wrong = recorded_three_8mib()
    wrong[0] = {"action": "segment_alloc", "addr": BASE, "size": 10 * MIB}  # 8 MiB never gets a 10 MiB segment
    check = check_history(wrong)
    assert not check.matches and "recorded segment_alloc of 10485760" in check.first_difference()


def test_a_misplaced_allocation_is_caught():
    wrong = recorded_three_8mib()
    wrong[-1] = {"action": "alloc", "addr": BASE + 16 * MIB, "size": 6 * MIB}  # the 4 MiB tail cannot hold 6
    check = check_history(wrong)
    assert check.segments_match and check.offset_mismatches == [(3, 16 * MIB, 0)]


def _random_run(ops, conf=""):
    a = CachingAllocator(AllocatorConfig.parse(conf), record=True)
    live = []
    for kind, value in ops:
        if kind == "m" or not live:
            live.append(a.malloc(value))
        else:
            a.free(live.pop(value % len(live)))
    return a


OPS = st.lists(st.tuples(st.sampled_from("mf"), st.one_of(
    st.integers(1, 4096), st.integers(512 * 1024, 3 * MIB), st.integers(5 * MIB, 60 * MIB))), max_size=60)


@settings(max_examples=60, deadline=None)
@given(OPS, st.sampled_from(["", "max_split_size_mb:40", "expandable_segments:True"]))
def test_the_model_matches_its_own_recorded_history(ops, conf):
    a = _random_run(ops, conf)
    check = check_history(a.trace, AllocatorConfig.parse(conf))
    assert check.segments_match and not check.offset_mismatches


@settings(max_examples=40, deadline=None)
@given(OPS)
def test_torch_memory_viz_reads_the_snapshot_and_its_accounting_adds_up(ops):
    memory_viz = pytest.importorskip("torch.cuda._memory_viz")
    a = _random_run(ops)
    snap = to_snapshot(a)
    summary = memory_viz.segsum(snap)  # raises if a segment's blocks do not add up to its size
    assert f"segments: {len(snap['segments'])}" in summary
    assert sum(s["total_size"] for s in snap["segments"]) == a.stats.reserved_bytes
    assert ("TOTAL MEM" in memory_viz.trace(snap)) == bool(a.trace)
