"""``python -m scorpion_client``: the ``scorpion`` terminal client."""

import sys

from scorpion_client._entry import main

sys.exit(main())
