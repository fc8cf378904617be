#!/usr/bin/env python3
"""The small-cache curve: SmallCacheBenchmark results (one or more JMH JSON files, each with a label) as a Markdown
table and a text chart of the repeat's median time per cache share, with the cold search beside it.

    cache_curve.py --cold cold.json before=curve-before.json after=curve-after.json

Every measured iteration is one repeat (a single shot): a size's row gives the median, the 90th percentile and the
maximum of its repeats' times, the floor (the 100% cache row of the same file: Lucene's CPU work alone) beside them,
and the median and maximum of each repeat's own counters (JMH keeps them per iteration in the secondary metrics'
raw data)."""
import argparse
import json
import statistics


def runs(path):
    """(params, times in ms, {counter: per-iteration values}) of every benchmark in a JMH JSON file."""
    out = []
    for b in json.load(open(path)):
        raw = [x for it in b["primaryMetric"]["rawData"] for x in it]
        sec = {k: [x for it in v["rawData"] for x in it] for k, v in b.get("secondaryMetrics", {}).items()}
        out.append((b["params"], raw, sec))
    return out


def pct(values, p):
    """The p-th percentile of values, nearest rank (an observed value, never an interpolation)."""
    v = sorted(values)
    return v[max(0, min(len(v) - 1, -(-p * len(v) // 100) - 1))]


def med(sec, key):
    return statistics.median(sec[key]) if sec.get(key) else 0


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
    floors = {}
    rows = []
    for spec in a.curves:
        label, path = spec.split("=", 1)
        for params, raw, sec in runs(path):
            share = float(params["cacheShare"])
            rows.append((label, params.get("regionSize", "auto"), share, raw, sec))
            if share >= 1.0:
                floors[(label, params.get("regionSize", "auto"))] = statistics.median(raw)
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    print("| build | regions | cache | repeats | repeat ms: median / p90 / max (min) | median / floor | max / median"
          " | of cold (median / max) | waves by dependency: median / max | by the clock: median / max"
          " | requests: median / max | MB fetched: median | hit ratio: median |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, region, share, raw, sec in rows:
        c = cold.get(region) or cold.get("auto")
        m = statistics.median(raw)
        of_cold = "%.0f%% / %.0f%%" % (100 * m / c[0], 100 * max(raw) / c[0]) if c else ""
        floor = floors.get((label, region))
        print("| %s | %s | %s%% | %d | %.0f / %.0f / %.0f (%.0f) | %s | %.2fx | %s | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f"
              " | %.1f | %.0f%% |" % (
                  label, region, ("%g" % (share * 100)), len(raw), m, pct(raw, 90), max(raw), min(raw),
                  "%.2fx" % (m / floor) if floor else "", max(raw) / m, of_cold,
                  med(sec, "dependencyWaves"), max(sec.get("dependencyWaves", [0])),
                  med(sec, "roundTripWaves"), max(sec.get("roundTripWaves", [0])),
                  med(sec, "requests"), max(sec.get("requests", [0])), med(sec, "bytesFetched") / 1e6,
                  med(sec, "hitRatioPercent")))
    for region, (t, sec) in sorted(cold.items()):
        print("| cold | %s | (none) | | %.0f | | | 100%% | %.0f | %.0f | %.0f | %.1f | |" % (
            region, t, med(sec, "dependencyWaves"), med(sec, "roundTripWaves"), med(sec, "requests"),
            med(sec, "bytesFetched") / 1e6))
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
