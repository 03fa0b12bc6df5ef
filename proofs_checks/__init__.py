"""proofs_checks: the claims of the four papers, one registered check each, and the report.

``qifkit check`` (see :mod:`proofs_checks.cli`) runs them; :func:`proofs_checks.registry.registry`
lists them.
"""
