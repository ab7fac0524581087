"""Stage 4, pdf: an HTML deck -> PDF slides and a handout, printed by a real Chromium.

``export`` prints both files from one laid-out page; ``printer`` runs the browser on a
thread of its own so that it starts while the first deck executes.
"""
