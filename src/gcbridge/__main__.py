import sys

from gcbridge.cli import main

sys.exit(main())
