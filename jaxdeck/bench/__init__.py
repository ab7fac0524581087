"""`make bench`: build times per stage (``pipeline``) and the preview's edit loop (``edit_loop``)."""
