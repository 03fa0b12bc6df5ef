"""The ``qifkit`` command line, at the top of the layers: the parser and dispatch
(:mod:`~proofs_checks.cli.app`), one module per command, and the commands' shared input and output
(:mod:`~proofs_checks.cli.io`) and statuses (:mod:`~proofs_checks.cli.base`).

- ``qifkit check [--only GLOB ...] [--json FILE] [--markdown FILE] [--full] [--list]``
- ``qifkit refine A.csv B.csv [--json FILE]`` and ``qifkit verify A.csv B.csv CERT.json``
- ``qifkit stability SPEC.toml [--json FILE] [--certificate DIR] [--time-limit SECONDS] [--plot FILE]``
- ``qifkit enumerate {LDP,U,F,RU,RF} --n N --eps-exp E [--method ...] [--orbits] [--json FILE]``
- ``qifkit construct`` (Kohli and Laskowski) and ``qifkit design`` (Cormode et al.)

Every command takes ``-q`` (results only), ``-v`` (how each answer was reached) and ``--debug``.
"""

from proofs_checks.cli.app import main
from proofs_checks.cli.base import UsageError

__all__ = ["main", "UsageError"]
