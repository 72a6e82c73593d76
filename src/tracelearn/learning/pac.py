"""PAC equivalence by sampling (Angluin 1987; Pac-Man Sec. 4.3, eq. 1).

The i-th equivalence query (i from 1) passes when q_i samples fall in the hypothesis'
language, q_i = ceil((ln(1 / (1 - delta)) + i ln 2) / epsilon), delta the
*confidence*. Then, with probability at least delta, the hypothesis errs on a sample
with probability at most epsilon (the sum over all queries of the chances to pass a
bad hypothesis is at most 1 - delta). With Pac-Man's batched samples a sample is a
batch of k vectors and the error is that of a batch (eq. 3).
"""

from __future__ import annotations

import math


def batches_needed(i: int, epsilon: float, delta: float) -> int:
    if i < 1:
        raise ValueError("equivalence queries are numbered from 1")
    if not 0 < epsilon < 1 or not 0 < delta < 1:
        raise ValueError("epsilon and delta must lie strictly between 0 and 1")
    return math.ceil((math.log(1 / (1 - delta)) + i * math.log(2)) / epsilon)
