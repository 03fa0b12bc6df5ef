"""The sizes and work the deploy gate allows, each a choice by the spec's size, never by the clock (read at
call time as ``limits.NAME``, so that a caller may lower one).
"""

from __future__ import annotations

#: The largest secret space (rows) a spec may ask for.
MAX_ROWS = 10**6


#: The largest pipeline (secrets × outputs) a spec may ask for: about 10^7 exact entries.
MAX_ENTRIES = 10**7


#: The largest perturber side (values, or respondents + 1 for argmax): an exact square matrix.
MAX_PERTURBER = 1000
#: The most work an exact perturber at one grid e^ε may ask: side³ × the bits of e^ε (a geometric
#: perturber on 1,000 values at e^ε = 2 is 3·10^9; at e^ε = 10^9, 31 bits, ten times that).
PERTURBER_WORK = 4 * 10**9
#: How many times a geometric perturber's work Kohli and Laskowski's fixed-point construction asks
#: at the same side and e^ε (construction, verification and conversion), so that it meets the same
#: :data:`PERTURBER_WORK`: about 380 values at e^ε = 2 (docs/benchmarks.md, "Limits").
FIXED_POINT_WORK_FACTOR = 25
#: The most values of Cormode et al.'s weakly honest mechanism, an exact LP of values² variables at
#: each e^ε, whose time grows steeply with the values (docs/benchmarks.md, "Limits").
WEAKLY_HONEST_MAX_VALUES = 60


#: The most values of an expression perturber: its privacy on a range is values²·(values − 1) sign proofs.
MAX_EXPRESSION_VALUES = 20


#: The largest pipeline (secrets × outputs) whose analyst is followed over a [sweep] range: that
#: builds it with entries that are rational functions of e^ε, whose cost grows with the entries and
#: their degree (App. D.1's 7 × 5 is quick; the survey's 286 × 31 is not, ``bench_stability.py``).
#: Larger ones are sampled in floats and each rise seen is re-decided exactly at its ends
#: (:data:`RANGE_SAMPLES` points), unless every analyst is proved safe anyway.
RANGE_MAX_ENTRIES = 2000


#: The longest polynomial a histogram query is worked out on (N·(N+1)^(K−1) + 1 terms for N
#: respondents over K values, :func:`qifkit.pipelines.histogram_pipeline`).
HISTOGRAM_MAX_LENGTH = 200_000


#: How many e^ε of a range a pipeline beyond :data:`RANGE_MAX_ENTRIES` (or
#: :data:`RANGE_FOLLOW_WORK`) is sampled at, in float64.
RANGE_SAMPLES = 200


#: The most symbolic work (pipeline entries × degree² in e^ε, the estimate :func:`describe_work`
#: prints) on which a range's analyst is followed exactly straight away. Root isolation grows with
#: the cube of the degree, so beyond it the loss is first searched in float64 and a rise that exact
#: losses confirm decides the verdict (NOT stable) at once; when none is confirmed, ball arithmetic
#: (the queries whose ``Query.ball`` is true) and then, where pieces remain undecided, the exact route (within
#: :data:`RANGE_MAX_ENTRIES`) follow the analyst at every e^ε. A choice by the spec's size, never by
#: the clock.
RANGE_FOLLOW_WORK = 4_000_000


#: Ball arithmetic (:mod:`qifkit.ball_range`), tried after the float search and before root
#: isolation for the queries that tally the reports, works within this much work
#: (:func:`~proofs_checks.gate.ranges.ball_route`): enclosures × their cost, the tallies' length ×
#: (values + secrets + actions); a choice by size, never by the clock ...
BALL_WORK = 4_000_000


#: ... and not tried where that allows fewer enclosures than this (census scale: 10^5 a piece).
BALL_MIN_PIECES = 200


#: How many undecided stretches of the ball route the report lists.
SHOWN_STRETCHES = 5


#: The largest pipelines (secrets × outputs) an instability's certificate carries, for
#: ``qifkit verify``; beyond it (census scale: 6 × 11,711 entries of tens of thousands of digits)
#: the report keeps the prior, loss and exact losses, and says that the pipelines were not formed.
MAX_CERTIFIED_ENTRIES = 20_000


#: A range that no proof covers is searched for a two-secret analyst whose loss rises (every pair of
#: at most this many secrets; :func:`qifkit.stability.dichotomy_risks`) ...
DICHOTOMY_MAX_SECRETS = 10


#: ... and the largest rises of this many pairs are re-decided exactly.
DICHOTOMY_CONFIRMATIONS = 3


#: The longest number string of a spec (a prior's entry, a scale, a sensitivity), checked before it
#: is read: exact work on a 90,000-digit prior would run for minutes for nothing.
MAX_SPEC_NUMBER_TEXT = 1000
