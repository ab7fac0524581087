"""Live presenting: a Jupyter server with RISE whose slideshow looks and behaves like the static deck.

``server`` starts and stops the Jupyter server (run as ``python -m jaxdeck.live.jupyter``);
``contents`` serves a Markdown deck as its slideshow notebook, cut into the static deck's
slides by ``pieces``, its MyST shown as JupyterLab renders it by ``myst_view``, what those
rewrites replaced kept in each cell by ``stash``; ``labextensions/jaxdeck-live/`` is the small
front-end extension loaded into RISE's page (projector look, columns, notes,
run/interrupt/restart/recover keys, widget support).
"""
