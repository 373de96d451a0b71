"""`python -m torchshim run script.py [args...]` and `python -m torchshim check script.py [args...]`
(the command line lives in torchshim/_cli/)."""
import sys

from ._cli import main

sys.exit(main())
