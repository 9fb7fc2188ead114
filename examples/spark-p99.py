"""Spark (pyspark, local mode) on a schedtrace export: the p99 wakeup latency per scheduler from
the `waits` table of the whole dataset, checked against `schedtrace compare --json` of the same
runs (nearest rank over the pooled samples of a run's repeats, as compare computes it).

    python3 examples/spark-p99.py [SCHEDTRACE [DIR]]

SCHEDTRACE: a binary built with `--features parquet` (default target/release/schedtrace); DIR:
where the dataset goes (default a fresh temporary directory). It exports the `mi` VM runs of
fixtures/traces, one run per scheduler (PDS with its two repeats), then runs one Spark SQL query.
Needs pyspark and a Java runtime; `.ci/run` does not run it (Spark is a heavy install).
"""

import json
import pathlib
import subprocess
import sys
import tempfile

from pyspark.sql import SparkSession

root = pathlib.Path(__file__).resolve().parent.parent
schedtrace = sys.argv[1] if len(sys.argv) > 1 else str(root / "target/release/schedtrace")
out = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="schedtrace-spark-"))
traces = root / "fixtures/traces"
runs = {
    "cfs": ["cfs-6.1-vm/mi"],
    "eevdf": ["eevdf-6.12-vm/mi"],
    "pds": ["pds-6.1-vm/mi", "pds-6.1-vm/mi-repeat"],
}
args = [f"{label}=" + ",".join(str(traces / f / "trace-v6.dat.xz") for f in folders)
        for label, folders in runs.items()]
dataset = out / "dataset"
subprocess.run([schedtrace, "export", *args, "-o", str(dataset), "--format", "parquet", "--force"]
               if dataset.exists() else
               [schedtrace, "export", *args, "-o", str(dataset), "--format", "parquet"], check=True)

spark = (SparkSession.builder.master("local[2]").appName("schedtrace-p99")
         # `run` is a label: keep it a string (a label such as 6.1 would become a number).
         .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.read.parquet(str(dataset / "waits")).createOrReplaceTempView("waits")
spark.read.parquet(str(dataset / "runs")).createOrReplaceTempView("runs")
rows = spark.sql("""
    with wakeups as (
        select r.scheduler_name as scheduler, w.dur_ns,
               row_number() over (partition by r.scheduler_name order by w.dur_ns) as rank,
               count(*) over (partition by r.scheduler_name) as n
        from waits w join (select distinct run, scheduler_name from runs) r on w.run = r.run
        where w.kind = 'wakeup'
    )
    select scheduler, n as samples, dur_ns as p99_ns from wakeups
    where rank = ceil(n * 0.99)
    order by scheduler
""").collect()
spark.stop()
got = {r["scheduler"]: r["p99_ns"] for r in rows}
for r in rows:
    print(f"spark: {r['scheduler']:<6} {r['samples']:>7} wakeups, p99 {r['p99_ns']} ns")

compared = json.loads(subprocess.run([schedtrace, "compare", *args, "--json", "-"], check=True,
                                     capture_output=True, text=True).stdout)
metric = next(m for m in compared["system"] if m["key"] == "wakeup_latency_p99")
scheduler = {r["label"]: r["scheduler"] for r in compared["runs"]}
want = {scheduler[c["label"]]: c["value"] for c in metric["cells"]}
print(f"compare --json: {want}")
assert got == want, f"spark {got} != compare {want}"
print("spark p99 per scheduler = compare's")
