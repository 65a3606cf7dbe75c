"""The caching-allocator model, rule by rule, on hand-built allocation sequences.

Every expected number is worked out by hand from the cited rule of
c10/cuda/CUDACachingAllocator.cpp (advisor.allocator: CCA:n); the comment beside each case says
how. Sizes in MiB unless a case says bytes.
"""

import pytest

from advisor.allocator import AllocatorConfig, AllocatorConfigError, CachingAllocator, SimulatedOutOfMemory
from advisor.allocator.caching import _roundup_power2_next_division

KIB, MIB = 1024, 1024 * 1024


def fresh(conf: str = "", **kw) -> CachingAllocator:
    return CachingAllocator(AllocatorConfig.parse(conf), **kw)


@pytest.mark.parametrize("request_bytes, block, segment", [
    (1, 512, 2 * MIB),  # CCA:2027 below 512 B -> 512 B; small pool -> a 2 MiB segment (CCA:2489)
    (512, 512, 2 * MIB),
    (513, 1024, 2 * MIB),  # CCA:2034 rounded up to a multiple of 512
    (1 * MIB, 1 * MIB, 2 * MIB),  # 1 MiB is still small (CCA:2445 size <= kSmallSize)
    (1 * MIB + 1, 1 * MIB + 512, 20 * MIB),  # large pool, under 10 MiB -> 20 MiB segment (CCA:2491)
    (10 * MIB - 513, 10 * MIB - 512, 20 * MIB),
    (10 * MIB - 1, 10 * MIB, 10 * MIB),  # rounds to 10 MiB = kMinLargeAlloc: exact, 2 MiB rounded (CCA:2494)
    (24 * MIB + 512 * KIB, 24 * MIB + 512 * KIB, 26 * MIB),  # 1.5 MiB left > 1 MiB: split off
    (25 * MIB + 1, 26 * MIB, 26 * MIB),  # 1 MiB - 512 B left is not > 1 MiB: the block is the segment
])
def test_rounding_pools_and_segment_sizes(request_bytes, block, segment):
    a = fresh()
    ptr = a.malloc(request_bytes)
    assert a.block_size(ptr) == block
    assert a.stats.reserved_bytes == segment
    assert a.stats.allocated_bytes == block and a.stats.requested_bytes == request_bytes


def test_small_requests_pack_into_2_mib_segments():
    # 4 x 512 KiB fill one 2 MiB segment exactly (each split leaves >= 512 B, CCA:2481); the 5th needs a new one
    a = fresh()
    for _ in range(4):
        a.malloc(512 * KIB)
    assert (a.stats.reserved_bytes, a.stats.segments) == (2 * MIB, 1)
    a.malloc(512 * KIB)
    assert (a.stats.reserved_bytes, a.stats.segments) == (4 * MIB, 2)


def test_requests_of_1_to_10_mib_share_a_20_mib_segment():
    # 8 MiB splits the 20 MiB segment (remainder 12 > 1 MiB), a second 8 MiB splits the remainder
    # (4 MiB left, still > 1 MiB); a third does not fit in 4 MiB: a second 20 MiB segment
    a = fresh()
    a.malloc(8 * MIB), a.malloc(8 * MIB)
    assert a.stats.reserved_bytes == 20 * MIB
    a.malloc(8 * MIB)
    assert (a.stats.reserved_bytes, a.stats.segments) == (40 * MIB, 2)


def test_a_remainder_of_1_mib_or_less_is_not_split_off_and_counts_as_allocated():
    # 19.5 MiB rounds to a 20 MiB segment; 0.5 MiB left is not > kSmallSize (CCA:2484): the whole
    # block is handed out and torch counts all 20 MiB as allocated (CCA:1458)
    a = fresh()
    ptr = a.malloc(19 * MIB + 512 * KIB)
    assert a.block_size(ptr) == 20 * MIB and a.stats.allocated_bytes == 20 * MIB
    a.free(ptr)
    a.malloc(600 * KIB)  # small requests never use large-pool blocks: a 2 MiB segment more
    assert a.stats.reserved_bytes == 22 * MIB


def test_best_fit_takes_the_smallest_cached_block_that_fits():
    a = fresh()
    big, mid = a.malloc(30 * MIB), a.malloc(24 * MIB)
    a.free(big), a.free(mid)
    p = a.malloc(22 * MIB)  # 24 MiB is the best fit; 2 MiB left > 1 MiB is split off
    assert p == mid and a.block_size(p) == 22 * MIB
    q = a.malloc(26 * MIB)  # only the 30 MiB block fits
    assert q == big and a.stats.reserved_bytes == 54 * MIB and a.stats.segments == 2


def test_free_merges_with_free_neighbours_back_into_one_block():
    a = fresh()
    x, y = a.malloc(6 * MIB), a.malloc(6 * MIB)  # one 20 MiB segment: [x 6][y 6][free 8]
    assert a.stats.inactive_split_bytes == 8 * MIB
    a.free(x)
    assert a.stats.largest_free_block == 8 * MIB and a.stats.inactive_split_bytes == 14 * MIB
    a.free(y)  # y merges with x before it and the 8 MiB after it (CCA:2354-2361)
    st = a.stats
    assert (st.largest_free_block, st.inactive_split_bytes, st.allocated_bytes) == (20 * MIB, 0, 0)
    assert [len(s["blocks"]) for s in a.snapshot()] == [1]


@pytest.mark.parametrize("sequence, reserved", [
    # max_split_size 100 MiB: a freed 150 MiB block is oversize
    ([("m", 150), ("f", 0), ("m", 120)], 270),  # 150 >= 120 + 20 (CCA:2549-2551): a new 120 MiB segment
    ([("m", 150), ("f", 0), ("m", 140)], 150),  # 150 < 140 + 20: reused whole, not split
    ([("m", 150), ("f", 0), ("m", 50)], 200),  # a request under max_split never gets an oversize block (CCA:2545)
])
def test_max_split_size_keeps_oversize_blocks_whole(sequence, reserved):
    a = fresh("max_split_size_mb:100")
    ptrs = []
    for op, mib in sequence:
        if op == "m":
            ptrs.append(a.malloc(mib * MIB))
        else:
            a.free(ptrs[mib])
    assert a.stats.reserved_bytes == reserved * MIB
    assert a.block_size(ptrs[-1]) == max(sequence[-1][1], 150 if reserved == 150 else 0) * MIB


def test_a_failed_cudamalloc_frees_the_cache_and_retries():
    # capacity 100: a cached 60 MiB segment blocks a 70 MiB cudaMalloc (130 > 100); without
    # max_split_size nothing oversize to free (CCA:2731), so every unsplit cached block is freed
    # (CCA:2772) and the retry succeeds (CCA:1253-1255)
    a = fresh(capacity=100 * MIB)
    a.free(a.malloc(60 * MIB))
    a.malloc(70 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.peak_reserved_bytes, st.num_alloc_retries, st.num_device_free) == (
        70 * MIB, 70 * MIB, 1, 1)


def test_out_of_memory_when_nothing_can_be_freed():
    a = fresh(capacity=100 * MIB)
    a.malloc(60 * MIB)
    with pytest.raises(SimulatedOutOfMemory) as err:
        a.malloc(50 * MIB)
    assert err.value.stats.num_ooms == 1 and "60.00 MiB" not in str(err.value)
    assert "Tried to allocate 0.05 GiB" in str(err.value)


def test_oversize_blocks_are_freed_largest_first_until_enough():
    # max_split 100, capacity 300: cached oversize 120 and 150; a 200 MiB cudaMalloc fails
    # (470 > 300); no single cached block >= 200, so the largest ones go: 150, then 120
    # (270 >= 200) (CCA:2743-2765); the retry is not counted as one (isRetry false, CCA:1251)
    a = fresh("max_split_size_mb:100", capacity=300 * MIB)
    x, y = a.malloc(120 * MIB), a.malloc(150 * MIB)
    a.free(x), a.free(y)
    a.malloc(200 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.segments, st.num_device_free, st.num_alloc_retries) == (200 * MIB, 1, 2, 0)


def test_one_oversize_block_big_enough_is_freed_alone():
    # max_split 100, capacity 300. 250 MiB after a cached 110: cudaMalloc fails (360 > 300);
    # freeing oversize blocks from the largest down releases 110, not enough (False, CCA:2764),
    # so release_cached_blocks and a counted retry follow. Then 200 MiB cannot use the cached
    # 250 (250 >= 200 + 20) and its cudaMalloc fails (450 > 300): lower_bound(200) finds the
    # 250 MiB block and only it is freed (CCA:2766-2768), no retry counted
    a = fresh("max_split_size_mb:100", capacity=300 * MIB)
    a.free(a.malloc(110 * MIB))
    big = a.malloc(250 * MIB)
    assert (a.stats.reserved_bytes, a.stats.num_alloc_retries) == (250 * MIB, 1)
    a.free(big)
    a.malloc(200 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.num_device_free, st.num_alloc_retries) == (200 * MIB, 2, 1)


def test_garbage_collection_frees_blocks_at_least_as_old_as_the_average():
    # fraction 0.5 of 1000 MiB -> 500 MiB allowed; threshold 0.6 -> GC above 300 MiB reserved.
    # get_free_block calls age the cached blocks: 100 MiB (age 3), 150 (age 2), 200 (age 1) when
    # 260 MiB misses with 450 reserved; average age 2 -> 100 and 150 are freed (CCA:2566-2623)
    a = CachingAllocator(AllocatorConfig(garbage_collection_threshold=0.6, memory_fraction=0.5),
                         device_total=1000 * MIB)
    for mib in (100, 150, 200):
        a.free(a.malloc(mib * MIB))
    a.malloc(260 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.peak_reserved_bytes, st.segments, st.num_device_free) == (
        460 * MIB, 460 * MIB, 2, 2)


@pytest.mark.parametrize("config, reserved, peak, retries", [
    # the threshold alone does nothing: GC and its age counter need a memory fraction (CCA:1237-1241)
    (AllocatorConfig(garbage_collection_threshold=0.6), 710, 710, 0),
    # the fraction alone: 450 + 260 > 500 fails, every cached block is freed, the retry fits
    (AllocatorConfig(memory_fraction=0.5), 260, 450, 1),
])
def test_garbage_collection_threshold_needs_a_memory_fraction(config, reserved, peak, retries):
    a = CachingAllocator(config, device_total=1000 * MIB)
    for mib in (100, 150, 200):
        a.free(a.malloc(mib * MIB))
    a.malloc(260 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.peak_reserved_bytes, st.num_alloc_retries) == (reserved * MIB, peak * MIB, retries)


@pytest.mark.parametrize("size, divisions, rounded", [
    (1200, 4, 1280),  # the source's own example (CCA:2000-2005)
    (1024, 4, 1024),  # powers of two stay
    (9000, 4, 10240),  # 8192 + 2048
    (1258291, 4, 1310720),  # 1.2 MiB -> 1.25 MiB
])
def test_roundup_power2_next_division(size, divisions, rounded):
    assert _roundup_power2_next_division(size, divisions) == rounded


@pytest.mark.parametrize("request_bytes, block", [
    (1200, 1536),  # not above 512 x 4 = 2048: plain 512-byte rounding (CCA:2031)
    (9000, 10240),
    (int(1.2 * MIB), int(1.25 * MIB)),
])
def test_roundup_power2_divisions_applies_above_512_bytes_per_division(request_bytes, block):
    a = fresh("roundup_power2_divisions:4")
    assert a.block_size(a.malloc(request_bytes)) == block


def test_roundup_power2_divisions_list_keeps_torch_parsing_quirks():
    # the first interval also fills the ones below it; '>' fills from the last listed interval
    # on, overwriting its value (ACFG parseRoundUpPower2Divisions)
    c = AllocatorConfig.parse("roundup_power2_divisions:[256:1,512:2,>:4]")
    assert c.roundup_power2_divisions == (1,) * 9 + (4,) * 7
    assert c.divisions_for(300 * MIB) == 1 and c.divisions_for(600 * MIB) == 4


def test_expandable_segment_maps_20_mib_pages_and_grows_in_place():
    # 30 MiB maps 2 pages (40 MiB); 15 MiB does not fit the 10 MiB left, so the segment grows by
    # one page right after it and the two merge (CCA:2297-2328): 60 MiB, one segment, no cudaMalloc
    a = fresh("expandable_segments:True")
    a.malloc(30 * MIB)
    assert a.stats.reserved_bytes == 40 * MIB
    a.malloc(15 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.segments, st.expandable_segments) == (60 * MIB, 0, 1)
    b = fresh()
    b.malloc(30 * MIB), b.malloc(15 * MIB)  # default: one segment per request, 2 MiB rounded
    assert b.stats.reserved_bytes == 46 * MIB


@pytest.mark.parametrize("conf, reserved", [("", 202), ("expandable_segments:True", 120)])
def test_growing_batch_n_plus_1_case(conf, reserved):
    # Note [Expandable Segments]: a slightly bigger request after a freed one. Default: a second
    # segment (100 + 102); expandable: the freed 100 MiB grows by one 20 MiB page
    a = fresh(conf)
    a.free(a.malloc(100 * MIB))
    a.malloc(102 * MIB)
    assert a.stats.reserved_bytes == reserved * MIB


def test_small_pool_expandable_pages_are_2_mib():
    a = fresh("expandable_segments:True")
    a.malloc(300 * KIB)
    assert a.stats.reserved_bytes == 2 * MIB
    a.malloc(1 * MIB), a.malloc(1 * MIB)  # 300 KiB + 2 MiB need a second 2 MiB page
    assert a.stats.reserved_bytes == 4 * MIB


def test_expandable_oom_unmaps_free_pages_and_retries():
    # capacity 60. A=30 maps [0,40); B=5 takes 5 of the 10 MiB left; A is freed. 40 MiB must
    # grow from the 5 MiB tail by 2 pages (80 > 60): mapping fails, release_cached_blocks unmaps
    # the whole free page [0,20) inside A's 30 MiB (CCA:2850-2914), and the retry maps 2 pages:
    # 20 + 40 = 60 MiB
    a = fresh("expandable_segments:True", capacity=60 * MIB)
    x = a.malloc(30 * MIB)
    a.malloc(5 * MIB)
    a.free(x)
    a.malloc(40 * MIB)
    st = a.stats
    assert (st.reserved_bytes, st.peak_reserved_bytes, st.num_alloc_retries, st.num_device_free) == (
        60 * MIB, 60 * MIB, 1, 1)


def test_zero_bytes_allocate_nothing_and_bad_pointers_are_refused():
    a = fresh()
    assert a.malloc(0) == 0 and a.stats.reserved_bytes == 0
    a.free(0)
    with pytest.raises(ValueError, match="invalid device pointer"):
        a.free(12345)


def test_empty_cache_returns_unsplit_segments_only():
    a = fresh()
    keep = a.malloc(4 * MIB)  # in a 20 MiB segment that stays split
    a.free(a.malloc(30 * MIB))
    a.empty_cache()
    assert a.stats.reserved_bytes == 20 * MIB and a.block_size(keep) == 4 * MIB


@pytest.mark.parametrize("text, field, value", [
    ("max_split_size_mb:512", "max_split_size", 512 * MIB),
    ("expandable_segments:True", "expandable_segments", True),
    ("garbage_collection_threshold:0.8,max_split_size_mb:128", "garbage_collection_threshold", 0.8),
    ("backend:native, expandable_segments:False", "expandable_segments", False),
    ("max_non_split_rounding_mb:64", "max_non_split_rounding", 64 * MIB),
])
def test_alloc_conf_parses_like_torch(text, field, value):
    assert getattr(AllocatorConfig.parse(text), field) == value


@pytest.mark.parametrize("text", ["max_split_size_mb:10", "garbage_collection_threshold:1.5",
                                  "expandable_segments:yes", "roundup_power2_divisions:3", "nonsense:1",
                                  "backend:cudaMallocAsync"])
def test_alloc_conf_refuses_what_torch_refuses(text):
    with pytest.raises(AllocatorConfigError):
        AllocatorConfig.parse(text)
