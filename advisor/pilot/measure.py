"""What the runner measures besides time: memory (torch, NVML, the process), the hardware and
software it ran on, and the FLOPs a step is worth (for achieved TFLOPS and MFU).

Memory has three sources, reported separately because they answer different questions:
``torch.cuda`` peak allocated/reserved (what the analytic model predicts), NVML device memory used
(what nvidia-smi shows: reserved + CUDA context + other processes), and on CPU the process resident
set size (torch has no allocator statistics for CPU; the figure includes the interpreter and
libraries, so the baseline before the model is built is reported too).
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import advisor

# Sampling period of the memory thread. NVML's memory counters update at driver granularity
# (~10-100 ms); 20 ms keeps the sampler's own cost well under 1% of a CPU core.
SAMPLE_PERIOD_S = 0.02
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes() -> int | None:
    """Resident set size of this process now (Linux /proc/self/statm)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


def rss_peak_bytes() -> int:
    """Kernel-recorded peak RSS of this process (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Nvml:
    """NVML for one CUDA device, or the reason it is unavailable."""

    def __init__(self, device_uuid: str | None):
        self.handle = None
        self.reason: str | None = None
        self.driver: str | None = None
        if device_uuid is None:
            self.reason = "no CUDA device (NVML measures GPU memory only)"
            return
        try:
            import pynvml
        except ImportError:
            self.reason = "nvidia-ml-py is not installed (pilot extra)"
            return
        try:
            pynvml.nvmlInit()
            uuid = device_uuid if device_uuid.startswith("GPU-") else f"GPU-{device_uuid}"
            self.handle = pynvml.nvmlDeviceGetHandleByUUID(uuid)
            self.driver = pynvml.nvmlSystemGetDriverVersion()
            if isinstance(self.driver, bytes):
                self.driver = self.driver.decode()
        except Exception as exc:  # NVMLError has many subclasses; each is "not available here"
            self.handle = None
            self.reason = f"NVML unavailable: {exc}"
        self._pynvml = pynvml

    def used(self) -> tuple[int | None, int | None]:
        """(device memory used, this process's memory on the device) in bytes."""
        if self.handle is None:
            return None, None
        nv = self._pynvml
        dev = nv.nvmlDeviceGetMemoryInfo(self.handle).used
        mine = None
        try:
            for proc in nv.nvmlDeviceGetComputeRunningProcesses(self.handle):
                if proc.pid == os.getpid() and proc.usedGpuMemory is not None:
                    mine = int(proc.usedGpuMemory)
        except Exception:  # per-process accounting is unsupported in some containers
            mine = None
        return int(dev), mine


class MemoryMonitor:
    """Samples device and process memory in a daemon thread; keeps the peaks."""

    def __init__(self, device_uuid: str | None, period_s: float = SAMPLE_PERIOD_S):
        self.period_s = period_s
        self.nvml = _Nvml(device_uuid)
        self.rss_baseline = rss_bytes()
        self.rss_peak = self.rss_baseline or 0
        self.device_peak: int | None = None
        self.process_device_peak: int | None = None
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="pilot-memory", daemon=True)

    def start(self) -> "MemoryMonitor":
        self._thread.start()
        return self

    def _sample(self) -> None:
        rss = rss_bytes()
        if rss is not None:
            self.rss_peak = max(self.rss_peak, rss)
        dev, mine = self.nvml.used()
        if dev is not None:
            self.device_peak = max(self.device_peak or 0, dev)
        if mine is not None:
            self.process_device_peak = max(self.process_device_peak or 0, mine)
        self.samples += 1

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.period_s)

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=1)
        self._sample()
        peak = max(self.rss_peak, rss_peak_bytes())
        return {
            "nvml_device_peak_bytes": self.device_peak,
            "nvml_process_peak_bytes": self.process_device_peak,
            "nvml_reason": self.nvml.reason,
            "process_rss_peak_bytes": peak,
            "process_rss_baseline_bytes": self.rss_baseline,
            "samples": self.samples,
            "sample_period_s": self.period_s,
        }


def code_version() -> str:
    """`git describe` of the checkout the advisor runs from, else the package version."""
    root = Path(advisor.__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--tags"], cwd=root,
                             capture_output=True, text=True, timeout=5)
        if out.returncode == 0 and out.stdout.strip():
            return f"{advisor.__version__}+g{out.stdout.strip()}"
    except (OSError, subprocess.TimeoutExpired):
        pass
    return advisor.__version__


def environment(torch, device) -> dict[str, Any]:
    """Hardware and software the pilot ran on (no NVML needed for these)."""
    env: dict[str, Any] = {
        "device": device.type,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "host": platform.node(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "code_version": code_version(),
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env.update(gpu_name=props.name, gpu_total_memory_bytes=int(props.total_memory),
                   gpu_uuid=str(getattr(props, "uuid", "")) or None,
                   cudnn=torch.backends.cudnn.version())
    else:
        env.update(gpu_name=None, gpu_total_memory_bytes=None, gpu_uuid=None, cudnn=None)
    return env


def flops_per_token(spec, arch) -> tuple[float, float]:
    """(model FLOPs, executed FLOPs) per trained token, from ``advisor.throughput`` so that a
    pilot's MFU and the estimate it calibrates count FLOPs the same way (model: the MFU
    convention, no recompute; executed: with gradient-checkpointing recompute, what the
    calibration's efficiency is measured on)."""
    from advisor.throughput import flops_per_token as count

    flops = count(spec, arch)
    return float(flops.model), float(flops.executed)


def now() -> float:
    return time.perf_counter()


TIMED_PHASES = ("forward", "backward", "optimizer")


class PhaseTimer:
    """Seconds of each phase of one step, from the step function's ``mark`` calls ("forward",
    "backward", "optimizer" as each starts, "done" at the end).

    On CUDA each mark records a ``torch.cuda.Event(enable_timing=True)`` on the current stream:
    no synchronization inside the step (which would stop the host from running ahead of the GPU
    and change what is measured); the durations are read after the step's final synchronize,
    as the GPU's time between the marks. On the CPU (synchronous) a mark reads perf_counter."""

    def __init__(self, torch, device):
        self.cuda = device.type == "cuda"
        self._torch = torch
        self._marks: list[tuple[str, object]] = []

    @property
    def source(self) -> str:
        return "cuda events" if self.cuda else "perf_counter"

    def mark(self, phase: str) -> None:
        if self.cuda:
            ev = self._torch.cuda.Event(enable_timing=True)
            ev.record()
            self._marks.append((phase, ev))
        else:
            self._marks.append((phase, time.perf_counter()))

    def durations(self) -> dict[str, float]:
        """{phase: seconds} of the step just run (call after synchronizing the device)."""
        out: dict[str, float] = {}
        for (phase, a), (_, b) in zip(self._marks, self._marks[1:]):
            if phase in TIMED_PHASES:
                dt = a.elapsed_time(b) / 1000.0 if self.cuda else b - a
                out[phase] = out.get(phase, 0.0) + dt
        self._marks.clear()
        return out
