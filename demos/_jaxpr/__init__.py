"""The pieces behind :mod:`demos.jaxpr`: IR lexers, the HLO text parser, and the views."""
