"""`python -m torchshim run script.py [args...]` and `python -m torchshim check script.py [args...]`."""
import sys

from ._cli import main

sys.exit(main())
