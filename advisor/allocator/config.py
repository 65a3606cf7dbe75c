"""The caching allocator's settings (``PYTORCH_CUDA_ALLOC_CONF``) and its fixed constants.

Sources (see ``advisor.allocator`` for the citation convention):

* constants: CCA:118-125 (``kMinBlockSize`` ... ``kRoundLarge``), CCA:48 (``kLargeBuffer``); the
  same values are in torch 2.13.0's installed header ``c10/core/AllocatorConfig.h`` lines 17-25.
* defaults and parsing: ACFG ``AllocatorConfig::AllocatorConfig`` (max_split_size = SIZE_MAX,
  max_non_split_rounding_size = kLargeBuffer, garbage_collection_threshold = 0, expandable
  segments off, 16 roundup intervals all 0), ``parseMaxSplitSize`` (at least kLargeBuffer / 1 MiB
  = 20), ``parseMaxNonSplitRoundingSize`` (at least 20), ``parseGarbageCollectionThreshold``
  (strictly between 0 and 1), ``parseRoundUpPower2Divisions`` (a single power of two, or a list
  ``[256:1,512:2,>:4]`` keyed by MiB), ``roundup_power2_divisions(size)`` (interval index =
  floor(log2(size)) - 20, clamped to 0..15); ``expandable_segments:True/False``.
* torch 2.13.0's header also names ``large_segment_size`` (default 20 MiB, AllocatorConfig.h:340),
  the segment a 1-10 MiB request gets and the page of a large expandable segment; it is kept
  configurable here and defaults to kLargeBuffer, the value the cited allocator hard-codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

KIB = 1024
MIB = 1024 * KIB

K_MIN_BLOCK_SIZE = 512  # CCA:118 "all sizes are rounded to at least 512 bytes"
K_SMALL_SIZE = 1 * MIB  # CCA:120 "largest 'small' allocation is 1 MiB"
K_SMALL_BUFFER = 2 * MIB  # CCA:121 "'small' allocations are packed in 2 MiB blocks"
K_MIN_LARGE_ALLOC = 10 * MIB  # CCA:123 "allocations between 1 and 10 MiB may use kLargeBuffer"
K_ROUND_LARGE = 2 * MIB  # CCA:125 "round up large allocations to 2 MiB"
K_LARGE_BUFFER = 20 * MIB  # CCA:48 "'large' allocations may be packed in 20 MiB blocks"

ROUNDUP_INTERVALS = 16  # ACFG kRoundUpPowerOfTwoIntervals: 1 MiB .. 64 GiB, one per power of two
SIZE_MAX = 2**64 - 1  # std::numeric_limits<size_t>::max(): "no limit" for max_split_size


class AllocatorConfigError(ValueError):
    """A ``PYTORCH_CUDA_ALLOC_CONF`` string torch itself would reject (the message says why)."""


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass(frozen=True)
class AllocatorConfig:
    """One device allocator's settings. Sizes in bytes."""

    max_split_size: int = SIZE_MAX
    """Blocks at least this big are never split (``max_split_size_mb``); SIZE_MAX = unlimited."""
    max_non_split_rounding: int = K_LARGE_BUFFER
    """An oversize cached block serves a request at most this much smaller (CCA:2549-2551 uses
    kLargeBuffer; torch 2.6+ names it ``max_non_split_rounding_mb``, default the same 20 MiB)."""
    roundup_power2_divisions: tuple[int, ...] = (0,) * ROUNDUP_INTERVALS
    """Divisions per power-of-two interval [2^k MiB, 2^(k+1) MiB), k = 0..15 (0 = off)."""
    garbage_collection_threshold: float = 0.0
    """Reclaim old cached blocks once reserved passes this fraction of the allowed memory; only
    active together with a per-process memory fraction (CCA:1237-1241, 2501-2506)."""
    expandable_segments: bool = False
    large_segment_size: int = K_LARGE_BUFFER
    memory_fraction: float | None = None
    """``torch.cuda.set_per_process_memory_fraction``: caps reserved memory at fraction x device
    total (CCA:1584-1591 setMemoryFraction, CCA:2645-2648 alloc_block)."""
    settings: str = field(default="", compare=False)

    def divisions_for(self, size: int) -> int:
        """ACFG ``roundup_power2_divisions(size)``: the divisions of size's power-of-two interval."""
        index = size.bit_length() - 1 - 20  # log2(size) - log2(1 MiB)
        index = max(0, min(index, ROUNDUP_INTERVALS - 1))
        return self.roundup_power2_divisions[index]

    @property
    def label(self) -> str:
        return self.settings or "default"

    def with_expandable(self, on: bool = True) -> "AllocatorConfig":
        """The same settings with ``expandable_segments`` switched on (or off)."""
        label = f"expandable_segments:{on}"
        if self.settings and "expandable_segments" not in self.settings:
            label = f"{self.settings},{label}"
        return replace(self, expandable_segments=on, settings=label)

    @classmethod
    def parse(cls, text: str | None) -> "AllocatorConfig":
        """Parse a ``PYTORCH_CUDA_ALLOC_CONF`` / ``PYTORCH_ALLOC_CONF`` string as torch does.

        Keys that only concern other allocators or pinned host memory (``backend``,
        ``release_lock_on_cudamalloc``, ``pinned_*``) are accepted and ignored: they do not
        change which segments the device allocator reserves."""
        if not text:
            return cls()
        tokens = _lex(text)
        values: dict = {}
        divisions = [0] * ROUNDUP_INTERVALS
        i = 0
        while i < len(tokens):
            key = tokens[i]
            if i + 1 >= len(tokens) or tokens[i + 1] != ":":
                raise AllocatorConfigError(f"expected ':' after {key!r} in {text!r}")
            i += 2
            if i >= len(tokens):
                raise AllocatorConfigError(f"expected a value for {key!r} in {text!r}")
            if key == "roundup_power2_divisions":
                i = _parse_divisions(tokens, i, divisions, text)
                values["roundup_power2_divisions"] = tuple(divisions)
            else:
                value = tokens[i]
                if key in ("max_split_size_mb", "max_non_split_rounding_mb", "large_segment_size_mb"):
                    mb = _int(value, key)
                    if mb < K_LARGE_BUFFER // MIB and key != "large_segment_size_mb":
                        raise AllocatorConfigError(
                            f"{key} too small, must be >= {K_LARGE_BUFFER // MIB} (torch refuses it)")
                    name = {"max_split_size_mb": "max_split_size",
                            "max_non_split_rounding_mb": "max_non_split_rounding",
                            "large_segment_size_mb": "large_segment_size"}[key]
                    values[name] = min(mb, SIZE_MAX // MIB) * MIB
                elif key == "garbage_collection_threshold":
                    try:
                        g = float(value)
                    except ValueError:
                        raise AllocatorConfigError(f"garbage_collection_threshold: not a number: {value!r}") from None
                    if not 0.0 < g < 1.0:
                        raise AllocatorConfigError("garbage_collection_threshold must be in (0.0, 1.0)")
                    values["garbage_collection_threshold"] = g
                elif key == "expandable_segments":
                    if value not in ("True", "False"):
                        raise AllocatorConfigError("Expected a single True/False argument for expandable_segments")
                    values["expandable_segments"] = value == "True"
                elif key in ("backend", "release_lock_on_cudamalloc", "release_lock_on_hipmalloc",
                             "pinned_use_cuda_host_register", "pinned_use_hip_host_register",
                             "pinned_num_register_threads", "pinned_use_background_threads",
                             "pinned_reserve_segment_size_mb", "graph_capture_record_stream_reuse"):
                    if key == "backend" and value not in ("native", "cudaMallocAsync"):
                        raise AllocatorConfigError("Unknown allocator backend, options are native and cudaMallocAsync")
                    if key == "backend" and value == "cudaMallocAsync":
                        raise AllocatorConfigError(
                            "backend:cudaMallocAsync uses CUDA's own stream-ordered allocator, "
                            "which this simulator does not model")
                else:
                    raise AllocatorConfigError(f"Unrecognized CachingAllocator option: {key}")
                i += 1
            if i < len(tokens):
                if tokens[i] != ",":
                    raise AllocatorConfigError(f"expected ',' in {text!r}")
                i += 1
        return replace(cls(**values), settings=text.strip())


def _lex(text: str) -> list[str]:
    """ACFG ``lexArgs``: split on , : [ ] and drop blanks."""
    out, buf = [], []
    for ch in text:
        if ch in ",:[]":
            if buf:
                out.append("".join(buf))
                buf = []
            out.append(ch)
        elif not ch.isspace():
            buf.append(ch)
    if buf:
        out.append("".join(buf))
    return out


def _int(value: str, key: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise AllocatorConfigError(f"{key}: not a whole number: {value!r}") from None


def _parse_divisions(tokens: list[str], i: int, divisions: list[int], text: str) -> int:
    """ACFG ``parseRoundUpPower2Divisions``, including its quirks: the first listed interval
    also fills every interval below it, and ``>`` fills from the last listed interval on
    (overwriting that interval's own value)."""
    if tokens[i] != "[":
        n = _int(tokens[i], "roundup_power2_divisions")
        if not _pow2(n):
            raise AllocatorConfigError("For roundups, the divisons has to be power of 2")
        divisions[:] = [n] * ROUNDUP_INTERVALS
        return i + 1
    first, last_index = True, 0
    i += 1
    while i < len(tokens) and tokens[i] != "]":
        key = tokens[i]
        if i + 2 >= len(tokens) or tokens[i + 1] != ":":
            raise AllocatorConfigError(f"Error parsing roundup_power2_divisions value in {text!r}")
        n = _int(tokens[i + 2], "roundup_power2_divisions")
        if n != 0 and not _pow2(n):
            raise AllocatorConfigError("For roundups, the divisons has to be power of 2 or 0 to disable roundup")
        if key == ">":
            for j in range(last_index, ROUNDUP_INTERVALS):
                divisions[j] = n
        else:
            mb = _int(key, "roundup_power2_divisions interval")
            if not _pow2(mb):
                raise AllocatorConfigError("For roundups, the intervals have to be power of 2")
            index = min(mb.bit_length() - 1, ROUNDUP_INTERVALS - 1)
            if first:
                for j in range(index):
                    divisions[j] = n
                first = False
            divisions[index] = n
            last_index = index
        i += 3
        if i < len(tokens) and tokens[i] == ",":
            i += 1
    if i >= len(tokens):
        raise AllocatorConfigError(f"Expected closing bracket ']' in {text!r}")
    return i + 1
