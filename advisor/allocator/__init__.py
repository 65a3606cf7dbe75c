"""What nvidia-smi will show: a model of PyTorch's CUDA caching allocator, replayed over a run.

Allocated memory (live tensor bytes, ``advisor.trace``) is not what a team sees: PyTorch's
caching allocator keeps freed blocks in segments it obtained from cudaMalloc, rounds requests,
packs small ones into 2 MiB segments and 1-10 MiB ones into 20 MiB segments, and on
variable-length batches ends up holding free blocks of many sizes. ``torch.cuda.max_memory_reserved``
and nvidia-smi show those segments. This package simulates them.

    CachingAllocator(config, capacity=..)       malloc / free / replay / stats / snapshot: one device, one stream
    AllocatorConfig.parse("expandable_segments:True,max_split_size_mb:512")   PYTORCH_CUDA_ALLOC_CONF
    events.StepProgram.from_logs({L: log})      a traced step's event log, sizes as polynomials of the length
    program.trace_program(spec, arch)           trace three lengths and fit the program (needs torch)
    lengths.batch_lengths(dist, seq_len, mb, n) padded lengths of a run's micro-batches
    replay.replay_run(program, lengths)         the allocator over a run -> RunResult (reserved, segments, ...)
    simulate.simulate_reserved(spec, arch)      all of the above for a spec (advisor trace)
    closed_form.reserved_for(terms, spec)       the fit to simulations for the chat path (microseconds)
    history.check_history(device_trace)         compare with a history torch recorded on a GPU

Only ``events``, ``program`` and ``simulate`` need numpy / torch; the chat path imports
``closed_form`` and ``lengths``, which need neither.

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
