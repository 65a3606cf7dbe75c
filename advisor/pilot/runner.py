"""The pilot runner: real training steps of the exact architecture, measured.

It runs the reference decoder the exact trace uses (``advisor.model``: built layer by layer on the
device in the target dtype, quantized as it is made), or with ``runtime='hf'`` the stack teams run
(transformers + PEFT + bitsandbytes, ``advisor.pilot.hf_stack``). Warm-up steps first (at least
two optimizer steps: AdamW creates its state on the first), then measured steps; every figure
says where it came from. An out-of-memory is a result: the failed event says in which phase
(forward, backward, optimizer) of which step it happened and what was measured until then.
"""

from __future__ import annotations

import signal
import statistics
import time
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError, MissingExtra, PilotError
from advisor.pilot.checkpoint import save_checkpoint
from advisor.pilot.events import EventWriter
from advisor.pilot.measure import TIMED_PHASES, MemoryMonitor, PhaseTimer, environment, flops_per_token
from advisor.pilot.spec import PilotSpec, matches_gpu, one_gpu_only

RESULT_FORMAT = "advisor-pilot-result/1"


class Cancelled(Exception):
    """SIGTERM from the launcher (a user cancelled)."""


class TimedOut(Exception):
    """The pilot passed its time limit."""


class PhaseTracker:
    """Which phase (forward, backward, optimizer) of which step is running: the step function
    calls ``mark`` as each phase starts (``advisor.model.train_step``'s ``on_phase``)."""

    def __init__(self) -> None:
        self.phase = "build"
        self.step = 0  # 1-based index of the step in flight
        self.completed = 0

    def mark(self, phase: str) -> None:
        self.phase = "between steps" if phase == "done" else phase

    def where(self) -> dict[str, Any]:
        return {"phase": self.phase, "step": self.step, "steps_completed": self.completed}


def _is_oom(exc: BaseException) -> bool:
    import torch

    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, getattr(torch, "OutOfMemoryError", ())) or isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("out of memory" in text.lower() or "can't allocate memory" in text)


def select_device(torch, wanted: str):
    if wanted == "cuda" and not torch.cuda.is_available():
        raise PilotError("This pilot asks for a CUDA GPU, but torch sees none on this node "
                         f"(torch {torch.__version__}, CUDA build: {torch.version.cuda}).")
    if wanted == "cpu" or (wanted == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    return torch.device("cuda", torch.cuda.current_device())


def _sync(torch, device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _torch_memory(torch, device) -> dict[str, Any]:
    if device.type != "cuda":
        return {"peak_allocated_bytes": None, "peak_reserved_bytes": None}
    return {"peak_allocated_bytes": int(torch.cuda.max_memory_allocated(device)),
            "peak_reserved_bytes": int(torch.cuda.max_memory_reserved(device))}


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "stdev": None, "min": None, "max": None, "cv": None}
    mean = statistics.fmean(values)
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"mean": mean, "stdev": stdev, "min": min(values), "max": max(values),
            "cv": stdev / mean if mean else None}


def _stack(pspec: PilotSpec, device):
    """(model, step(mark), description) for the runtime the spec asks for; ``step`` runs one
    optimizer step and calls ``mark`` with each phase as it starts."""
    spec, arch = pspec.spec, pspec.arch
    if pspec.runtime == "hf":
        from advisor.pilot import hf_stack

        return hf_stack.build(pspec, device)
    try:
        from advisor.model import build_model, make_optimizer, synthetic_batch, train_step
    except ImportError as exc:
        raise PilotError(f"The reference decoder (advisor.model) is not available: {exc}") from None
    model = build_model(spec, arch, device)
    optimizer = make_optimizer(model, spec)
    batch = synthetic_batch(spec, arch, device, pspec.seed)
    lengths = None
    if spec.length_distribution is not None:
        # variable-length batches drawn as the replay draws them (advisor.allocator.lengths), so a
        # GPU pilot measures the reserved memory the allocator simulation predicts
        from advisor.allocator.lengths import batch_lengths

        lengths = batch_lengths(spec.length_distribution, spec.seq_len, spec.micro_batch, pspec.total_steps,
                                seed=pspec.seed)
    quant = None
    if spec.method == "qlora":
        from advisor import model as model_pkg

        backend = getattr(model_pkg, "quant_backend", None)
        quant = backend(model) if callable(backend) else f"advisor.model {spec.quant} stand-in (pure torch, byte-faithful)"
    describe = {"runtime": "reference", "implementation": "advisor.model reference decoder",
                "stack_profile": spec.stack, "quant_impl": quant}
    if lengths is None:
        return model, lambda mark: train_step(model, optimizer, batch, spec, on_phase=mark), describe
    describe["batch_lengths"] = lengths
    todo = iter(lengths)

    def step(mark):
        length = next(todo, spec.seq_len)
        b = synthetic_batch(spec.model_copy(update={"seq_len": length}), arch, device, pspec.seed)
        return train_step(model, optimizer, b, spec, on_phase=mark)
    return model, step, describe


class AddressSpaceLimit:
    """RLIMIT_AS set to the current address space plus ``extra`` bytes; ``lift`` restores it
    (the runner lifts it before reporting an OOM, so the report itself can allocate)."""

    def __init__(self, extra: int | None):
        import resource

        self._resource = resource
        self._old = resource.getrlimit(resource.RLIMIT_AS)
        self.active = False
        if extra is not None:
            vm = _vm_size()
            if vm is not None:
                resource.setrlimit(resource.RLIMIT_AS, (vm + extra, self._old[1]))
                self.active = True

    def lift(self) -> None:
        if self.active:
            self._resource.setrlimit(self._resource.RLIMIT_AS, self._old)
            self.active = False


def _vm_size() -> int | None:
    """Virtual address space of this process (Linux /proc/self/statm, first field)."""
    from advisor.pilot.measure import _PAGE

    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class Runner:
    def __init__(self, pspec: PilotSpec, writer: EventWriter):
        self.pspec = pspec
        self.writer = writer
        self.started = time.monotonic()
        self.tracker = PhaseTracker()
        self.step_times: list[float] = []
        self.warmup_times: list[float] = []
        self.phase_times: dict[str, list[float]] = {p: [] for p in TIMED_PHASES}
        self.phase_source: str | None = None
        self.warmup_memory: dict[str, Any] = {}
        self.last_progress = 0.0
        self.limit: AddressSpaceLimit | None = None

    def _progress(self, device, torch, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_progress < self.pspec.progress_every_s:
            return
        self.last_progress = now
        recent = self.step_times or self.warmup_times
        tps = self.pspec.spec.seq_len * self.pspec.spec.micro_batch / recent[-1] if recent else None
        self.writer.emit("progress", **self.tracker.where(), total_steps=self.pspec.total_steps,
                         warmup_steps=self.pspec.warmup_steps, elapsed_s=now - self.started,
                         last_step_s=recent[-1] if recent else None, tokens_per_s=tps,
                         **_torch_memory(torch, device))

    def run(self) -> dict[str, Any]:
        try:
            import torch
        except ImportError:
            raise MissingExtra("A measured pilot", "pilot", "torch") from None
        pspec, spec = self.pspec, self.pspec.spec
        one_gpu_only(spec)  # a spec file written by hand (advisor.pilot.spec)
        device = select_device(torch, pspec.device)
        env = environment(torch, device)
        monitor = MemoryMonitor(env.get("gpu_uuid")).start()
        env["driver"] = monitor.nvml.driver
        self.env = env
        self.writer.emit("started", environment=env, total_steps=pspec.total_steps,
                         warmup_steps=pspec.warmup_steps, spec=spec.model_dump(mode="json"))
        torch.manual_seed(pspec.seed)
        self.monitor, self.device, self.torch = monitor, device, torch

        t0 = time.perf_counter()
        model, step, describe = _stack(pspec, device)
        _sync(torch, device)
        build_s = time.perf_counter() - t0
        if device.type == "cpu" and pspec.cpu_memory_limit_bytes:
            # after the build: torch loads code lazily while building (address space, not data)
            self.limit = AddressSpaceLimit(pspec.cpu_memory_limit_bytes)
        self.describe = describe
        timer = PhaseTimer(torch, device)
        self.phase_source = timer.source

        def mark(phase: str) -> None:
            self.tracker.mark(phase)
            timer.mark(phase)

        losses = []
        for i in range(pspec.total_steps):
            self.tracker.step = i + 1
            if i == pspec.warmup_steps:
                self.warmup_memory = _torch_memory(torch, device)
                if device.type == "cuda":
                    torch.cuda.reset_peak_memory_stats(device)
            _sync(torch, device)
            t = time.perf_counter()
            loss = step(mark)
            _sync(torch, device)
            elapsed = time.perf_counter() - t
            phases = timer.durations()
            (self.warmup_times if i < pspec.warmup_steps else self.step_times).append(elapsed)
            if i >= pspec.warmup_steps:
                for p in TIMED_PHASES:
                    if p in phases:
                        self.phase_times[p].append(phases[p])
            losses.append(float(loss.detach()) if hasattr(loss, "detach") else (float(loss) if loss is not None else None))
            self.tracker.completed = i + 1
            self.tracker.phase = "between steps"
            self._progress(device, torch, force=i + 1 == pspec.total_steps)
            if time.monotonic() - self.started > pspec.time_limit_s:
                raise TimedOut()
        measured_memory = _torch_memory(torch, device)
        checkpoint = None
        if pspec.save_checkpoint:
            self.tracker.phase = "checkpoint"
            checkpoint = save_checkpoint(model, pspec, Path(pspec.output_dir or "."), env,
                                         extra={"stack_ran": describe})
        return self._result(build_s, losses, measured_memory, checkpoint)

    def _memory(self, measured: dict[str, Any]) -> dict[str, Any]:
        sampled = self.monitor.stop()
        peaks = {k: max(v for v in (self.warmup_memory.get(k), measured.get(k)) if v is not None)
                 if measured.get(k) is not None else None for k in measured}
        out = {
            "source": "torch.cuda" if self.device.type == "cuda" else "process-rss (CPU: torch keeps no allocator statistics)",
            **peaks,
            "steady_peak_allocated_bytes": measured.get("peak_allocated_bytes"),
            "steady_peak_reserved_bytes": measured.get("peak_reserved_bytes"),
            "reserved_over_allocated": (peaks["peak_reserved_bytes"] / peaks["peak_allocated_bytes"]
                                        if peaks.get("peak_allocated_bytes") else None),
            **sampled,
        }
        if sampled["process_rss_baseline_bytes"] is not None:
            out["process_rss_delta_bytes"] = sampled["process_rss_peak_bytes"] - sampled["process_rss_baseline_bytes"]
        return out

    def partial(self) -> dict[str, Any]:
        """What was measured before a failure (for the failed event)."""
        if self.limit is not None:
            self.limit.lift()
        out: dict[str, Any] = {"where": self.tracker.where(),
                               "elapsed_s": time.monotonic() - self.started,
                               "warmup_step_s": self.warmup_times, "step_s": self.step_times}
        if getattr(self, "monitor", None) is not None:
            out["memory"] = self._memory(_torch_memory(self.torch, self.device))
        return out

    def _result(self, build_s, losses, measured_memory, checkpoint) -> dict[str, Any]:
        pspec, spec, arch = self.pspec, self.pspec.spec, self.pspec.arch
        times = _spread(self.step_times)
        # a step is one optimizer step over gradient_accumulation_steps micro-batches (both runtimes)
        accumulation = spec.gradient_accumulation_steps
        tokens_per_step = spec.seq_len * spec.micro_batch * accumulation
        measured_lengths = (self.describe or {}).get("batch_lengths")
        if measured_lengths:  # padded tokens of the measured (post-warmup) steps
            steady = measured_lengths[pspec.warmup_steps:] or measured_lengths
            tokens_per_step = sum(steady) / len(steady) * spec.micro_batch * accumulation
        tokens_per_s = tokens_per_step / times["mean"] if times["mean"] else None
        model_flops, hw_flops = flops_per_token(spec, arch)
        achieved = model_flops * tokens_per_s / 1e12 if tokens_per_s else None
        peak = pspec.gpu_peak_tflops
        matches = matches_gpu(pspec, self.env.get("gpu_name"), self.env.get("gpu_total_memory_bytes"))
        notes = []  # codes with fields; advisor.pilot.report words them in the reader's language
        if pspec.gpu and not matches:
            notes.append({"code": "off_target", "ran_on": self.env.get("gpu_name") or "CPU",
                          "gpu": pspec.gpu_name or pspec.gpu})
        if spec.num_gpus > 1:
            notes.append({"code": "ddp_replica", "n": spec.num_gpus})
        return {
            "format": RESULT_FORMAT,
            "pilot_id": pspec.pilot_id,
            "gpu": pspec.gpu,
            "device": self.device.type,
            "on_target_gpu": matches,
            "stack_ran": self.describe,
            "spec": spec.model_dump(mode="json"),
            "architecture": arch.model_dump(mode="json"),
            "model_id": pspec.model_id,
            "steps": {"warmup": pspec.warmup_steps, "measured": pspec.steps},
            "build_s": build_s,
            "warmup_step_s": self.warmup_times,
            "step_s": self.step_times,
            "step_time_s": times,
            # per-phase seconds of each measured step (forward, backward, optimizer): what
            # calibration fits the operator classes' efficiency on (advisor.pilot.calibration)
            "phase_s": {p: list(v) for p, v in self.phase_times.items()},
            "phase_mean_s": {p: statistics.fmean(v) if v else None for p, v in self.phase_times.items()},
            "phase_source": self.phase_source,
            "tokens_per_step": tokens_per_step,
            "tokens_per_s": tokens_per_s,
            "flops_per_token": {"model": model_flops, "executed": hw_flops,
                                "source": "advisor.throughput.flops_per_token"},
            "achieved_tflops": achieved,
            "peak_tflops": peak,
            "mfu": achieved / peak if achieved is not None and peak else None,
            # executed FLOPs (recompute included) over the peak: what Calibration.mfu expects
            "efficiency": hw_flops * tokens_per_s / 1e12 / peak if tokens_per_s and peak else None,
            "losses": losses,
            "memory": self._memory(measured_memory),
            "checkpoint": checkpoint,
            "environment": self.env,
            "wall_s": time.monotonic() - self.started,
            "notes": notes,
        }


def _raise_cancelled(*_: Any) -> None:
    raise Cancelled()


def _raise_timed_out(*_: Any) -> None:
    raise TimedOut()


def run_pilot(pspec: PilotSpec, events_path: str | Path) -> int:
    """Run one pilot, writing its events; the exit status is 0 when it finished."""
    signal.signal(signal.SIGTERM, _raise_cancelled)
    signal.signal(signal.SIGALRM, _raise_timed_out)
    signal.setitimer(signal.ITIMER_REAL, pspec.time_limit_s)
    with EventWriter(events_path, pspec.pilot_id) as writer:
        runner = Runner(pspec, writer)
        try:
            result = runner.run()
        except Cancelled:
            writer.emit("failed", reason="cancelled", message="the pilot was cancelled", result=runner.partial())
            return 3
        except TimedOut:
            writer.emit("failed", reason="timed_out", result=runner.partial(),
                        message=f"the pilot passed its time limit of {pspec.time_limit_s:.0f} s")
            return 4
        except MissingExtra as exc:
            writer.emit("failed", reason="missing_extra", message=str(exc), result=None)
            return 2
        except AdvisorError as exc:
            writer.emit("failed", reason="error", message=str(exc), result=runner.partial())
            return 2
        except BaseException as exc:  # noqa: BLE001 - an OOM is a result; anything else is reported
            partial = runner.partial()
            if _is_oom(exc):
                where = partial["where"]
                writer.emit("failed", reason="oom", result=partial,
                            message=f"out of memory in the {where['phase']} phase of step {where['step']} "
                                    f"after {where['steps_completed']} complete steps: {(str(exc) or type(exc).__name__)[:300]}")
                return 5
            writer.emit("failed", reason="error", message=f"{type(exc).__name__}: {exc}"[:2000], result=partial)
            raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        writer.emit("finished", result=result)
        return 0
