"""``python -m helmlite.cli`` is the ``helmlite`` command (as ``python -m helmlite``)."""
import sys

from .main import main

sys.exit(main())
