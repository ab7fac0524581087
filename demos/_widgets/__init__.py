"""The pieces behind :mod:`demos.widgets`: the shared explorer plumbing, the line chart, each explorer."""
