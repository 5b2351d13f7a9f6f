"""Benchmarks for issue 4 ("Scale and speed"): ``python -m benchmarks``.

For each case the certified engine (:func:`gpu_rs.tail`, :func:`gpu_rs.calibrate`) is timed
in a child process, with its peak memory, next to three baselines
(:mod:`benchmarks.baselines`): Monte Carlo at equal wall time, naive repeated squaring on a
fixed grid, and the seed's 3σ rule. ``docs/benchmarks.md`` holds a measured run.

Modules
-------
cases
    The cases (issue-4 targets, growth in ``N`` and in ``L``) and the functions run in children.
baselines
    Monte Carlo with a Clopper–Pearson interval; naive FFT repeated squaring on a grid.
measure
    Runs a task in a spawned child and measures wall time, peak RSS and tracemalloc peak.
report
    Plain-text and Markdown tables.
gpu_check
    ``--gpu-check OUTDIR``: CuPy tests, the doctor's parity, CPU-against-GPU timings (issue 30).
"""
