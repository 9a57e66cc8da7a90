#!/usr/bin/env python3
"""Turns benchmark results into benchmarks/results/latest.json and regenerates docs/benchmarks.md.

Every record: suite, case, backend, metric, value (median over measurement iterations), min,
max, runs, and the command and date that produced it. JMH result files are converted; files
named *.records.json already hold records (the snapshot and SQL suites). Suites that this run did not
measure keep their records from earlier runs. Ratios in the report are StreamFusion over rocksdb
and over hashmap, both measured in the same run; a metric ending in "/s" is higher-is-better,
any other (ms, bytes) lower-is-better.
"""
import argparse
import datetime
import glob
import html
import json
import os
import platform
import statistics
import subprocess

SUITE_OF_CLASS = {
    "ValueStateBenchmark": "value-state",
    "ListStateBenchmark": "list-state",
    "MapStateBenchmark": "map-state",
    "TtlStateBenchmark": "ttl-state",
    "CandidateIndexBenchmark": "candidate-index",
}


def records_from_jmh(path):
    with open(path) as f:
        runs = json.load(f)
    records = []
    for run in runs:
        cls, method = run["benchmark"].rsplit(".", 2)[-2:]
        params = dict(run.get("params", {}))
        backend = params.pop("backend")
        if "-" in backend:
            # A variant such as streamfusion-nocache: the backend stays, the variant joins the case.
            backend, variant = backend.split("-", 1)
            params["variant"] = variant
        raw = [x for fork in run["primaryMetric"]["rawData"] for x in fork]
        case = method + "".join(f" {k}={v}" for k, v in sorted(params.items()))
        records.append({
            "suite": SUITE_OF_CLASS.get(cls, cls),
            "case": case,
            "backend": backend,
            "metric": run["primaryMetric"]["scoreUnit"],
            "value": statistics.median(raw),
            "min": min(raw),
            "max": max(raw),
            "runs": len(raw),
        })
    return records


def machine_meta(mode, command):
    def run(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
        except Exception:
            return "unknown"
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    java = run(["java", "-version"]) or subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "mode": mode,
        "command": command,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "cpu": platform.processor() or run(["uname", "-m"]),
        "jvm": java.splitlines()[0] if java else "unknown",
        "flink": "2.2.1",
        "git_commit": run(["git", "rev-parse", "HEAD"]),
    }


def ratio(a, b):
    return a / b if b else float("nan")


def base_case(case):
    """The case without its variant, so a variant row compares with the same baselines."""
    return " ".join(part for part in case.split() if not part.startswith("variant="))


def speedups(records):
    """(suite, case) -> {backend: record}, where a variant's row borrows its base case's baselines."""
    table = {}
    for r in records:
        table.setdefault((r["suite"], r["case"]), {})[r["backend"]] = r
    for (suite, case), by_backend in table.items():
        if case != base_case(case):
            for baseline in ("rocksdb", "hashmap"):
                base = table.get((suite, base_case(case)), {}).get(baseline)
                if base and baseline not in by_backend:
                    by_backend[baseline] = base
    return table


def svg_chart(rows, path):
    width, bar_h, gap, left = 1000, 16, 10, 470
    height = 40 + len(rows) * (2 * bar_h + gap)
    max_ratio = max([max(x[1], x[2]) for x in rows] + [2.0])
    scale = (width - left - 60) / max_ratio
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           '<text x="10" y="18">StreamFusion throughput / other backend (same run; 1.0 = equal)</text>']
    one = left + scale
    out.append(f'<line x1="{one:.1f}" y1="28" x2="{one:.1f}" y2="{height - 4}" stroke="#888" stroke-dasharray="4"/>')
    y = 34
    for label, vs_rocks, vs_hash in rows:
        out.append(f'<text x="10" y="{y + bar_h + 4}">{html.escape(label)}</text>')
        for i, (val, color, name) in enumerate(((vs_rocks, "#d9534f", "rocksdb"), (vs_hash, "#5b9bd5", "hashmap"))):
            yy = y + i * bar_h
            out.append(f'<rect x="{left}" y="{yy}" width="{max(val * scale, 1):.1f}" height="{bar_h - 2}" fill="{color}"/>')
            out.append(f'<text x="{left + val * scale + 4:.1f}" y="{yy + bar_h - 4}">{val:.2f}x vs {name}</text>')
        y += 2 * bar_h + gap
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_report(records, meta, doc_path, chart_path):
    table = speedups(records)
    lines = [
        "# Benchmark results",
        "",
        "Generated by `bin/bench` from its own run; do not edit by hand. Every figure is the median",
        "over the measurement iterations, with min and max; ratios compare StreamFusion with Flink's",
        "`rocksdb` and `hashmap` backends measured in the same run on the same machine.",
        "",
        f"- command: `{meta['command']}`",
        f"- date: {meta['date']}, commit `{meta['git_commit'][:12]}`",
        f"- machine: {meta['cores']} cores, {meta['memory_gib']} GiB, {meta['cpu']}; {meta['jvm']}; Flink {meta['flink']}",
        "",
        f"![ratios](benchmarks-ratios.svg)",
        "",
    ]
    chart_rows = []
    for suite in sorted({s for s, _ in table}):
        first = next(r for (s, _), b in table.items() if s == suite for r in b.values())
        lines += [f"## {suite}", "",
                  f"Measured by `{first.get('command', meta['command'])}` on {first.get('date', meta['date'])}"
                  f" at commit `{first.get('commit', meta['git_commit'][:12])}`.", "",
                  "| case | metric | streamfusion | rocksdb | hashmap | vs rocksdb | vs hashmap |",
                  "|---|---|---|---|---|---|---|"]
        for (s, case), by_backend in sorted(table.items()):
            if s != suite:
                continue
            sf, rk, hm = (by_backend.get(b) for b in ("streamfusion", "rocksdb", "hashmap"))
            def cell(r):
                if not r:
                    return "-"
                if r["runs"] == 1:
                    return f"{r['value']:,.0f}"
                return f"{r['value']:,.0f} ({r['min']:,.0f}-{r['max']:,.0f})"
            higher_better = (sf or rk or hm)["metric"].endswith("/s")
            def rel(other):
                if not (sf and other):
                    return None
                return ratio(sf["value"], other["value"]) if higher_better else ratio(other["value"], sf["value"])
            vr, vh = rel(rk), rel(hm)
            lines.append(f"| {case} | {(sf or rk or hm)['metric']} | {cell(sf)} | {cell(rk)} | {cell(hm)} | "
                         f"{'-' if vr is None else f'{vr:.2f}x'} | {'-' if vh is None else f'{vh:.2f}x'} |")
            if vr is not None and vh is not None and higher_better:
                chart_rows.append((f"{suite}: {case}", vr, vh))
        lines.append("")
    lines += ["A ratio above 1 means StreamFusion is better: more throughput, or fewer milliseconds",
              "or bytes. Noise: compare each median with its min-max range; a quick run uses one fork",
              "and three short iterations, so differences under about 10% are within noise. Snapshot",
              "figures with one run are single measurements; repeat the suite to judge their noise.", ""]
    svg_chart(chart_rows, chart_path)
    with open(doc_path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--jmh-dir", required=True)
    parser.add_argument("--command", required=True)
    args = parser.parse_args()
    records = []
    for path in sorted(glob.glob(os.path.join(args.jmh_dir, "*.json"))):
        if path.endswith(".records.json"):
            with open(path) as f:
                records += json.load(f)
        else:
            records += records_from_jmh(path)
    if not records:
        raise SystemExit("bench_report: no results found in " + args.jmh_dir)
    meta = machine_meta(args.mode, args.command)
    for r in records:
        r["command"] = args.command
        r["date"] = meta["date"]
        r["commit"] = meta["git_commit"][:12]
    measured = {r["suite"] for r in records}
    latest = "benchmarks/results/latest.json"
    if os.path.exists(latest):
        with open(latest) as f:
            records = [r for r in json.load(f) if r["suite"] not in measured] + records
    os.makedirs("benchmarks/results", exist_ok=True)
    with open("benchmarks/results/latest.json", "w") as f:
        json.dump(records, f, indent=2)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(f"benchmarks/results/{stamp}.json", "w") as f:
        json.dump(records, f, indent=2)
    with open("benchmarks/results/latest-meta.json", "w") as f:
        json.dump(meta, f, indent=2)
    write_report(records, meta, "docs/benchmarks.md", "docs/benchmarks-ratios.svg")
    print(f"bench_report: {len(records)} results -> benchmarks/results/latest.json, docs/benchmarks.md")


if __name__ == "__main__":
    main()
