"""``python -m scorpion_client``: the ``scorpion`` terminal client."""

import sys

from scorpion_client.cli import main

sys.exit(main())
