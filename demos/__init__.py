"""What demo cells import: honest timing, visible tracing, jaxpr/HLO display, devices, widgets."""

__version__ = "0.1.0"
