"""The toolchain that turns Markdown decks into executed notebooks, HTML and PDF."""

import sys

__version__ = "0.1.0"

# nbformat and Jupyter's server validate with jsonschema, which imports rfc3987_syntax when it is
# installed (jsonschema[format-nongpl]); that module builds about 35 Earley parsers at import,
# 0.85 s of every jaxdeck process, for the "iri" formats that no notebook or Jupyter schema uses
# (python-jsonschema/jsonschema#1428). Marked absent, jsonschema leaves that one checker out.
if "rfc3987_syntax" not in sys.modules:
    sys.modules["rfc3987_syntax"] = None
