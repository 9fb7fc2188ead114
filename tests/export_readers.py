"""Real readers on a schedtrace export: Python polars and DuckDB read the Parquet dataset of
every VM capture through its Hive partitions and compute, per run, the p99 wakeup latency
from `waits` (nearest rank, as the report); it must equal `schedtrace analyze --json`'s.

    python3 tests/export_readers.py SCHEDTRACE DATASET

DATASET is an export of the VM captures with labels (`.ci/run` makes it). Prints
`N passed, M failed` and exits non-zero on a failure.
"""

import json
import subprocess
import sys

import duckdb
import polars as pl

schedtrace, dataset = sys.argv[1], sys.argv[2]
passed, failed = 0, 0


def check(what, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAILED {what}: {got!r} != {want!r}")


runs = pl.read_parquet(f"{dataset}/runs/**/*.parquet", hive_partitioning=True,
                       hive_schema={"run": pl.String})
want = {}
for row in runs.iter_rows(named=True):
    report = json.loads(subprocess.run([schedtrace, "analyze", row["file"], "--json", "-"],
                                       check=True, capture_output=True, text=True).stdout)
    want[row["run"]] = report["system"]["wakeup_latency"]["p99_ns"]
check("runs in the dataset", len(want) >= 14, True)

# polars: nearest rank = the ceil(0.99 n)-th smallest.
waits = pl.scan_parquet(f"{dataset}/waits/**/*.parquet", hive_partitioning=True,
                        hive_schema={"run": pl.String})
p99 = (
    waits.filter(pl.col("kind") == "wakeup")
    .group_by("run")
    .agg(pl.col("dur_ns").sort().get(((pl.len() * 99 + 99) // 100 - 1).cast(pl.Int64)).alias("p99"))
    .collect()
)
got = dict(zip(p99["run"], p99["p99"]))
for run, value in want.items():
    check(f"polars p99 of {run}", got.get(run), value)

# DuckDB: the same rule in SQL (lists are 1-based).
con = duckdb.connect()
rows = con.execute(
    f"""
    select run, list_sort(list(dur_ns))[(count(*) * 99 + 99) // 100] as p99
    from read_parquet('{dataset}/waits/*/*.parquet', hive_partitioning = true,
                      hive_types = {{'run': VARCHAR}})
    where kind = 'wakeup'
    group by run
    """
).fetchall()
got = dict(rows)
for run, value in want.items():
    check(f"duckdb p99 of {run}", got.get(run), value)

# The whole fleet in one query: every table reads with its partitions.
for table in ["runs", "tasks", "cpus", "slices", "waits", "intervals", "series", "preemptions"]:
    n = con.execute(
        f"select count(distinct run) from read_parquet('{dataset}/{table}/*/*.parquet', "
        f"hive_partitioning = true, hive_types = {{'run': VARCHAR}})"
    ).fetchone()[0]
    check(f"runs in {table}", n, len(want) if table != "preemptions" else n)

# The writer's compression and row groups, as DuckDB reads them from the files' metadata
# (export/src/write/parquet.rs): every column chunk zstd, no row group over 65,536 rows.
for table in ["slices", "waits", "intervals", "preemptions"]:
    compression, most = con.execute(
        f"select string_agg(distinct compression, ' | '), max(row_group_num_rows) from "
        f"parquet_metadata('{dataset}/{table}/*/*.parquet')"
    ).fetchone()
    check(f"{table}: compression", compression, "ZSTD")
    check(f"{table}: at most 65536 rows per row group", most <= 65536, True)

print(f"export readers: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
