"""The pieces behind :mod:`demos.timing`: the measuring loop, its results, comparisons, verdicts."""
