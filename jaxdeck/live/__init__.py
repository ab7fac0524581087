"""Live presenting: a Jupyter server with RISE whose slideshow looks and behaves like the static deck.

``server`` starts and stops the Jupyter server; ``contents`` serves a Markdown deck as its
slideshow notebook; ``labextension/`` is the small front-end extension loaded into RISE's page
(projector look, columns, notes, run/interrupt/restart/recover keys, widget support).
"""
