"""Reference values for bench/stats tests, computed independently of the Go
code from the published formulas (plain Python, no dependencies):

- Van den Bergh, "Maximum likelihood estimation of multinomial distributions
  with a given expectation value" (support_MLE_multinomial.pdf), Prop. 1.1;
- Van den Bergh, "Normalized Elo, practical" (normalized_elo_practical.pdf),
  section 4.1 (MLE with a given t-value).

The secular equation is solved here with Newton's method safeguarded by
bisection (the Go code bisects only), and the t-value fixed point is iterated
until the constraint holds to 1e-12. Run: python3 llr_reference.py
"""
import math

VALUES = [0, 0.25, 0.5, 0.75, 1]
NELO_PER_T = 800 / math.log(10)


def solve_secular(b, w):
    lo, hi = -1 / max(b), -1 / min(b)
    f = lambda x: sum(wi * bi / (1 + x * bi) for bi, wi in zip(b, w))
    df = lambda x: -sum(wi * bi * bi / (1 + x * bi) ** 2 for bi, wi in zip(b, w))
    x = 0.0
    for _ in range(500):
        fx = f(x)
        if fx > 0:
            lo = x
        else:
            hi = x
        nx = x - fx / df(x)
        if not (lo < nx < hi):
            nx = (lo + hi) / 2
        if abs(nx - x) < 1e-16:
            break
        x = nx
    return x


def pdf(counts):
    c = [x if x > 0 else 1e-3 for x in counts]
    n = sum(c)
    return n, [x / n for x in c]


def moments(q):
    mu = sum(qi * a for qi, a in zip(q, VALUES))
    var = sum(qi * (a - mu) ** 2 for qi, a in zip(q, VALUES))
    return mu, var


def mle_mean(p, s):
    b = [a - s for a in VALUES]
    x = solve_secular(b, p)
    q = [pi / (1 + x * bi) for pi, bi in zip(p, b)]
    assert abs(moments(q)[0] - s) < 1e-12
    return q


def mle_t(p, ref, t):
    q = [0.2] * 5
    for _ in range(1000):
        mu, var = moments(q)
        sd = math.sqrt(var)
        b = [a - ref - t * (var + (a - mu) ** 2) / (2 * sd) for a in VALUES]
        x = solve_secular(b, p)
        q = [pi / (1 + x * bi) for pi, bi in zip(p, b)]
        mu, var = moments(q)
        if abs((mu - ref) / math.sqrt(var) - t) < 1e-13:
            break
    return q


def llr(counts, elo0, elo1, model):
    n, p = pdf(counts)
    if model == "logistic":
        L = lambda e: 1 / (1 + 10 ** (-e / 400))
        q0, q1 = mle_mean(p, L(elo0)), mle_mean(p, L(elo1))
    else:
        t0, t1 = (e / NELO_PER_T * math.sqrt(2) for e in (elo0, elo1))
        q0, q1 = mle_t(p, 0.5, t0), mle_t(p, 0.5, t1)
    return n * sum(pi * (math.log(b) - math.log(a)) for pi, a, b in zip(p, q0, q1))


CASES = [
    ([10, 20, 40, 20, 10], 0, 5, "normalized"),
    ([10, 20, 40, 20, 10], 0, 5, "logistic"),
    ([12, 180, 550, 230, 28], 0, 5, "normalized"),
    ([12, 180, 550, 230, 28], 0, 5, "logistic"),
    ([0, 3, 10, 6, 1], -5, 0, "normalized"),
    ([40, 300, 900, 280, 30], 0, 2, "normalized"),
    ([0, 0, 5, 0, 0], 0, 5, "logistic"),
]

if __name__ == "__main__":
    for counts, e0, e1, model in CASES:
        print(counts, e0, e1, model, "%.10f" % llr(counts, e0, e1, model))
