"""rta_fixpoint: the piecewise search gives exactly what the plain fixed-point search gives.

``least_response`` walks the linear pieces of the Bertogna–Cirinei interference
instead of evaluating it at every iterate; it must return the same R (or None)
as ``least_bound`` on the same f, including after CREEP_STEPS steps, where the
bisection starts from the iterate reached, and the pieces must be exact.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched.analysis.rta_fixpoint import CREEP_STEPS, NO_BOUND, Interference, least_bound, least_response

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

terms = st.lists(
    st.tuples(st.integers(1, 40), st.integers(1, 60), st.integers(-30, 60),
              st.one_of(st.just(NO_BOUND), st.integers(0, 120))),
    max_size=8)


@SETTINGS
@given(c=st.integers(1, 30), m=st.integers(1, 4), terms=terms, r=st.integers(0, 400))
def test_a_piece_is_exact_over_its_span(c, m, terms, r):
    f = Interference(c, m, terms)
    total, slope, span = f.piece(r)
    for d in range(min(span, 150)):
        cap = r + d - c + 1
        expected = 0
        for c_i, t_i, lag_i, e_i in terms:
            x = r + d + lag_i
            w = 0 if x < 0 else (x // t_i) * c_i + min(c_i, x - (x // t_i) * t_i)
            expected += min(w, e_i, cap)
        assert total + slope * d == expected, (d, span)


@SETTINGS
@given(c=st.integers(1, 30), m=st.integers(1, 4), terms=terms, limit=st.integers(1, 3000))
def test_same_answer_as_the_plain_search(c, m, terms, limit):
    f = Interference(c, m, terms)
    assert least_response(f, max(limit, c)) == least_bound(f, c, max(limit, c))


def test_same_answer_after_the_creeping_budget():
    """m tasks capped at R − C + 1 make every step add 1 ns: the plain search creeps CREEP_STEPS
    steps, then bisects; the piecewise one jumps there and bisects from the same iterate."""
    for m in (1, 2, 4):
        f = Interference(5, m, [(10**6, 10**7, 0, NO_BOUND)] * m + [(3, 7, 2, 40)])
        for limit in (5 + CREEP_STEPS - 3, 5 + CREEP_STEPS + 3, 10**5, 10**6):
            assert least_response(f, limit) == least_bound(f, 5, limit)
