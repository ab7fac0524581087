"""The pieces behind :mod:`demos.tracing`: call signatures, the watched function, JAX's own log."""
