import sys

from jaxdeck.cli import main

sys.exit(main())
