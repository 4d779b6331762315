import sys

from attnlab.translate.cli import main

sys.exit(main())
