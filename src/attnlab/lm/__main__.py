import sys

from attnlab.lm.cli import main

sys.exit(main())
