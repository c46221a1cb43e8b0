"""``python -m pyshade``: the same as the ``pyshade`` command."""

import sys

from .cli import main

sys.exit(main())
