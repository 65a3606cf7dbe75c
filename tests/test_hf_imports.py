"""The hf runtime's imports: torch.compile wrappers bitsandbytes builds at import are deferred
to their first call (advisor.pilot.hf_stack.deferred_torch_compile), and nothing else changes."""

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from advisor.pilot import hf_stack  # noqa: E402
from tests.conftest import ROOT  # noqa: E402


def test_a_deferred_compile_builds_once_at_the_first_call_and_forwards_every_call():
    built = []

    def compile_fn(fn, **options):
        built.append(options)
        return lambda *a, **k: ("compiled", fn(*a, **k))

    def double(x):
        """Twice x."""
        return 2 * x

    deferred = hf_stack._DeferredCompile(compile_fn, double, {"dynamic": False})
    assert built == [] and deferred.__name__ == "double" and deferred.__doc__ == "Twice x."
    assert deferred(3) == ("compiled", 6) and deferred(x=4) == ("compiled", 8)
    assert built == [{"dynamic": False}]


def test_both_decorator_forms_are_deferred_and_torch_compile_is_restored():
    real = torch.compile
    with hf_stack.deferred_torch_compile():
        assert torch.compile is not real
        plain = torch.compile(lambda x: x + 1)
        with_options = torch.compile(dynamic=False)(lambda x: x * 3)
    assert torch.compile is real
    assert isinstance(plain, hf_stack._DeferredCompile) and isinstance(with_options, hf_stack._DeferredCompile)
    assert plain._options == {} and with_options._options == {"dynamic": False}
    assert plain._compiled is None and with_options._compiled is None  # nothing built yet


def test_importing_the_stack_no_longer_imports_inductor():
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    pytest.importorskip("bitsandbytes")
    code = ("import sys, torch\nfrom advisor.pilot import hf_stack\nreal = torch.compile\n"
            "transformers, peft, bnb = hf_stack._imports(True, 'adamw')\n"
            "import bitsandbytes.backends.default.ops as ops\n"
            "print(bnb is not None, 'torch._inductor.compile_fx' in sys.modules, torch.compile is real,\n"
            "      any(type(c.cell_contents).__name__ == '_DeferredCompile'\n"
            "          for c in ops._dequantize_4bit_compute.__closure__ or ()))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "False", "True", "True"]
