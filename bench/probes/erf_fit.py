"""Probe: the polynomials of pyshade/prelude_math.py's erf and erfc, fitted here and checked
by evaluating them in f32 arithmetic (numpy float32, each operation rounded) against
Python's math.erf/erfc.

- erf(x) = x + x * R(x*x) on [0, 1]: R fitted to erf(x)/x - 1 in z = x*x.
- erfc(x) = exp(-x*x) * Q(t), t = 1 / (1 + x/2), on [0.5, 10.1]: Q fitted to
  erfc(x) * exp(x*x). exp(-x*x) is evaluated with x*x split exactly (h*h, h the top 12
  bits of x, plus (x - h) * (x + h)), each exp correctly rounded here.

Least squares on Chebyshev nodes with relative weights (numpy's chebfit), converted to
monomials for Horner's rule. Degree 6 for R, 9 for Q: the printed maximum errors (about
1.2 and 5 ulp) are what the prelude reaches with exact f32 arithmetic.

    python bench/probes/erf_fit.py
"""

from __future__ import annotations

import math

import numpy as np

f32 = np.float32


def fit(fun, a: float, b: float, deg: int, n: int = 4000) -> np.ndarray:
    """Monomial coefficients (lowest first) of the relative least-squares fit of ``fun``."""
    v = np.cos(np.linspace(0, np.pi, n))
    t = (v + 1) / 2 * (b - a) + a
    f = np.array([fun(x) for x in t])
    cheb = np.polynomial.chebyshev.chebfit(v, f, deg, w=1 / np.abs(f))
    p = np.polynomial.Polynomial(np.polynomial.chebyshev.cheb2poly(cheb))
    return p(np.polynomial.Polynomial([-(a + b) / (b - a), 2 / (b - a)])).coef


def horner(coef: np.ndarray, t: np.float32) -> np.float32:
    r = f32(coef[-1])
    for c in coef[-2::-1]:
        r = f32(f32(r * t) + f32(c))
    return r


def top12(x: np.float32) -> np.float32:
    return (np.float32(x).view(np.uint32) & np.uint32(0xFFFFF000)).view(np.float32)


def ulp(got: float, exact: float) -> float:
    sp = float(np.spacing(f32(exact))) if exact >= 2.0 ** -126 else 2.0 ** -149
    return abs(got - exact) / sp


def main() -> None:
    r = fit(lambda z: math.erf(math.sqrt(z)) / math.sqrt(z) - 1 if z > 0
            else 2 / math.sqrt(math.pi) - 1, 0.0, 1.0, 6)
    worst = max(ulp(float(f32(x + f32(x * horner(r, f32(x * x))))), math.erf(float(x)))
                for x in np.linspace(1e-4, 1, 20001).astype(np.float32))
    print("R (erf on [0, 1]):", [repr(float(c)) for c in r], f"max {worst:.2f} ulp")

    q = fit(lambda t: math.erfc(2 / t - 2) * math.exp((2 / t - 2) ** 2),
            1 / (1 + 0.5 * 10.1), 1 / (1 + 0.5 * 0.5), 9)
    worst = 0.0
    for x in np.linspace(0.5, 10.05, 40001).astype(np.float32):
        t = f32(f32(1) / f32(f32(1) + f32(f32(0.5) * x)))
        h = top12(x)
        e1 = f32(math.exp(-float(h) * float(h)))
        e2 = f32(math.exp(float(f32(-f32(f32(x - h) * f32(x + h))))))
        worst = max(worst, ulp(float(f32(f32(e1 * e2) * horner(q, t))), math.erfc(float(x))))
    print("Q (erfc on [0.5, 10.1]):", [repr(float(c)) for c in q], f"max {worst:.2f} ulp")


if __name__ == "__main__":
    main()
