"""Measured pilots: real training steps on a GPU node (or this CPU), reported back as events.

    spec         PilotSpec: what one pilot runs (resolved spec, architecture, GPU, steps)
    runner       `python -m advisor.pilot`: builds the model, runs warm-up and measured steps,
                 measures memory, throughput and checkpoint time, writes a provenance manifest
    events       the JSON-lines event stream (started, progress, finished, failed)
    launchers    where it runs: local (a subprocess) or ray (a detached actor on a cluster)
    store        pilot state, measured results and calibration in the state database
    calibration  measured MFU and reserved/allocated ratios for later estimates
    predict      what the estimate says a pilot will measure, and what it will cost

Nothing here imports torch or ray at module level.
"""
