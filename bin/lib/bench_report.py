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
    "SequencedMultiSetBenchmark": "sequenced-multiset",
    "SmallBudgetStateBenchmark": "small-budget",
}

# Baselines that are backends of their own rather than variants of one: Flink's rocksdb with the
# same fixed budget per slot as StreamFusion (managed-memory mode).
BASELINE_BACKENDS = {"rocksdb-managed"}


# What each suite measures, printed under its table so the report explains itself.
SUITE_NOTES = {
    "value-state": "JMH, one operation per call at 1M keys; `distribution=uniform` draws each key afresh, "
                   "`distribution=zipf` draws hot keys from a cycle of 2^20 draws, "
                   "`variant=nocache` is StreamFusion with its decoded-value cache off.",
    "list-state": "JMH, one operation per call at 1M keys.",
    "map-state": "JMH, one operation per call at 1M keys with 4 user keys each.",
    "ttl-state": "JMH, value, list and map state with a 1-hour TTL at 1M keys.",
    "candidate-index": "JMH, one upsert-materializer step (append, retract the oldest, read the latest) "
                       "under 10 keys; StreamFusion runs its candidate index, the stock backends the "
                       "`ValueState<List>` of Flink's legacy `SinkUpsertMaterializer`.",
    "sequenced-multiset": "JMH, the same step on Flink 2.2's `SequencedMultiSetState` "
                          "(`SinkUpsertMaterializerV2`), MAP and ADAPTIVE strategies, on every backend.",
    "small-budget": "`SmallBudgetStateBenchmark`, a plain program: every backend is loaded once, side by side "
                    "in one process, then each operation is warmed up (2 s) on each and timed in rounds of one "
                    "interval per backend (three rounds of 1 s; five of 3 s with `--full`), so that the machine's "
                    "drift falls on all backends alike (since 2026-12-07; before, each backend ran its "
                    "operations alone, one after the other). State about ten times larger than the memory budget: 500k keys with 10 map "
                    "entries each (5M), plus a value, a TTL value (`OnReadAndWrite`) and a 2-element list per "
                    "key, random keys. StreamFusion and `rocksdb-managed` (Flink's managed-memory mode, "
                    "`state.backend.rocksdb.memory.fixed-per-slot`) get the same budget; `rocksdb` runs as "
                    "Flink's own state benchmarks configure it (managed memory off, index and filter blocks "
                    "on the heap outside any budget). `keys=5000000` is the same suite at 10x the data.",
    "snapshots": "One-shot costs at 1M keys (value, list and map state): checkpoint phases, "
                 "restore with and without rescaling, canonical savepoints.",
    "sql-aggregate": "Flink SQL `SELECT k, COUNT(*), SUM(v) ... GROUP BY k` on an embedded MiniCluster "
                     "(parallelism 1, 256 MiB managed memory, checkpoints every 5 s, the same for every "
                     "backend); rows/s of the source over fixed windows after a warm-up. `mini-batch=5000`: "
                     "bundles of 5,000 rows or 1 s, which the planner runs in two phases (`one-phase`: in one, "
                     "`table.optimizer.agg-phase-strategy: ONE_PHASE`). `two aggregates "
                     "and a join`: `COUNT(*)` and `SUM(v)` per key in two aggregations joined on the key "
                     "(Flink's join in every setup), the SQL operators at the given parallelism behind one "
                     "source, a bounded job of 2M rows (net runtime, one run); `batch-rows=26` makes the "
                     "columnar operators' batches as small as the exchange left a public accelerator's "
                     "without coalescing.",
    "sql-top1": "Flink SQL `ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) = 1` on append-only input, "
                "same job settings; `rejected`: every row loses to its key's winner, `improving`: every "
                "row wins, `unique keys`: every row is a new key. `sustained`: rows/s of the source over "
                "10 s windows after a 10 s warm-up; `complete`: rows/s of a bounded job from submission "
                "to its end, startup included, as a user waits for it. The two differ for `rocksdb` "
                "because a bounded 4M-row job ends before its state leaves the memtable, and for every "
                "setup because startup counts. The source emits Flink's internal `BinaryRowData`, as a "
                "table connector's format does (since 2026-12-06; tables measured before then had a "
                "`Row` source whose conversion and UTF-8 encoding cost the source thread about a third "
                "more). Where the layer-on ratio stops rising (64 keys), a CPU profile puts the source "
                "task on a full core: copies between chained operators and the keyed exchange's "
                "hashing and serialization are Flink's and the same for all four setups "
                "(docs/architecture.md, \"What the Top-1 ranker's design bought\").",
    "sql-dedup": "Flink SQL deduplication on processing time, `ROW_NUMBER() OVER (PARTITION BY k ORDER BY "
                 "PROCTIME() DESC|ASC) = 1`, into a retracting blackhole sink. Keep-last: every row "
                 "replaces its key's kept row, so each emits UPDATE_BEFORE and UPDATE_AFTER. Keep-first: "
                 "every row after a key's first is dropped. `mini-batch=5000`: bundles of 5,000 rows or 1 s, "
                 "one row per key each (Flink's bundle operator, or the layer's mirror of it). `row-time "
                 "keep-first`: `ORDER BY rt ASC` on row time `rt` (row i at i ms, watermark 1 s behind) "
                 "into an append sink, Flink's timer-driven RowTimeDeduplicateKeepFirstRowFunction: each "
                 "key's first row is emitted when the watermark passes it, every later row is dropped by "
                 "its emitted flag. Same job settings and "
                 "`sustained`/`complete` measures as sql-top1.",
    "sql-constraints": "Flink SQL `INSERT INTO sink SELECT ... FROM src` into a blackhole sink whose only "
                       "operator between the source's projection and the sink is Flink's `ConstraintEnforcer`. "
                       "`not-null=DROP`: three NOT NULL columns, one row in ten NULL in one of them and dropped "
                       "(NOT NULL checks alone keep Flink's operator in every setup). "
                       "`type-length=TRIM_PAD`: a `CHAR(5)` column fed the source's 8-character payload, "
                       "declared `CHAR(5)` by the source as a connector's values arrive, so every row is "
                       "trimmed; both: the two together. rows/s of complete jobs (net runtime), median of three runs; the source and "
                       "the projection are Flink's in all four setups.",
    "sql-upsert": "Flink SQL `INSERT INTO sink SELECT MAX(k), g, SUM(v) FROM src GROUP BY g` into a "
                  "blackhole sink with PRIMARY KEY (k): 4 groups share each key, so the planner adds "
                  "its sink upsert materializer (strategy in the case; materialization forced). The nested "
                  "case adds a TIMESTAMP, an ARRAY with a NULL element and a ROW to the sink row. The "
                  "columnar materializer replaces LEGACY and VALUE; MAP keeps Flink's operator in every "
                  "setup. rows/s of complete 1M-row jobs; the GROUP BY before the sink is the columnar "
                  "aggregation in the operators setup, Flink's in the other three (docs/architecture.md, "
                  "\"What the upsert materializer's design bought\").",
}


def records_from_jmh(path):
    with open(path) as f:
        runs = json.load(f)
    records = []
    for run in runs:
        cls, method = run["benchmark"].rsplit(".", 2)[-2:]
        params = dict(run.get("params", {}))
        backend = params.pop("backend")
        if "-" in backend and backend not in BASELINE_BACKENDS:
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


def run(cmd):
    """A command's trimmed output, or "unknown" if it fails."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def machine_meta(mode, command):
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
        "git_commit": commit_measured(),
    }


def commit_measured():
    """HEAD, marked when tracked code differed from it (results and docs are this script's output)."""
    head = run(["git", "rev-parse", "HEAD"])
    changed = run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                   ".", ":!benchmarks/results", ":!docs"])
    return f"{head[:12]}+uncommitted" if changed else head[:12]


# The setup that runs StreamFusion's columnar operators (SqlJobBenchmark.OPERATORS_SETUP).
OPERATORS = "streamfusion-operators"


def ratio(a, b):
    return a / b if b else float("nan")


def cell(r):
    """A record's median with its min-max range, or "-" if the setup did not run."""
    if not r:
        return "-"
    if r["runs"] == 1:
        return f"{r['value']:,.0f}"
    return f"{r['value']:,.0f} ({r['min']:,.0f}-{r['max']:,.0f})"


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
    max_ratio = max([max(x[1][0], x[2][0]) for x in rows] + [2.0])
    scale = (width - left - 60) / max_ratio
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           '<text x="10" y="18">StreamFusion throughput / other backend (same run; 1.0 = equal)</text>']
    one = left + scale
    out.append(f'<line x1="{one:.1f}" y1="28" x2="{one:.1f}" y2="{height - 4}" stroke="#888" stroke-dasharray="4"/>')
    y = 34
    for label, (first, first_name), (second, second_name) in rows:
        out.append(f'<text x="10" y="{y + bar_h + 4}">{html.escape(label)}</text>')
        for i, (val, color, name) in enumerate(((first, "#d9534f", first_name), (second, "#5b9bd5", second_name))):
            yy = y + i * bar_h
            out.append(f'<rect x="{left}" y="{yy}" width="{max(val * scale, 1):.1f}" height="{bar_h - 2}" fill="{color}"/>')
            out.append(f'<text x="{left + val * scale + 4:.1f}" y="{yy + bar_h - 4}">{val:.2f}x vs {name}</text>')
        y += 2 * bar_h + gap
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def materializer_comparison(table):
    """The candidate index against every structure Flink 2.2 materializes upserts with, on rocksdb.

    Issue 6's bar: StreamFusion's candidate index must beat the best of Flink's legacy list
    (candidate-index suite, rocksdb row) and SequencedMultiSetState with MAP and ADAPTIVE
    (sequenced-multiset suite, rocksdb rows) at the same number of candidates per key.
    """
    rows = []
    for (suite, case), by_backend in sorted(table.items()):
        ours = by_backend.get("streamfusion")
        if suite != "candidate-index" or not ours:
            continue
        flink = {"legacy list": by_backend.get("rocksdb")}
        for strategy in ("MAP", "ADAPTIVE"):
            flink[strategy] = table.get(("sequenced-multiset", f"{case} strategy={strategy}"), {}).get("rocksdb")
        measured = {name: r["value"] for name, r in flink.items() if r}
        if not measured:
            continue
        best = max(measured, key=measured.get)
        cells = " | ".join(f"{measured[n]:,.0f}" if n in measured else "-" for n in ("legacy list", "MAP", "ADAPTIVE"))
        rows.append(f"| {case} | {ours['value']:,.0f} | {cells} | {best} | {ratio(ours['value'], measured[best]):.2f}x |")
    if not rows:
        return []
    return ["## candidate index vs Flink's upsert-materializer structures", "",
            "Operations per second of one append-retract step; Flink's structures run on `rocksdb`.",
            "The candidate index step also reads the latest candidate; Flink's structures skip that",
            "read when the retracted row is not the latest, as here.", "",
            "| case | candidate index (streamfusion) | legacy list | MAP | ADAPTIVE | best of Flink | vs best |",
            "|---|---|---|---|---|---|---|"] + rows + [""]


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
        f"- date: {meta['date']}, commit `{meta['git_commit']}`",
        f"- machine: {meta['cores']} cores, {meta['memory_gib']} GiB, {meta['cpu']}; {meta['jvm']}; Flink {meta['flink']}",
        "",
        "A quick run (`bin/bench`, the default) measures the cases the targets below name: every",
        "value-state case, listAdd/listGet, mapGet/mapPut, ttlValueGet/ttlValueUpdate, the small-budget",
        "suite at 500k keys (`--full` adds 5M keys), 1k and 10k",
        "candidates per key, and four Top-1 cases; `bin/bench --full` measures every case with longer",
        "iterations.",
        "",
        "## Targets",
        "",
        "Ratios against `rocksdb` in the same run, on the same machine:",
        "",
        "- No job is slower than on `rocksdb`: every per-record case and every SQL job, with Flink's own",
        "  operators, at least 1.0x, and most at least 1.5x.",
        "- Per-record keyed state at 1M keys: at least 2x on ValueState get and update, at least 5x on",
        "  skewed (hot-key) reads, and within 2x of `hashmap` when the working set fits the cache.",
        "- State about ten times larger than a 136 MiB budget (`small-budget`): every case at least 1.0x",
        "  both `rocksdb-managed` (same budget) and `rocksdb` (as Flink's benchmarks run it), MapState",
        "  get and iteration at least 2x `rocksdb-managed`.",
        "- Columnar operators in SQL jobs: Top-1 at least 5x on rejected arrivals at 65,536 keys",
        "  (payload 8 and 256), 4x on improving arrivals, 2x at 64 keys, and unique-key insertion no",
        "  slower; upsert materialization at least 3x the best stock strategy at 1M rows; constraint",
        "  enforcement at least 1.3x; GROUP BY and keep-last dedup at least 2x; post-exchange",
        "  coalescing at parallelism 4 at least 1.5x over the same job without it.",
        "- Snapshots at 1M keys: the synchronous phase of every checkpoint under 100 ms, restore with",
        "  rescaling no slower than `rocksdb`, canonical savepoints at least as fast.",
        "",
        f"![ratios](benchmarks-ratios.svg)",
        "",
    ]
    chart_rows = []
    for suite in sorted({s for s, _ in table}):
        first = next(r for (s, _), b in table.items() if s == suite for r in b.values())
        with_operators = any(OPERATORS in b for (s, _), b in table.items() if s == suite)
        # The two baselines each row compares with: rocksdb and hashmap, unless the suite ran
        # a baseline backend of its own (which then comes first, with rocksdb second).
        own = sorted({n for (s, _), b in table.items() if s == suite for n in b} & BASELINE_BACKENDS)
        baselines = (own[0], "rocksdb") if own else ("rocksdb", "hashmap")
        lines += [f"## {suite}", "",
                  f"Measured by `{first.get('command', meta['command'])}` on {first.get('date', meta['date'])}"
                  f" at commit `{first.get('commit', meta['git_commit'])}`."
                  + (" " + SUITE_NOTES[suite] if suite in SUITE_NOTES else ""), ""]
        if with_operators:
            lines += ["Four setups in the same run: `streamfusion + operators` is StreamFusion with its columnar",
                      "operators (`streamfusion.operators.enabled`), `streamfusion` the same backend with Flink's",
                      "own operators.", "",
                      "| case | metric | streamfusion + operators | streamfusion | rocksdb | hashmap "
                      "| operators vs rocksdb | operators vs hashmap | streamfusion vs rocksdb |",
                      "|---|---|---|---|---|---|---|---|---|"]
        else:
            lines += [f"| case | metric | streamfusion | {baselines[0]} | {baselines[1]} | vs {baselines[0]} "
                      f"| vs {baselines[1]} |", "|---|---|---|---|---|---|---|"]
        for (s, case), by_backend in sorted(table.items()):
            if s != suite:
                continue
            ops, sf, base1, base2 = (by_backend.get(b) for b in (OPERATORS, "streamfusion") + baselines)
            any_record = ops or sf or base1 or base2
            higher_better = any_record["metric"].endswith("/s")

            def rel(ours, other):
                if not (ours and other):
                    return None
                return ratio(ours["value"], other["value"]) if higher_better else ratio(other["value"], ours["value"])

            def fmt(x):
                return "-" if x is None else f"{x:.2f}x"
            if with_operators:
                lines.append(f"| {case} | {any_record['metric']} | {cell(ops)} | {cell(sf)} | {cell(base1)} | {cell(base2)} | "
                             f"{fmt(rel(ops, base1))} | {fmt(rel(ops, base2))} | {fmt(rel(sf, base1))} |")
            else:
                lines.append(f"| {case} | {any_record['metric']} | {cell(sf)} | {cell(base1)} | {cell(base2)} | "
                             f"{fmt(rel(sf, base1))} | {fmt(rel(sf, base2))} |")
            for label, ours in (("", sf), (" (operators)", ops)):
                vr, vh = rel(ours, base1), rel(ours, base2)
                if vr is not None and vh is not None and higher_better:
                    chart_rows.append((f"{suite}: {case}{label}", (vr, baselines[0]), (vh, baselines[1])))
        lines.append("")
    lines += materializer_comparison(table)
    lines += ["A ratio above 1 means StreamFusion is better: more throughput, or fewer milliseconds",
              "or bytes. Noise: compare each median with its min-max range; a quick run uses one fork,",
              "an 8 s warm-up (long enough for every backend's caches to fill at 1M keys) and three",
              "1 s iterations (five of 2 s for the candidate suites, whose steps swing with",
              "memtable flushes), so differences under about 10% are within noise. Snapshot",
              "figures with one run are single measurements; repeat the suite to judge their noise.", ""]
    svg_chart(chart_rows, chart_path)
    with open(doc_path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--jmh-dir", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--render-only", action="store_true",
                        help="re-render docs/benchmarks.md from benchmarks/results without new results")
    args = parser.parse_args()
    if args.render_only:
        with open("benchmarks/results/latest.json") as f:
            records = json.load(f)
        with open("benchmarks/results/latest-meta.json") as f:
            meta = json.load(f)
        write_report(records, meta, "docs/benchmarks.md", "docs/benchmarks-ratios.svg")
        return
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
        r["commit"] = meta["git_commit"]
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
