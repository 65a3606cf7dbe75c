"""A faithful model of PyTorch's ``DeviceCachingAllocator`` for one device and one stream.

``CachingAllocator.malloc(nbytes) -> ptr`` and ``free(ptr)`` follow the C++ allocator rule by
rule; ``stats`` reports what ``torch.cuda.memory_stats`` would (reserved, allocated, segments,
their peaks, retries, OOMs) and ``snapshot()`` what ``torch.cuda.memory._snapshot()`` would.
Every rule cites the line of ``c10/cuda/CUDACachingAllocator.cpp`` it comes from (``CCA:n``,
see ``advisor.allocator`` for the version).

What is modelled:
  malloc      round_size (CCA:2026, power-of-two divisions CCA:2006), pool choice (CCA:2445),
              segment size (CCA:2488), best-fit search with its oversize limits (CCA:2498),
              garbage collection (CCA:2566), cudaMalloc (CCA:2630), freeing oversize cached
              blocks (CCA:2728) then every unsplit cached block (CCA:2772) and retrying when
              cudaMalloc fails (CCA:1247-1255), the split rule (CCA:2478) and the split itself
              (CCA:1401-1419), the OOM error (CCA:1258-1376).
  free        the block returns to its pool and merges with free neighbours (CCA:2331, 2412).
  expandable  ``expandable_segments:True``: one segment per pool that grows by pages of 2 MiB
              (small pool) or 20 MiB (large pool) (CCA:2178 find_expandable_block, 2234
              map_block, 2297 try_allocate_expandable_block, 2850 unmap_block).

What is not (one stream, no graphs): cross-stream uses and their events (``record_stream``),
CUDA graph private pools, IPC, the free-memory callbacks (CCA:1232; none frees memory in a
training loop), ``cudaMallocAsync``.

Addresses: cudaMalloc's real virtual addresses are not observable offline; new segments get
increasing addresses (2 MiB aligned). Addresses only break ties between free blocks of equal size
(BlockComparatorSize, CCA:746: size, then pointer), so a different address order can change which
of two equal blocks is reused, never the sizes involved.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass

from advisor.allocator.config import (
    K_LARGE_BUFFER,
    K_MIN_BLOCK_SIZE,
    K_MIN_LARGE_ALLOC,
    K_ROUND_LARGE,
    K_SMALL_BUFFER,
    K_SMALL_SIZE,
    SIZE_MAX,
    AllocatorConfig,
)
from advisor.errors import AdvisorError

_SHIFT = 48  # free-list key = size << 48 | address: (size, address) order as one int
_MASK = (1 << _SHIFT) - 1
_VA_START = 1 << 40  # first simulated virtual address (any 2 MiB aligned value would do)
_VA_ALIGN = 2 * 1024 * 1024


class SimulatedOutOfMemory(AdvisorError, MemoryError):
    """The simulated device ran out of memory where torch would raise OutOfMemoryError."""

    def __init__(self, message: str, requested: int, stats: "AllocatorStats"):
        self.requested = requested
        self.stats = stats
        super().__init__(message)


@dataclass(frozen=True)
class AllocatorStats:
    """What ``torch.cuda.memory_stats()`` reports for one device (the "all" pools aggregate)."""

    reserved_bytes: int
    peak_reserved_bytes: int  # torch.cuda.max_memory_reserved
    allocated_bytes: int  # sum of block sizes handed out (rounded sizes)
    peak_allocated_bytes: int  # torch.cuda.max_memory_allocated
    requested_bytes: int  # sum of the sizes asked for
    peak_requested_bytes: int
    segments: int  # cudaMalloc'd segments alive ("segment.all.current")
    peak_segments: int
    expandable_segments: int
    inactive_split_bytes: int  # free bytes inside segments that also hold live blocks
    largest_free_block: int  # the largest cached free block (torch cacheInfo, CCA:1601)
    free_cached_bytes: int  # reserved - allocated
    num_alloc_retries: int
    num_ooms: int
    num_device_alloc: int  # cudaMalloc / cuMemMap calls
    num_device_free: int  # cudaFree / cuMemUnmap calls
    small_reserved_bytes: int
    large_reserved_bytes: int


class _Block:
    __slots__ = ("addr", "size", "prev", "next", "allocated", "small", "seg", "mapped", "requested", "gc_base")

    def __init__(self, addr: int, size: int, small: bool, seg, mapped: bool = True):
        self.addr = addr
        self.size = size
        self.prev: _Block | None = None
        self.next: _Block | None = None
        self.allocated = False
        self.small = small
        self.seg = seg  # an _Expandable, or None for a cudaMalloc'd segment
        self.mapped = mapped
        self.requested = 0
        self.gc_base = 0


class _Pool:
    """BlockPool (CCA:189): free blocks ordered by (size, address); unmapped ones by address."""

    __slots__ = ("small", "keys", "unmapped", "gc_calls")

    def __init__(self, small: bool):
        self.small = small
        self.keys: list[int] = []  # size << 48 | addr, sorted (the std::set's order)
        self.unmapped: list[int] = []  # addresses of unmapped expandable blocks, sorted
        self.gc_calls = 0  # get_free_blocks_call_count


class _Expandable:
    """ExpandableSegment (CCA:386-660): a reserved address range mapped page by page."""

    __slots__ = ("base", "page", "pages", "mapped")

    def __init__(self, base: int, page: int, pages: int):
        self.base, self.page, self.pages = base, page, pages
        self.mapped: set[int] = set()

    def size(self) -> int:
        return self.pages * self.page


class CachingAllocator:
    """One device's caching allocator.

    ``capacity``: bytes the allocator can obtain from the driver (device memory minus the CUDA
    context and other processes); None = never fails. ``device_total``: total device memory,
    which sizes the expandable segments' address space (CCA:2214-2217) and the memory fraction.
    ``record``: keep the allocator trace (``_snapshot()['device_traces']`` entries)."""

    def __init__(self, config: AllocatorConfig | None = None, *, capacity: int | None = None,
                 device_total: int | None = None, record: bool = False):
        self.config = config or AllocatorConfig()
        self.capacity = capacity
        self.device_total = device_total if device_total is not None else (capacity or 80 * 2**30)
        c = self.config
        self._max_split = c.max_split_size
        self._non_split_round = c.max_non_split_rounding
        self._large_buffer = c.large_segment_size
        self._roundup = any(c.roundup_power2_divisions)
        self._expandable = c.expandable_segments
        # CCA:1569-1576: the fraction caps what alloc_block may reserve; garbage collection and
        # the reuse-age counter only run with a fraction set (CCA:1237-1241, 2501-2505)
        self._allowed = (int(c.memory_fraction * self.device_total)
                         if c.memory_fraction is not None else None)
        self._gc = self._allowed is not None and c.garbage_collection_threshold > 0.0
        self._small = _Pool(True)
        self._large = _Pool(False)
        self._blocks: dict[int, _Block] = {}  # address -> block (allocated, free or unmapped)
        self._next_va = _VA_START
        self._segments_expandable: list[_Expandable] = []
        self.record = record
        self.trace: list[dict] = []
        # statistics (DeviceStats)
        self.total_allocated_memory = 0  # CCA:1083 bytes obtained from the driver
        self.reserved = self.peak_reserved = 0
        self.reserved_small = 0
        self.allocated = self.peak_allocated = 0
        self.requested = self.peak_requested = 0
        self.segments = self.peak_segments = 0
        self.inactive_split = 0
        self.num_alloc_retries = self.num_ooms = 0
        self.num_device_alloc = self.num_device_free = 0

    # ------------------------------------------------------------------ public API
    def malloc(self, orig_size: int) -> int:
        """Allocate ``orig_size`` bytes; returns the block's address (CCA:1198 malloc).

        A size of 0 allocates nothing and returns 0 (CCA:3436: ``allocate`` only calls malloc
        for size != 0)."""
        if orig_size <= 0:
            return 0
        size = self._round_size(orig_size)  # CCA:1221
        pool = self._small if size <= K_SMALL_SIZE else self._large  # CCA:1222 -> CCA:2445-2476
        alloc_size = self._allocation_size(size)  # CCA:1223
        block = self._get_free_block(pool, size)  # CCA:1228-1231
        if block is None:
            if self._gc:  # CCA:1237-1241
                self._garbage_collect()
            block = (self._alloc_block(pool, size, alloc_size, False)  # CCA:1247
                     # CCA:1250-1251: free oversize cached blocks, retry
                     or (self._release_available_cached_blocks(pool, size)
                         and self._alloc_block(pool, size, alloc_size, False))
                     # CCA:1253-1255: free every unsplit cached block, retry
                     or (self._release_cached_blocks()
                         and self._alloc_block(pool, size, alloc_size, True)))
            if not block:
                self._oom(size, alloc_size)
        return self._alloc_found_block(block, pool, size, orig_size, self._should_split(block, size))

    def free(self, ptr: int) -> None:
        """Return a block to its pool (CCA:1476 free -> CCA:2331 free_block)."""
        if not ptr:
            return  # CCA:3144 NativeCachingAllocator::free ignores nullptr
        block = self._blocks.get(ptr)
        if block is None or not block.allocated:
            raise ValueError(f"invalid device pointer: {ptr:#x}")
        block.allocated = False
        self.allocated -= block.size  # CCA:1488-1491
        self.requested -= block.requested
        if self.record:
            self.trace.append({"action": "free_requested", "addr": block.addr, "size": block.requested, "stream": 0})
            self.trace.append({"action": "free_completed", "addr": block.addr, "size": block.requested, "stream": 0})
        self._free_block(block)

    def replay(self, events, sizes, ptrs: dict[int, int]) -> None:
        """Run an event log: ``e >= 0`` allocates ``sizes[e]`` bytes for storage e, ``~e`` frees
        it; ``ptrs`` maps live storages to their blocks (kept across calls).

        The same rules as ``malloc``/``free``, with the common case (a cached block fits; free
        merges) inlined for speed; a cache miss, expandable segments, garbage collection and
        power-of-two rounding go through the general methods. tests/test_allocator_replay.py
        checks that both paths give identical states."""
        if self._expandable or self._gc or self._roundup or self.record:
            malloc, free = self.malloc, self.free
            for e in events:
                if e >= 0:
                    ptrs[e] = malloc(sizes[e])
                else:
                    free(ptrs.pop(~e))
            return
        blocks = self._blocks
        small_pool, large_pool = self._small, self._large
        small_keys, large_keys = small_pool.keys, large_pool.keys
        max_split, non_split = self._max_split, self._non_split_round
        shift, mask = _SHIFT, _MASK
        alloc = self.allocated
        peak_alloc = self.peak_allocated
        req = self.requested
        peak_req = self.peak_requested
        isplit = self.inactive_split
        Block = _Block
        for e in events:
            if e >= 0:
                orig = sizes[e]
                if orig <= 0:
                    ptrs[e] = 0
                    continue
                size = K_MIN_BLOCK_SIZE if orig < K_MIN_BLOCK_SIZE else (orig + 511) & ~511  # CCA:2026-2037
                small = size <= K_SMALL_SIZE  # CCA:2445-2476
                keys = small_keys if small else large_keys
                i = bisect_left(keys, size << shift)  # CCA:2507
                block = None
                if i < len(keys):
                    key = keys[i]
                    bsize = key >> shift
                    if not (size < max_split <= bsize) and not (size >= max_split and bsize >= size + non_split):
                        del keys[i]  # CCA:2544-2553
                        block = blocks[key & mask]
                if block is None:  # cache miss: the general path (CCA:1234-1256)
                    self.allocated, self.peak_allocated = alloc, peak_alloc
                    self.requested, self.peak_requested = req, peak_req
                    self.inactive_split = isplit
                    ptrs[e] = self.malloc(orig)
                    alloc, peak_alloc = self.allocated, self.peak_allocated
                    req, peak_req = self.requested, self.peak_requested
                    isplit = self.inactive_split
                    continue
                remaining = bsize - size
                if (remaining >= K_MIN_BLOCK_SIZE) if small else (size < max_split and remaining > K_SMALL_SIZE):
                    # CCA:2478-2486 should_split, CCA:1401-1430 split
                    was_split = block.prev is not None or block.next is not None
                    addr = block.addr + size
                    rem = Block(addr, remaining, small, None, True)
                    rem.prev = block
                    nxt = rem.next = block.next
                    if nxt is not None:
                        nxt.prev = rem
                    block.next = rem
                    block.size = size
                    blocks[addr] = rem
                    rem.gc_base = 0
                    insort(keys, (remaining << shift) | addr)
                    isplit += -size if was_split else remaining
                elif block.prev is not None or block.next is not None:
                    isplit -= bsize
                block.allocated = True
                block.requested = orig
                alloc += block.size
                if alloc > peak_alloc:
                    peak_alloc = alloc
                req += orig
                if req > peak_req:
                    peak_req = req
                ptrs[e] = block.addr
            else:
                ptr = ptrs.pop(~e)
                if not ptr:
                    continue
                block = blocks[ptr]
                block.allocated = False
                bsize = block.size
                alloc -= bsize  # CCA:1488-1492
                req -= block.requested
                keys = small_keys if block.small else large_keys
                prev, nxt = block.prev, block.next
                was_split = prev is not None or nxt is not None
                subsumed = 0
                if prev is not None and not prev.allocated:  # CCA:2354-2361 -> CCA:2412 [prev block]
                    pkey = (prev.size << shift) | prev.addr
                    del keys[bisect_left(keys, pkey)]
                    del blocks[prev.addr]
                    del blocks[ptr]
                    ptr = block.addr = prev.addr
                    blocks[ptr] = block
                    prev = block.prev = prev.prev
                    if prev is not None:
                        prev.next = block
                    subsumed = pkey >> shift
                    block.size = bsize = bsize + subsumed
                if nxt is not None and not nxt.allocated:  # [block next]
                    nkey = (nxt.size << shift) | nxt.addr
                    del keys[bisect_left(keys, nkey)]
                    del blocks[nxt.addr]
                    nxt = block.next = nxt.next
                    if nxt is not None:
                        nxt.prev = block
                    nsize = nkey >> shift
                    subsumed += nsize
                    block.size = bsize = bsize + nsize
                insort(keys, (bsize << shift) | ptr)  # CCA:2367
                if was_split:
                    isplit += (bsize if (prev is not None or nxt is not None) else 0) - subsumed
        self.allocated, self.peak_allocated = alloc, peak_alloc
        self.requested, self.peak_requested = req, peak_req
        self.inactive_split = isplit

    def empty_cache(self) -> None:
        """``torch.cuda.empty_cache()`` (CCA:1580 emptyCache -> release_cached_blocks)."""
        self._release_cached_blocks()

    @property
    def stats(self) -> AllocatorStats:
        largest = 0
        for pool in (self._small, self._large):
            if pool.keys:
                largest = max(largest, pool.keys[-1] >> _SHIFT)
        return AllocatorStats(
            reserved_bytes=self.reserved, peak_reserved_bytes=self.peak_reserved,
            allocated_bytes=self.allocated, peak_allocated_bytes=self.peak_allocated,
            requested_bytes=self.requested, peak_requested_bytes=self.peak_requested,
            segments=self.segments, peak_segments=self.peak_segments,
            expandable_segments=len(self._segments_expandable),
            inactive_split_bytes=self.inactive_split, largest_free_block=largest,
            free_cached_bytes=self.reserved - self.allocated,
            num_alloc_retries=self.num_alloc_retries, num_ooms=self.num_ooms,
            num_device_alloc=self.num_device_alloc, num_device_free=self.num_device_free,
            small_reserved_bytes=self.reserved_small, large_reserved_bytes=self.reserved - self.reserved_small)

    def block_size(self, ptr: int) -> int:
        """The size of the block behind ``ptr`` (the rounded size torch counts as allocated)."""
        return self._blocks[ptr].size

    # ------------------------------------------------------------------ sizes
    def _round_size(self, size: int) -> int:
        """CCA:2026-2037 round_size."""
        if size < K_MIN_BLOCK_SIZE:
            return K_MIN_BLOCK_SIZE
        if self._roundup:
            divisions = self.config.divisions_for(size)
            if divisions > 1 and size > K_MIN_BLOCK_SIZE * divisions:
                return _roundup_power2_next_division(size, divisions)
        return K_MIN_BLOCK_SIZE * ((size + K_MIN_BLOCK_SIZE - 1) // K_MIN_BLOCK_SIZE)

    def _allocation_size(self, size: int) -> int:
        """CCA:2488-2496 get_allocation_size: the segment a cache miss asks cudaMalloc for."""
        if size <= K_SMALL_SIZE:
            return K_SMALL_BUFFER
        if size < K_MIN_LARGE_ALLOC:
            return self._large_buffer
        return K_ROUND_LARGE * ((size + K_ROUND_LARGE - 1) // K_ROUND_LARGE)

    def _should_split(self, block: _Block, size: int) -> bool:
        """CCA:2478-2486: split if the remainder is worth keeping: >= 512 B in the small pool or
        an expandable segment; > 1 MiB (and the request under max_split_size) in the large."""
        remaining = block.size - size
        if block.small or self._expandable:
            return remaining >= K_MIN_BLOCK_SIZE
        return size < self._max_split and remaining > K_SMALL_SIZE

    # ------------------------------------------------------------------ free lists
    def _insert(self, pool: _Pool, block: _Block) -> None:
        """BlockPool::insert_into_blocks (CCA:293-297): the age counter restarts on insert."""
        block.gc_base = pool.gc_calls
        insort(pool.keys, (block.size << _SHIFT) | block.addr)

    @staticmethod
    def _erase(pool: _Pool, block: _Block) -> None:
        keys = pool.keys
        key = (block.size << _SHIFT) | block.addr
        i = bisect_left(keys, key)
        if i < len(keys) and keys[i] == key:
            del keys[i]

    def _get_free_block(self, pool: _Pool, size: int) -> _Block | None:
        """CCA:2498-2556 get_free_block: the smallest cached block >= size (best fit)."""
        if self._gc:  # CCA:2501-2505
            pool.gc_calls += 1
        keys = pool.keys
        i = bisect_left(keys, size << _SHIFT)  # CCA:2506 lower_bound(size, nullptr)
        if i == len(keys):
            return None  # CCA:2507-2508
        block = self._blocks[keys[i] & _MASK]
        if block.seg is not None:  # CCA:2510-2540
            if self._expandable:
                # CCA:2512-2526: measure an expandable block by what it can grow to, and move
                # on to later (bigger) candidates while they can grow to less
                def grow(b: _Block) -> int:
                    return b.size + (b.next.size if b.next is not None and not b.next.mapped else 0)
                j = i + 1
                while block.seg is not None and j < len(keys):
                    nxt = self._blocks[keys[j] & _MASK]
                    if grow(nxt) >= grow(block):
                        break
                    i, block = j, nxt
                    j += 1
            else:
                # CCA:2527-2539: expandable segments switched off later: skip their blocks
                i += 1
                while i < len(keys) and self._blocks[keys[i] & _MASK].seg is not None:
                    i += 1
                if i == len(keys):
                    return None
                block = self._blocks[keys[i] & _MASK]
        bsize = block.size
        max_split = self._max_split
        if size < max_split and bsize >= max_split:
            return None  # CCA:2544-2547 do not return an oversized block for a smaller request
        if size >= max_split and bsize >= size + self._non_split_round:
            return None  # CCA:2548-2551 an oversized block may serve only a request close to it
        del keys[i]  # CCA:2553
        return block

    # ------------------------------------------------------------------ alloc / free
    def _alloc_found_block(self, block: _Block, pool: _Pool, size: int, orig_size: int, split: bool) -> int:
        """CCA:1384-1473 alloc_found_block: split off the remainder if asked, hand out the block."""
        if split:  # CCA:1401-1427
            already_split = block.prev is not None or block.next is not None
            rem = _Block(block.addr + size, block.size - size, block.small, block.seg, True)
            rem.prev = block
            rem.next = block.next
            if block.next is not None:
                block.next.prev = rem
            block.next = rem
            block.size = size
            self._blocks[rem.addr] = rem
            self._insert(pool, rem)
            if block.seg is None:  # inactive_split_bytes is not tracked for expandable blocks
                self.inactive_split += (-size if already_split else rem.size)
        elif block.seg is None and (block.prev is not None or block.next is not None):
            self.inactive_split -= block.size  # CCA:1429-1435
        block.allocated = True
        block.requested = orig_size
        self.allocated += block.size  # CCA:1452-1458: allocated counts the whole block
        if self.allocated > self.peak_allocated:
            self.peak_allocated = self.allocated
        self.requested += orig_size
        if self.requested > self.peak_requested:
            self.peak_requested = self.requested
        if self.record:
            self.trace.append({"action": "alloc", "addr": block.addr, "size": orig_size, "stream": 0})
        return block.addr

    def _free_block(self, block: _Block) -> None:
        """CCA:2331-2408 free_block: merge with the previous then the next block, re-insert."""
        pool = self._small if block.small else self._large
        seg_plain = block.seg is None
        was_split = block.prev is not None or block.next is not None
        subsumed = self._try_merge(block, block.prev, pool)
        subsumed += self._try_merge(block, block.next, pool)
        self._insert(pool, block)
        if seg_plain and was_split:  # CCA:2389-2405 inactive_split bookkeeping
            is_split = block.prev is not None or block.next is not None
            self.inactive_split += (block.size if is_split else 0) - subsumed

    def _try_merge(self, dst: _Block, src: _Block | None, pool: _Pool) -> int:
        """CCA:2412-2443 try_merge_blocks: absorb a free neighbour with the same mapped state."""
        if src is None or src.allocated or dst.mapped != src.mapped:
            return 0
        if src.mapped:
            self._erase(pool, src)
        else:
            pool.unmapped.pop(bisect_left(pool.unmapped, src.addr))
        del self._blocks[src.addr]
        if dst.prev is src:  # [src dst]
            del self._blocks[dst.addr]
            dst.addr = src.addr
            self._blocks[dst.addr] = dst
            dst.prev = src.prev
            if dst.prev is not None:
                dst.prev.next = dst
        else:  # [dst src]
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        dst.size += src.size
        return src.size

    # ------------------------------------------------------------------ segments
    def _alloc_block(self, pool: _Pool, size: int, alloc_size: int, retry: bool) -> _Block | None:
        """CCA:2630-2724 alloc_block: a new segment from the driver (or expandable pages)."""
        if retry:
            self.num_alloc_retries += 1  # CCA:2640-2642
        if self._allowed is not None and self.total_allocated_memory + alloc_size > self._allowed:
            return None  # CCA:2644-2647 per-process memory fraction
        if self._expandable:  # CCA:2648-2660 (maps pages for the request, not alloc_size)
            return self._try_allocate_expandable_block(pool, size)
        if self.capacity is not None and self.total_allocated_memory + alloc_size > self.capacity:
            return None  # cudaMalloc -> cudaErrorMemoryAllocation (CCA:2674-2690)
        addr = self._next_va
        self._next_va += -(-alloc_size // _VA_ALIGN) * _VA_ALIGN
        block = _Block(addr, alloc_size, pool.small, None, True)
        self._blocks[addr] = block
        self.total_allocated_memory += alloc_size  # CCA:2698
        self._add_reserved(alloc_size, pool.small)
        self.segments += 1  # CCA:2700-2703
        if self.segments > self.peak_segments:
            self.peak_segments = self.segments
        self.num_device_alloc += 1
        if self.record:
            self.trace.append({"action": "segment_alloc", "addr": addr, "size": alloc_size, "stream": 0})
        return block

    def _add_reserved(self, nbytes: int, small: bool) -> None:
        self.reserved += nbytes
        if small:
            self.reserved_small += nbytes
        if self.reserved > self.peak_reserved:
            self.peak_reserved = self.reserved

    def _release_block(self, block: _Block, pool: _Pool) -> None:
        """CCA:2815-2848 release_block: cudaFree a whole cached segment."""
        if block.seg is not None:  # CCA:2818 TORCH_INTERNAL_ASSERT(!block->expandable_segment_)
            raise AssertionError("torch would assert here: release_block on an expandable segment (CCA:2818)")
        self.num_device_free += 1
        self.total_allocated_memory -= block.size
        self.reserved -= block.size
        if block.small:
            self.reserved_small -= block.size
        self.segments -= 1
        self._erase(pool, block)
        del self._blocks[block.addr]
        if self.record:
            self.trace.append({"action": "segment_free", "addr": block.addr, "size": block.size, "stream": 0})

    def _release_available_cached_blocks(self, pool: _Pool, size: int) -> bool:
        """CCA:2728-2770: with max_split_size set, cudaFree oversize cached blocks: the smallest
        one big enough, else the largest ones until their sizes add up to the request."""
        max_split = self._max_split
        if max_split == SIZE_MAX:
            return False
        key_size = max(size, max_split)
        keys = pool.keys
        i = bisect_left(keys, key_size << _SHIFT)
        if i == len(keys):
            if i == 0:
                return False
            released = 0
            i -= 1
            while released < key_size and (keys[i] >> _SHIFT) >= max_split:
                block = self._blocks[keys[i] & _MASK]
                released += block.size
                self._release_block(block, pool)
                if i == 0:
                    break
                i -= 1
            return released >= key_size
        self._release_block(self._blocks[keys[i] & _MASK], pool)
        return True

    def _release_cached_blocks(self) -> bool:
        """CCA:2772-2800 release_cached_blocks: cudaFree every unsplit cached block (large pool
        first), unmap free pages of expandable segments."""
        for pool in (self._large, self._small):
            to_unmap = []
            for key in list(pool.keys):  # CCA:2916-2940 release_blocks, in (size, address) order
                block = self._blocks[key & _MASK]
                if block.seg is not None:
                    to_unmap.append(block)
                elif block.prev is None and block.next is None:
                    self._release_block(block, pool)
            for block in to_unmap:
                self._unmap_block(block, pool)
                if block.prev is None and block.next is None and not block.mapped:
                    self._release_expandable_segment(block, pool)
        return True

    def _garbage_collect(self) -> None:
        """CCA:2566-2623 garbage_collect_cached_blocks: above threshold x allowed memory, free
        unsplit large cached blocks whose reuse age is at least the average, until enough."""
        threshold = int(self.config.garbage_collection_threshold * self._allowed)
        if self.total_allocated_memory <= threshold:
            return
        target = self.total_allocated_memory - threshold
        pool = self._large
        total_age, count = 0, 0
        for key in pool.keys:
            b = self._blocks[key & _MASK]
            if b.prev is None and b.next is None:
                total_age += pool.gc_calls - b.gc_base
                count += 1
        if count == 0:
            return
        reclaimed, freed = 0, True
        while reclaimed < target and freed and count > 0:
            age_threshold = total_age / count
            freed = False
            for key in list(pool.keys):
                b = self._blocks.get(key & _MASK)
                if b is None or b.allocated or b.prev is not None or b.next is not None:
                    continue
                age = pool.gc_calls - b.gc_base
                if age >= age_threshold:
                    freed = True
                    reclaimed += b.size
                    total_age -= age
                    count -= 1
                    self._release_block(b, pool)

    def _oom(self, size: int, alloc_size: int) -> None:
        """CCA:1258-1376: count the OOM and raise with torch's numbers."""
        self.num_ooms += 1
        cap = self.capacity if self.capacity is not None else self._allowed
        free_dev = None if cap is None else max(0, cap - self.total_allocated_memory)
        if self.record:
            self.trace.append({"action": "oom", "addr": 0, "size": size, "stream": 0,
                               "device_free": free_dev or 0})
        gib = 2**30
        msg = (f"CUDA out of memory (simulated). Tried to allocate {alloc_size / gib:.2f} GiB; "
               + (f"{free_dev / gib:.2f} GiB free; " if free_dev is not None else "")
               + f"{self.allocated / gib:.2f} GiB allocated by PyTorch and "
               f"{(self.reserved - self.allocated) / gib:.2f} GiB reserved but unallocated.")
        raise SimulatedOutOfMemory(msg, alloc_size, self.stats)

    # ------------------------------------------------------------------ expandable segments
    def _find_expandable_block(self, pool: _Pool, size: int) -> _Block:
        """CCA:2178-2232: the lowest address from which free and unmapped blocks add up to
        ``size``; otherwise a new segment spanning 1 1/8 of the device's memory."""
        def allocatable(b: _Block | None) -> bool:
            return b is not None and not b.allocated

        for addr in pool.unmapped:
            c = self._blocks[addr]
            if allocatable(c.prev):
                c = c.prev
            nbytes, b = 0, c
            while nbytes < size and allocatable(b):
                nbytes += b.size
                b = b.next
            if nbytes >= size:
                return c
        page = K_SMALL_BUFFER if pool.small else self._large_buffer  # CCA:2211
        space = self.device_total + self.device_total // 8  # CCA:2214-2217
        pages = -(-space // page)
        seg = _Expandable(self._next_va, page, pages)
        self._next_va += -(-seg.size() // _VA_ALIGN) * _VA_ALIGN
        self._segments_expandable.append(seg)
        block = _Block(seg.base, seg.size(), pool.small, seg, mapped=False)
        self._blocks[block.addr] = block
        insort(pool.unmapped, block.addr)
        return block

    def _map_block(self, block: _Block, pool: _Pool, size: int) -> bool:
        """CCA:2234-2295 map_block: map whole pages covering ``size`` from the block's start."""
        seg = block.seg
        begin = (block.addr - seg.base) // seg.page
        end = -(-(block.addr + size - seg.base) // seg.page)
        mapped = (end - begin) * seg.page
        if self.capacity is not None and self.total_allocated_memory + mapped > self.capacity:
            return False  # cuMemCreate -> CUDA_ERROR_OUT_OF_MEMORY (CCA:404-413)
        seg.mapped.update(range(begin, end))
        pool.unmapped.pop(bisect_left(pool.unmapped, block.addr))
        block.mapped = True
        if mapped < block.size:  # CCA:2254-2266
            rem = _Block(block.addr + mapped, block.size - mapped, pool.small, seg, mapped=False)
            rem.prev, rem.next = block, block.next
            if block.next is not None:
                block.next.prev = rem
            block.next = rem
            block.size = mapped
            self._blocks[rem.addr] = rem
            insort(pool.unmapped, rem.addr)
        self._try_merge(block, block.prev, pool)  # CCA:2268-2269
        self._try_merge(block, block.next, pool)
        self._insert(pool, block)
        self.total_allocated_memory += mapped
        self._add_reserved(mapped, pool.small)
        self.num_device_alloc += 1
        if self.record:
            self.trace.append({"action": "segment_map", "addr": seg.base + begin * seg.page, "size": mapped, "stream": 0})
        return True

    def _try_allocate_expandable_block(self, pool: _Pool, size: int) -> _Block | None:
        """CCA:2297-2328: map pages until the candidate covers ``size``."""
        candidate = self._find_expandable_block(pool, size)
        if not candidate.mapped and not self._map_block(candidate, pool, min(candidate.size, size)):
            return None
        while candidate.size < size:
            nxt = candidate.next
            if not self._map_block(nxt, pool, min(size - candidate.size, nxt.size)):
                return None
            candidate = nxt  # map_block merged the candidate into it
        self._erase(pool, candidate)
        return candidate

    def _unmap_block(self, block: _Block, pool: _Pool) -> None:
        """CCA:2850-2914 unmap_block: give back the whole free pages inside a free block."""
        seg = block.seg
        begin = -(-(block.addr - seg.base) // seg.page)
        end = (block.addr + block.size - seg.base) // seg.page
        if begin >= end:
            return
        self._erase(pool, block)
        lo, hi = seg.base + begin * seg.page, seg.base + end * seg.page
        before = lo - block.addr
        if before > 0:  # CCA:2862-2870
            bf = _Block(block.addr, before, pool.small, seg, True)
            bf.prev, bf.next = block.prev, block
            if block.prev is not None:
                block.prev.next = bf
            block.prev = bf
            del self._blocks[block.addr]
            self._blocks[bf.addr] = bf
            self._insert(pool, bf)
        after = block.size - before - (hi - lo)
        if after > 0:  # CCA:2872-2883
            af = _Block(hi, after, pool.small, seg, True)
            af.prev, af.next = block, block.next
            if block.next is not None:
                block.next.prev = af
            block.next = af
            self._blocks[af.addr] = af
            self._insert(pool, af)
        block.addr, block.size, block.mapped = lo, hi - lo, False
        self._blocks[lo] = block
        self._try_merge(block, block.prev, pool)
        self._try_merge(block, block.next, pool)
        insort(pool.unmapped, block.addr)
        seg.mapped.difference_update(range(begin, end))
        self.total_allocated_memory -= hi - lo
        self.reserved -= hi - lo
        if pool.small:
            self.reserved_small -= hi - lo
        self.num_device_free += 1
        if self.record:
            self.trace.append({"action": "segment_unmap", "addr": lo, "size": hi - lo, "stream": 0})

    def _release_expandable_segment(self, block: _Block, pool: _Pool) -> None:
        """CCA:2802-2813: an expandable segment with nothing mapped is given back."""
        pool.unmapped.pop(bisect_left(pool.unmapped, block.addr))
        del self._blocks[block.addr]
        self._segments_expandable.remove(block.seg)

    # ------------------------------------------------------------------ introspection
    def snapshot(self) -> list[dict]:
        """The segments as ``torch.cuda.memory._snapshot()['segments']`` lists them (CCA:1915-1980):
        one entry per cudaMalloc'd segment or mapped range of an expandable segment, with its
        blocks in address order."""
        heads = []
        for b in self._blocks.values():
            if not b.mapped:
                continue
            if b.prev is None or not b.prev.mapped:
                heads.append(b)
        out = []
        for head in sorted(heads, key=lambda b: b.addr):
            blocks, b = [], head
            total = alloc = req = 0
            while b is not None and b.mapped:
                blocks.append({"address": b.addr, "size": b.size,
                               "requested_size": b.requested if b.allocated else 0,
                               "state": "active_allocated" if b.allocated else "inactive", "frames": []})
                total += b.size
                if b.allocated:
                    alloc += b.size
                    req += b.requested
                b = b.next
            out.append({"device": 0, "address": head.addr, "total_size": total, "allocated_size": alloc,
                        "active_size": alloc, "requested_size": req, "stream": 0,
                        "segment_type": "small" if head.small else "large",
                        "is_expandable": head.seg is not None, "blocks": blocks})
        return out


def _roundup_power2_next_division(size: int, divisions: int) -> int:
    """CCA:2006-2024 roundup_power2_next_division: e.g. 1200 with 4 divisions -> 1280."""
    if size & (size - 1) == 0:
        return size
    floor = 1 << (size.bit_length() - 1)
    step = floor >> (divisions.bit_length() - 1)
    if step == 0:
        return floor << 1
    rounded = size & ~(step - 1)
    return size if rounded == size else rounded + step
