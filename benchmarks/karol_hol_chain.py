"""Exact saturation throughput of an N x N input-queued FIFO switch (Karol, Hluchyj, Morgan 1987).

Every input always has cells; each output serves one of the head-of-line (HOL) cells addressed
to it, chosen at random, and a served input's next HOL cell goes to a uniform output. The state
is the sorted vector of HOL cells per output (the outputs are exchangeable), a finite Markov
chain; the throughput is E[number of outputs with a HOL cell] / N under its stationary law,
found here by power iteration. Pure Python, N <= 8 in a few seconds.

    python benchmarks/karol_hol_chain.py
"""

from __future__ import annotations

import itertools
import math


def compositions(k: int, n: int):
    """Every way to put k balls into n ordered bins."""
    for bars in itertools.combinations(range(k + n - 1), n - 1):
        edges = (-1, *bars, k + n - 1)
        yield [edges[i + 1] - edges[i] - 1 for i in range(n)]


def partitions(total: int, parts: int, largest: int | None = None):
    """Non-increasing vectors of `parts` non-negative integers summing to `total`."""
    largest = total if largest is None else largest
    if parts == 0:
        if total == 0:
            yield ()
        return
    for v in range(min(total, largest), -1, -1):
        for rest in partitions(total - v, parts - 1, v):
            yield (v, *rest)


def throughput(n: int, sweeps: int = 20_000) -> float:
    states = list(partitions(n, n))
    index = {s: i for i, s in enumerate(states)}
    moves = {
        k: [
            (c, math.factorial(k) / math.prod(math.factorial(x) for x in c) / n**k)
            for c in compositions(k, n)
        ]
        for k in range(n + 1)
    }
    step: list[dict[int, float]] = []
    for s in states:
        served = sum(1 for c in s if c > 0)
        left = [c - 1 if c > 0 else 0 for c in s]
        row: dict[int, float] = {}
        for c, pr in moves[served]:
            t = tuple(sorted((a + b for a, b in zip(left, c, strict=True)), reverse=True))
            row[index[t]] = row.get(index[t], 0.0) + pr
        step.append(row)
    pi = [1.0 / len(states)] * len(states)
    for _ in range(sweeps):
        new = [0.0] * len(states)
        for i, row in enumerate(step):
            for j, pr in row.items():
                new[j] += pi[i] * pr
        pi = new
    busy = sum(pi[index[s]] * sum(1 for c in s if c > 0) for s in states)
    return busy / n


if __name__ == "__main__":
    for n in range(1, 9):
        print(f"N={n}: {throughput(n):.6f}")
    print(f"N=inf: {2 - math.sqrt(2):.6f}")
