"""``python -m qifkit``: the ``qifkit`` command, whose home is the command line at the apex of the layers
(:mod:`proofs_checks.cli`)."""

import sys

from proofs_checks.cli.app import main

sys.exit(main())
