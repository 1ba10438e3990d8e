"""`python -m tcpstart` is the `tcpstart` command."""

import sys

from tcpstart.cli import main

sys.exit(main())
