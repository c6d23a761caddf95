"""``python -m gcbridge.vectors``."""

import sys

from gcbridge.vectors import main

sys.exit(main())
