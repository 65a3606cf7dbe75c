"""Words of `advisor trace`: the exact fake-tensor trace of a training step."""

MESSAGES = {
    "trace.title": {
        "en": "Exact peak memory of one training step of {label} ({method}, seq {seq_len}, micro-batch {micro_batch}, stack {stack})",
        "es": "Memoria pico exacta de un paso de entrenamiento de {label} ({method}, secuencia {seq_len}, micro-lote {micro_batch}, stack {stack})",
    },
    "trace.peak": {"en": "Peak allocated: {size}", "es": "Pico asignado: {size}"},
    "trace.runtime": {"en": "Traced step: {runtime} ({versions})", "es": "Paso trazado: {runtime} ({versions})"},
    "trace.col.part": {"en": "Part", "es": "Parte"},
    "trace.col.size": {"en": "Size", "es": "Tamaño"},
    "trace.col.share": {"en": "Share", "es": "Porción"},
    "trace.by_phase": {"en": "Peak per phase", "es": "Pico por fase"},
    "trace.estimate": {
        "en": "Analytic estimate: {size} ({error} vs the trace)",
        "es": "Estimación analítica: {size} ({error} frente a la traza)",
    },
    "trace.seconds": {
        "en": "Traced {steps} step(s) with fake tensors in {seconds} s (nothing was allocated).",
        "es": "Se trazaron {steps} paso(s) con tensores falsos en {seconds} s (no se asignó memoria).",
    },
    "trace.per_gpu": {
        "en": "Per GPU, {num_gpus} GPUs with {sharding}.",
        "es": "Por GPU, {num_gpus} GPUs con {sharding}.",
    },
    "trace.cat.weights": {"en": "weights", "es": "pesos"},
    "trace.cat.quant_constants": {"en": "quantization constants", "es": "constantes de cuantización"},
    "trace.cat.adapters": {"en": "LoRA adapters", "es": "adaptadores LoRA"},
    "trace.cat.master_weights": {"en": "fp32 master weights", "es": "pesos maestros fp32"},
    "trace.cat.gradients": {"en": "gradients", "es": "gradientes"},
    "trace.cat.optimizer_states": {"en": "optimizer states", "es": "estados del optimizador"},
    "trace.cat.activations": {"en": "activations", "es": "activaciones"},
    "trace.cat.logits_loss": {"en": "logits and loss", "es": "logits y pérdida"},
    "trace.cat.transient": {"en": "transient buffers", "es": "búferes transitorios"},
    "trace.phase.forward": {"en": "forward", "es": "forward (propagación)"},
    "trace.phase.backward": {"en": "backward", "es": "backward (retropropagación)"},
    "trace.phase.optimizer": {"en": "optimizer step", "es": "paso del optimizador"},
}
