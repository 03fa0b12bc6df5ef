"""Checks of Alvim, Fernandes, McIver, Morgan and Nunes, "A Novel Analysis of Utility in Privacy
Pipelines, Using Kronecker Products and Quantitative Information Flow", CCS 2023, by topic:
:mod:`.mechanisms`, :mod:`.refinement` and :mod:`.stability`; the values the paper prints, which
several topics compare with, are in :mod:`.values` (a paper with one module keeps them at its top).
"""
