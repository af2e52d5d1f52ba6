"""``python -m essence2_service``: the service and its admin commands."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
