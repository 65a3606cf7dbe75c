"""What nvidia-smi will show: a model of PyTorch's CUDA caching allocator, replayed over a run.

Allocated memory (live tensor bytes, ``advisor.trace``) is not what a team sees: PyTorch's
caching allocator keeps freed blocks in segments it obtained from cudaMalloc, rounds requests,
packs small ones into 2 MiB segments and 1-10 MiB ones into 20 MiB segments, and on
variable-length batches ends up holding free blocks of many sizes. ``torch.cuda.max_memory_reserved``
and nvidia-smi show those segments. This package simulates them.

    CachingAllocator(config, capacity=..)    malloc / free / stats / snapshot, one device, one stream
    AllocatorConfig.parse("expandable_segments:True,max_split_size_mb:512")
    StepProgram.from_traces(...)              a traced step's event log, parametrized by tokens
    LengthDistribution -> batch lengths       (``advisor.spec.LengthDistribution``; sampling here)
    replay_run(program, lengths, ...)         the allocator over a run of steps -> RunResult
    reserved_closed_form(...)                 the fit to simulations for the chat path (microseconds)

Citations. ``CCA:n`` is line n of ``c10/cuda/CUDACachingAllocator.cpp`` in pytorch/pytorch at
commit 001074d25084fdb87a799823e395a50f5ec044d3 (the newest revision in our source index; its
rules, constants and defaults are those of torch 2.13.0's installed headers
``c10/core/AllocatorConfig.h`` and ``c10/cuda/CUDAAllocatorConfig.h``). ``ACFG`` is
``c10/core/AllocatorConfig.cpp`` at commit 065861fba7598880aa3216822742a1172d0a197c (settings
parsing), cited by function.
"""

from advisor.allocator.caching import AllocatorStats, CachingAllocator, SimulatedOutOfMemory
from advisor.allocator.config import AllocatorConfig, AllocatorConfigError

__all__ = ["AllocatorConfig", "AllocatorConfigError", "AllocatorStats", "CachingAllocator",
           "SimulatedOutOfMemory"]
