"""The L4S reproduction's figures and summary table (``aqmlab.experiments.l4s``): the
throughput balance as a heat map over RTT pairs, one panel per AQM, and the queueing-delay
CDFs of the two flows under each AQM."""

from __future__ import annotations

import math

from aqmlab.claims import fmt


def figures(ctx, m, rates, rtts, aqms, quantiles) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(aqms)
    for rate in rates:
        fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.4), sharey=True)
        for ax, aqm in zip(axes, names, strict=True):
            grid = np.array(
                [
                    [
                        math.log2(
                            m[(aqm, rate, rp, rc)]["prague_bps"]
                            / m[(aqm, rate, rp, rc)]["cubic_bps"]
                        )
                        for rc in rtts
                    ]
                    for rp in rtts
                ]
            )
            im = ax.imshow(grid, cmap="RdBu_r", vmin=-4, vmax=4, origin="lower")
            ax.set_xticks(range(len(rtts)), [f"{r:g}" for r in rtts])
            ax.set_yticks(range(len(rtts)), [f"{r:g}" for r in rtts])
            ax.set_xlabel("CUBIC base RTT (ms)")
            ax.set_title(aqm)
            for i in range(len(rtts)):
                for j in range(len(rtts)):
                    ax.text(j, i, f"{2 ** grid[i, j]:.2g}", ha="center", va="center", fontsize=8)
        axes[0].set_ylabel("Prague base RTT (ms)")
        fig.colorbar(im, ax=axes, label="log2(Prague / CUBIC throughput)", shrink=0.8)
        fig.suptitle(f"Throughput balance at {rate}: Prague / CUBIC (1 = equal)")
        path = ctx.out / f"l4s_balance_{rate}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        ctx.figure(f"Throughput balance over RTT pairs at {rate}, per AQM", path)

    rate = rates[-1]
    rtt = 20.0 if 20.0 in rtts else rtts[0]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for k, aqm in enumerate(names):
        r = m[(aqm, rate, rtt, rtt)]
        for flow, style in (("prague", "-"), ("cubic", "--")):
            xs = [
                max(r[f"{flow}_q{round(100 * p):02d}"] - r[f"base_{flow}"], 1e-6) * 1e3
                for p in quantiles
            ]
            ax.plot(xs, quantiles, style, color=f"C{k}", marker="o", ms=3, label=f"{aqm} {flow}")
    ax.set_xscale("log")
    ax.set_xlabel("queueing delay: srtt − base RTT (ms, log scale)")
    ax.set_ylabel("fraction of samples below")
    ax.set_title(f"Queueing delay CDFs, {rate}, both base RTTs {rtt:g} ms")
    ax.legend(fontsize=7, ncol=2)
    path = ctx.out / "l4s_delay_cdf.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    ctx.figure(f"Queueing delay CDFs of the two flows at {rate}, equal RTTs of {rtt:g} ms", path)

    lines = [
        f"Per AQM at {rate}, both base RTTs {rtt:g} ms:",
        "",
        "| AQM | Prague Mb/s | CUBIC Mb/s | Prague delay p50 / p99 (ms) "
        "| CUBIC delay p50 / p99 (ms) | utilisation | drop rate | mark rate |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for aqm in names:
        r = m[(aqm, rate, rtt, rtt)]

        def d(flow, q, r=r):
            return fmt(1e3 * (r[f"{flow}_q{q}"] - r[f"base_{flow}"]))

        lines.append(
            f"| {aqm} | {fmt(r['prague_bps'] / 1e6)} | {fmt(r['cubic_bps'] / 1e6)} "
            f"| {d('prague', 50)} / {d('prague', 99)} | {d('cubic', 50)} / {d('cubic', 99)} "
            f"| {fmt(r['util'])} | {fmt(r['drop_rate'])} | {fmt(r['mark_rate'])} |"
        )
    ctx.notes.append("\n".join(lines))
