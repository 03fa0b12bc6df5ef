"""``python -m proofs_checks.cli``: the ``qifkit`` command."""

import sys

from proofs_checks.cli.app import main

sys.exit(main())
