"""``python -m services.cli``: the ``teoti`` command (:func:`services.cli.main`)."""

import sys

from services.cli import main

sys.exit(main())
