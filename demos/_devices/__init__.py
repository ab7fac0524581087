"""The pieces behind :mod:`demos.devices`: the settings that must precede JAX's start (``environment``),
facts about the machine (``facts``), the ``banner``, the implicit ``transfers`` a guard refused, and the
machine's ``balance``, measured."""
