"""Words of the step-time model (advisor.steptime): operator classes, the answer's step-time
line, and `advisor trace`'s step-time breakdown."""

MESSAGES = {
    "steptime.class.matmul": {"en": "matmuls", "es": "multiplicaciones de matrices"},
    "steptime.class.attention": {"en": "attention", "es": "atención"},
    "steptime.class.dequantize": {"en": "dequantize", "es": "descuantización"},
    "steptime.class.elementwise": {"en": "elementwise (norms, activations, casts)",
                                   "es": "elemento a elemento (normas, activaciones, conversiones)"},
    "steptime.class.loss": {"en": "loss", "es": "pérdida"},
    "steptime.class.optimizer": {"en": "optimizer", "es": "optimizador"},
    "steptime.class.communication": {"en": "communication", "es": "comunicación"},
    "steptime.class.overhead": {"en": "host overhead", "es": "sobrecarga del host"},
    "steptime.answer": {
        "en": "Step time on {gpu}: {step} per step; {parts}",
        "es": "Tiempo de paso en {gpu}: {step} por paso; {parts}",
    },
    "steptime.trace.title": {
        "en": "Step time on {gpu}: {step_s} s per step of {tokens} tokens, {tps} tokens/s (roofline of the {ops} traced operators)",
        "es": "Tiempo de paso en {gpu}: {step_s} s por paso de {tokens} tokens, {tps} tokens/s (roofline de los {ops} operadores trazados)",
    },
    "steptime.trace.col.class": {"en": "Operators", "es": "Operadores"},
    "steptime.trace.col.time": {"en": "Time", "es": "Tiempo"},
    "steptime.trace.estimate": {
        "en": "Closed form (what answers use): {tps} tokens/s ({error} vs the traced operators)",
        "es": "Forma cerrada (la de las respuestas): {tps} tokens/s ({error} frente a los operadores trazados)",
    },
    "steptime.trace.other_gpus": {"en": "Other GPUs: {items}", "es": "Otras GPUs: {items}"},
    "steptime.trace.recorded": {
        "en": "Recorded the step's operators with fake tensors in {seconds} s.",
        "es": "Se registraron los operadores del paso con tensores falsos en {seconds} s.",
    },
}
