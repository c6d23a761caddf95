import sys

from gcbridge.console import main

sys.exit(main())
