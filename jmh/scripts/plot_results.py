#!/usr/bin/env python3
"""Turns JMH JSON results of the Permafrost benchmarks into a chart and a ratio table.

Usage: plot_results.py RESULT.json [MORE.json ...] [-o chart.png]

Reads WarmSearchBenchmark (directory = blob / mmap / niofs) and ColdSearchBenchmark results, prints per workload
the warm blob/mmap and blob/niofs ratios and the cold time with its request counts, and draws one group of bars
per workload: cold (modelled object store), warm BlobDirectory, MMapDirectory, NIOFSDirectory, on a log scale.
Needs matplotlib (pip install -r jmh/scripts/requirements.txt) for the chart; the table prints without it.
"""
import argparse
import json
import statistics
import sys


def load(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            runs.extend(json.load(f))
    return runs


def number(value):
    """A JMH score as a float; JMH writes NaN as the string "NaN"."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def to_ms(score, unit):
    factor = {"ms/op": 1.0, "us/op": 1e-3, "ns/op": 1e-6, "s/op": 1e3}.get(unit)
    if factor is None:
        raise ValueError("unexpected unit " + unit)
    return score * factor


def per_invocation(metric):
    """Aux counters are summed over a single-shot run's iterations; the mean of the raw data is per invocation."""
    values = [v for fork in metric["rawData"] for v in fork]
    return statistics.mean(values) if values else float("nan")


def collect(runs):
    """Returns {workload: {series: (ms, error_ms)}} and {workload: {counter: value}} for the cold runs."""
    times, cold_counts = {}, {}
    for run in runs:
        name = run["benchmark"].rsplit(".", 2)[-2]
        params = run.get("params", {})
        workload = params.get("workload")
        pm = run["primaryMetric"]
        ms = to_ms(number(pm["score"]), pm["scoreUnit"])
        error = number(pm["scoreError"])  # JMH writes "NaN" (a string) when it has no error estimate
        err = to_ms(error, pm["scoreUnit"]) if error == error else 0.0
        if name == "WarmSearchBenchmark":
            series = {"blob": "warm BlobDirectory", "mmap": "MMapDirectory", "niofs": "NIOFSDirectory"}[params["directory"]]
        elif name == "ColdSearchBenchmark":
            series = "cold (%s)" % ("MinIO" if params.get("store") == "s3" else "modelled S3")
            cold_counts.setdefault(workload, {}).update(
                {k: per_invocation(v) for k, v in run.get("secondaryMetrics", {}).items()})
        else:
            continue
        times.setdefault(workload, {})[series] = (ms, err)
    return times, cold_counts


def print_table(times, cold_counts):
    print("| workload | cold ms | requests | bytes fetched | chain/thread | waves | warm blob ms | mmap ms | niofs ms | blob/mmap | blob/niofs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for workload in sorted(times):
        t = times[workload]
        c = cold_counts.get(workload, {})
        cold = next((v[0] for k, v in t.items() if k.startswith("cold")), float("nan"))
        blob = t.get("warm BlobDirectory", (float("nan"),))[0]
        mmap = t.get("MMapDirectory", (float("nan"),))[0]
        niofs = t.get("NIOFSDirectory", (float("nan"),))[0]
        print("| %s | %.1f | %.0f | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f | %.2f | %.2f |" % (
            workload, cold, c.get("requests", float("nan")), c.get("bytesFetched", float("nan")),
            c.get("chainPerThread", float("nan")), c.get("roundTripWaves", float("nan")),
            blob, mmap, niofs, blob / mmap, blob / niofs))


def plot(times, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted(times)
    series = sorted({s for t in times.values() for s in t}, key=lambda s: (not s.startswith("cold"), s))
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(9, 5))
    for i, s in enumerate(series):
        xs = [w + i * width for w in range(len(workloads))]
        ys = [times[w].get(s, (0, 0))[0] for w in workloads]
        errs = [times[w].get(s, (0, 0))[1] for w in workloads]
        bars = ax.bar(xs, ys, width, yerr=errs, label=s, capsize=2)
        for bar, y in zip(bars, ys):
            if y > 0:
                ax.annotate("%.3g" % y, (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom", fontsize=7)
    ax.set_xticks([w + width * (len(series) - 1) / 2 for w in range(len(workloads))])
    ax.set_xticklabels(workloads)
    ax.set_yscale("log")
    ax.set_ylabel("time per search (ms, log scale)")
    ax.set_title("Permafrost: cold vs warm vs local, per workload")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("chart written to " + out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="JMH JSON result files (-rf json)")
    parser.add_argument("-o", "--output", default="permafrost-bench.png", help="PNG to write")
    args = parser.parse_args()
    times, cold_counts = collect(load(args.results))
    if not times:
        sys.exit("no WarmSearchBenchmark or ColdSearchBenchmark results in " + ", ".join(args.results))
    print_table(times, cold_counts)
    try:
        plot(times, args.output)
    except ImportError:
        sys.exit("matplotlib is not installed: pip install -r jmh/scripts/requirements.txt (the table above is complete)")


if __name__ == "__main__":
    main()
