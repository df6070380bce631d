#!/usr/bin/env python3
"""Prints the reference constants of test_stats_mwu.c (not run by CTest).

Run once with /usr/bin/python3 and Debian 12's python3-scipy (scipy 1.10.1)
(the interpreter on PATH may lack it); the output was
pasted into test_stats_mwu.c. U is scipy's statistic for x (U1); p is two-sided.
"""
import scipy
from scipy.stats import mannwhitneyu

CASES = {
    "sep5": ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),
    "inter3": ([1.1, 2.2, 3.3], [1.5, 2.5, 3.5]),
    "gf5v6": ([19.2, 20.1, 18.7, 21.3, 19.9],
              [22.4, 20.5, 23.1, 21.9, 22.0, 24.2]),
    "mid12v15": ([3.1, 4.7, 2.2, 5.9, 6.3, 1.8, 7.4, 4.1, 5.2, 8.8, 3.6, 6.9],
                 [5.5, 7.1, 9.2, 6.6, 4.4, 8.1, 7.7, 10.3, 5.8, 9.9, 6.2,
                  8.4, 7.3, 11.0, 4.9]),
    "ties7v8": ([1, 2, 2, 3, 3, 3, 4], [2, 3, 3, 4, 4, 5, 5, 6]),
    "same4": ([5, 5, 5, 5], [5, 5, 5, 5]),
    "big60v55": ([i * 1.7 % 13.1 + 0.013 * i for i in range(60)],
                 [i * 2.3 % 11.7 + 1.5 + 0.011 * i for i in range(55)]),
    "inter50": ([2 * i for i in range(50)], [2 * i + 1 for i in range(50)]),
}

print("scipy", scipy.__version__)
for name, (x, y) in CASES.items():
    for method in ("exact", "asymptotic"):
        r = mannwhitneyu(x, y, alternative="two-sided", method=method)
        print(f"{name} {method}: U={r.statistic!r} p={r.pvalue!r}")
