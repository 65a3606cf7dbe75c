"""Step programs and run replays: hand-built programs worked out by hand, traced programs checked
against traces at other lengths, the fast replay path against the rule-by-rule one."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.allocator import AllocatorConfig, CachingAllocator
from advisor.allocator.events import EventLog, ProgramMismatch, StepProgram
from advisor.allocator.lengths import batch_lengths
from advisor.allocator.replay import replay_run
from advisor.spec import LengthDistribution

KIB, MIB = 1024, 1024 * 1024
STEP_MARKS = ("forward", "backward", "optimizer", "idle")


def two_step_log(length: int, opt_tmp: int = 0) -> EventLog:
    """A hand-built trace: a 40 MiB weight; per step a batch (8 B/token), an activation
    (16 KiB/token) freed in backward, a 30 MiB gradient made in backward and freed after the
    optimizer step, and an optional optimizer temporary."""
    sizes = [40 * MIB, 8 * length]
    cats = ["weights", "activations"]
    events, marks = [0], [(1, "batch")]
    events.append(1)
    for _ in range(2):
        act, grad, tmp = len(sizes), len(sizes) + 1, len(sizes) + 2
        sizes += [16 * KIB * length, 30 * MIB, opt_tmp]
        cats += ["activations", "gradients", "transient"]
        marks.append((len(events), "forward"))
        events.append(act)
        marks.append((len(events), "backward"))
        events += [grad, ~act]
        marks.append((len(events), "optimizer"))
        events += ([tmp, ~tmp] if opt_tmp else []) + [~grad]
        marks.append((len(events), "idle"))
    return EventLog(sizes=sizes, events=events, marks=marks, categories=cats)


def hand_program(opt_tmp: int = 0) -> StepProgram:
    return StepProgram.from_logs({1024: two_step_log(1024, opt_tmp), 2048: two_step_log(2048, opt_tmp)})


@pytest.mark.parametrize("conf, reserved, growth", [
    # default: weight 40; step 1 at 1024 tokens: activation 16 MiB and gradient 30 MiB segments
    # (exact, >= 10 MiB), batch in a 2 MiB small segment: 88; step 2 at 2048: the 32 MiB
    # activation fits no cached block: +32; step 3 at 1024 reuses the 16 MiB block: 120 MiB
    ("", 120, [(0, 1024, 88), (1, 2048, 120)]),
    # expandable (20 MiB pages): weight 40 = pages 0-1; batch: a 2 MiB small page; activation 16
    # maps page 2 (4 MiB left free); the gradient's 30 MiB grows from that 4 MiB tail by pages
    # 3-4 (free 4 + 40 = 44, 14 left): 102. Frees merge pages 2-4 into one free 60 MiB block.
    # Step 2: activation 32 from it (28 left), gradient 30 grows the 28 MiB tail by page 5: 122.
    # Step 3 fits. Expandable is worse here: its page is coarser than these requests.
    ("expandable_segments:True", 122, [(0, 1024, 102), (1, 2048, 122)]),
])
def test_hand_built_program_over_three_lengths(conf, reserved, growth):
    run = replay_run(hand_program(), [1024, 2048, 1024], config=AllocatorConfig.parse(conf), exact=True)
    assert run.reserved_bytes == reserved * MIB
    assert run.growth_steps == [(k, n, r * MIB) for k, n, r in growth]


def test_gradient_accumulation_keeps_gradients_alive_across_micro_batches():
    # optimizer temporary 12 MiB. One optimizer step per micro-batch: the temporary fits the freed
    # 16 MiB activation block: 40 + 16 + 30 + 2 = 88. Accumulating two: the second micro-batch's
    # new gradient (AccumulateGrad's new_grad) needs 30 MiB while the first's lives: +30 = 118
    prog = hand_program(opt_tmp=12 * MIB)
    assert replay_run(prog, [1024] * 4, accumulation=1).reserved_bytes == 88 * MIB
    run = replay_run(prog, [1024] * 4, accumulation=2)
    assert run.reserved_bytes == 118 * MIB and not prog.accumulation_traced


def test_fixed_length_steps_are_simulated_until_nothing_changes():
    run = replay_run(hand_program(), [2048] * 500)
    assert run.simulated_steps <= 3 and run.steps == 500
    assert run.reserved_bytes == replay_run(hand_program(), [2048] * 3, exact=True).reserved_bytes


def test_a_capacity_below_the_peak_ends_the_run_with_oom():
    run = replay_run(hand_program(), [1024, 2048], capacity=100 * MIB)
    assert run.oom_step == 1 and "out of memory" in run.oom_message
    ok = replay_run(hand_program(), [1024, 2048], capacity=130 * MIB)
    assert ok.oom_step is None and ok.reserved_bytes == 120 * MIB


def test_traces_of_different_structure_are_refused():
    a, b = two_step_log(1024), two_step_log(2048, opt_tmp=MIB)
    with pytest.raises(ProgramMismatch):
        StepProgram.from_logs({1024: a, 2048: b})


def test_a_one_length_program_only_runs_at_that_length():
    prog = StepProgram.from_logs({1024: two_step_log(1024)})
    assert replay_run(prog, [1024] * 3).reserved_bytes == 88 * MIB
    with pytest.raises(ValueError, match="traced at 1024 tokens only"):
        prog.sizes(2048)


@pytest.mark.parametrize("dist, micro_batch, expect", [
    (None, 4, [512] * 5),
    (LengthDistribution(lengths=(100, 300)), 1, None),
    (LengthDistribution(mean=600, min=200, max=2048, pad_to_multiple_of=64), 2, None),
    (LengthDistribution(lengths=(100, 5000), overflow="drop"), 3, [100] * 5),
])
def test_batch_lengths_pad_each_batch_to_its_longest_sample(dist, micro_batch, expect):
    lengths = batch_lengths(dist, 512 if dist is None or dist.lengths else 2048, micro_batch, 5, seed=1)
    if expect is not None:
        assert lengths == expect
    else:
        assert len(lengths) == 5 and all(n <= 2048 for n in lengths)
        if dist.pad_to_multiple_of:
            assert all(n % 64 == 0 for n in lengths)
        if dist.lengths:
            assert set(lengths) <= {100, 300}


def test_maximum_entropy_lengths_have_the_mean_asked_for():
    import random

    from advisor.allocator.lengths import sample_lengths

    for mean in (300, 1124, 1900):
        x = sample_lengths(LengthDistribution(mean=mean, min=200, max=2048), 40000, 2048, random.Random(0))
        assert abs(sum(x) / len(x) - mean) < 0.02 * mean and min(x) >= 200 and max(x) <= 2048


def test_log_normal_lengths_have_the_mean_and_spread_asked_for_inside_the_range():
    import random
    import statistics

    from advisor.allocator.lengths import sample_lengths

    x = sample_lengths(LengthDistribution(mean=1000, std=400, min=1, max=100000), 40000, 100000, random.Random(0))
    assert abs(statistics.mean(x) - 1000) < 20 and abs(statistics.pstdev(x) - 400) < 20


SIZES = st.one_of(st.integers(1, 8192), st.integers(900 * KIB, 2 * MIB), st.integers(4 * MIB, 40 * MIB))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), SIZES, st.integers(0, 1000)), max_size=80),
       st.sampled_from(["", "max_split_size_mb:30"]), st.sampled_from([None, 120 * MIB]))
def test_fast_replay_path_equals_the_rule_by_rule_path(ops, conf, capacity):
    sizes, events, live = [], [], []
    for alloc, size, pick in ops:
        if alloc or not live:
            live.append(len(sizes))
            events.append(len(sizes))
            sizes.append(size)
        else:
            events.append(~live.pop(pick % len(live)))
    fast = CachingAllocator(AllocatorConfig.parse(conf), capacity=capacity)
    slow = CachingAllocator(AllocatorConfig.parse(conf), capacity=capacity)
    outcomes = []
    for alloc in (fast, slow):
        ptrs: dict[int, int] = {}
        try:
            if alloc is fast:
                alloc.replay(events, sizes, ptrs)
            else:
                for e in events:
                    if e >= 0:
                        ptrs[e] = alloc.malloc(sizes[e])
                    else:
                        alloc.free(ptrs.pop(~e))
            outcomes.append("ok")
        except MemoryError:
            outcomes.append("oom")
    assert outcomes[0] == outcomes[1]
    assert fast.snapshot() == slow.snapshot() and fast.stats == slow.stats
