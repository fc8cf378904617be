#!/usr/bin/env python3
"""The small-cache curve: SmallCacheBenchmark results (one or more JMH JSON files, each with a label) as a Markdown
table and a text chart of the repeat's median time per cache share, with the cold search beside it.

    cache_curve.py --cold cold.json before=curve-before.json after=curve-after.json

Aux counters are summed over iterations by JMH: they are divided here by the number of measured iterations. Times
are medians of the measured iterations (single shots), with the lowest and highest beside them."""
import argparse
import json
import statistics


def runs(path):
    """(params, times in ms, per-iteration secondary counters) of every benchmark in a JMH JSON file."""
    out = []
    for b in json.load(open(path)):
        raw = [x for it in b["primaryMetric"]["rawData"] for x in it]
        sec = {k: v["score"] / len(raw) for k, v in b.get("secondaryMetrics", {}).items()}
        out.append((b["params"], raw, sec))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cold", help="ColdSearchBenchmark JSON: its dashboard rows are shown beside the curve")
    ap.add_argument("curves", nargs="+", help="label=SmallCacheBenchmark.json")
    a = ap.parse_args()
    cold = {}
    if a.cold:
        for params, raw, sec in runs(a.cold):
            if params.get("workload") == "dashboard":
                cold[params.get("regionSize", "auto")] = (statistics.median(raw), sec)
    rows = []
    for spec in a.curves:
        label, path = spec.split("=", 1)
        for params, raw, sec in runs(path):
            rows.append((label, params.get("regionSize", "auto"), float(params["cacheShare"]), raw, sec))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    print("| build | regions | cache | repeat ms: median (min-max) | of cold | waves | requests | MB fetched | hit ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, region, share, raw, sec in rows:
        c = cold.get(region) or cold.get("auto")
        of_cold = "%.0f%%" % (100 * statistics.median(raw) / c[0]) if c else ""
        print("| %s | %s | %s%% | %.0f (%.0f-%.0f) | %s | %.1f | %.0f | %.1f | %.0f%% |" % (
            label, region, ("%g" % (share * 100)), statistics.median(raw), min(raw), max(raw), of_cold,
            sec.get("roundTripWaves", 0), sec.get("requests", 0), sec.get("bytesFetched", 0) / 1e6,
            sec.get("hitRatioPercent", 0)))
    for region, (t, sec) in sorted(cold.items()):
        print("| cold | %s | (none) | %.0f | 100%% | %.1f | %.0f | %.1f | |" % (
            region, t, sec.get("roundTripWaves", 0), sec.get("requests", 0), sec.get("bytesFetched", 0) / 1e6))
    print()
    top = max(statistics.median(r[3]) for r in rows)
    if cold:
        top = max(top, max(t for t, _ in cold.values()))
    width = 50
    print("```")
    print("repeat of the dashboard, median ms (# = %d ms)" % max(1, round(top / width)))
    for label, region, share, raw, sec in rows:
        m = statistics.median(raw)
        print("%-7s %-8s %6s%%  %-*s %5.0f" % (label, region, "%g" % (share * 100), width,
                                              "#" * max(1, round(m / top * width)), m))
    for region, (t, _) in sorted(cold.items()):
        print("%-7s %-8s %7s  %-*s %5.0f" % ("cold", region, "", width, "=" * max(1, round(t / top * width)), t))
    print("```")


if __name__ == "__main__":
    main()
