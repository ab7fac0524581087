"""The toolchain that turns Markdown decks into executed notebooks, HTML and PDF."""

__version__ = "0.1.0"
