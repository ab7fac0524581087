"""Live presenting: a Jupyter server with RISE whose slideshow looks and behaves like the static deck.

``server`` starts and stops the Jupyter server (run as ``python -m jaxdeck.live.jupyter``), in a private
folder set up by ``home``, listening on sockets ``listening`` binds for it;
``contents`` serves a Markdown deck as its slideshow notebook, cut into the static deck's
slides by ``pieces``, its MyST shown as JupyterLab renders it by ``myst_view``, what those
rewrites replaced kept in each cell by ``stash``; ``extension/`` holds the TypeScript of the
JupyterLab extension loaded into RISE's page (columns, notes, run/interrupt/restart/recover
keys, widget support), which ``make`` builds into ``labextensions/jaxdeck-live/``; the
projector look is CSS the server serves with the deck's theme (``contents.live_css``).
"""
