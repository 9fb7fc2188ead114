# %% [markdown]
# # Comparing kernels from a schedtrace export
#
# The four `nice` runs (CFS, EEVDF, PDS, BMQ: two spinners on one CPU at nice 0 and nice 5)
# and the three `mi` runs (CFS, EEVDF, PDS: three "massive_intr" tasks and a spinner) of the
# bundled VM captures, exported once with `schedtrace export` and read with polars, without
# schedtrace: runtime shares per kernel, wakeup latency p99 from `waits`, a latency CDF per
# kernel and the lag over time from `series`. Every number is checked against
# `schedtrace compare --json` of the same runs.
#
# Environment: `SCHEDTRACE` (the binary; default `target/release/schedtrace`), `EXPORT_DIR`
# (where the dataset goes; default a fresh temporary directory), `EXPORT_FORMAT` (parquet by
# default; csv for a build without the feature).

# %%
import json
import os
import pathlib
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import polars as pl

here = pathlib.Path.cwd()
root = here.parent if here.name == "examples" else here
schedtrace = os.environ.get("SCHEDTRACE", str(root / "target/release/schedtrace"))
fmt = os.environ.get("EXPORT_FORMAT", "parquet")
out = pathlib.Path(os.environ.get("EXPORT_DIR") or tempfile.mkdtemp(prefix="schedtrace-export-"))
traces = root / "fixtures/traces"
runs = {
    "nice-cfs": "cfs-6.1-vm/nice",
    "nice-eevdf": "eevdf-6.12-vm/nice",
    "nice-pds": "pds-6.1-vm/nice",
    "nice-bmq": "bmq-6.1-vm/nice",
    "mi-cfs": "cfs-6.1-vm/mi",
    "mi-eevdf": "eevdf-6.12-vm/mi",
    "mi-pds": "pds-6.1-vm/mi",
}
args = [f"{label}={traces / folder / 'trace-v6.dat.xz'}" for label, folder in runs.items()]
export = [schedtrace, "export", *args, "-o", str(out / "dataset"), "--format", fmt]
subprocess.run(export + (["--force"] if (out / "dataset").exists() else []), check=True)


def table(name):
    """One table of every run, read through its Hive partitions (`run` kept a string)."""
    files = f"{out}/dataset/{name}/**/*.{fmt}"
    if fmt == "parquet":
        return pl.read_parquet(files, hive_partitioning=True, hive_schema={"run": pl.String})
    # CSV: polars has no Hive reading for it; the directory says the run (part-N: repeat N).
    frames = []
    for path in sorted((out / "dataset" / name).glob(f"run=*/part-*.{fmt}")):
        run = path.parent.name[4:]
        frames.append(pl.read_csv(path, infer_schema_length=None).with_columns(pl.lit(run).alias("run")))
    return pl.concat(frames, how="diagonal_relaxed")


tasks, waits, series, run_table = table("tasks"), table("waits"), table("series"), table("runs")
run_table.select("run", "label", "scheduler_name", "kernel_release", "events", "window_ns")

# %% [markdown]
# ## The reference: `schedtrace compare --json` of the same runs

# %%
def compare(labels, *extra):
    cmd = [schedtrace, "compare", *[a for a in args if a.split("=")[0] in labels], *extra, "--json", "-"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


# CFS and EEVDF name the spinners nice-n0 / nice-n5, PDS and BMQ nice0 / nice5: one role each.
ROLE = r"nice-?n?(\d)"
nice_cmp = compare([l for l in runs if l.startswith("nice")], "--match", ROLE)
mi_cmp = compare([l for l in runs if l.startswith("mi")])


def task_metric(cmp, name, key):
    """compare's value of metric `key` for task role `name`, per run label."""
    role = next(t for t in cmp["tasks"]["tasks"] if t["name"] == name)
    metric = next(m for m in role["metrics"] if m["key"] == key)
    return {c["label"]: c["value"] for c in metric["cells"]}


def system_metric(cmp, key):
    metric = next(m for m in cmp["system"] if m["key"] == key)
    return {c["label"]: c["value"] for c in metric["cells"]}

# %% [markdown]
# ## Runtime shares per kernel (`nice`: weights 1024 vs 335 ask for 0.754 / 0.246)

# %%
# compare --match takes shares of the tasks the regex names: the same denominator here.
shares = (
    tasks.filter(pl.col("run").str.starts_with("nice"))
    # As compare --match: the first capture group anywhere in the name.
    .with_columns(pl.col("comm").str.extract(ROLE).alias("role"))
    .filter(pl.col("role").is_not_null())
    .with_columns((pl.col("runtime_ns") / pl.col("runtime_ns").sum().over("run")).alias("share"))
    .group_by("run", "role")
    .agg(pl.col("comm").first(), pl.col("runtime_ns").sum(), pl.col("share").sum())
    .sort("run", "role")
)
for role in ["0", "5"]:
    want = task_metric(nice_cmp, role, "runtime-share")
    for row in shares.filter(pl.col("role") == role).iter_rows(named=True):
        assert abs(row["share"] - want[row["run"]]) < 1e-9, (role, row, want)
shares

# %% [markdown]
# ## Wakeup latency p99 per run, from every `wakeup` row of `waits` (nearest rank)

# %%
def nearest_rank(values, q):
    values = sorted(values)
    rank = max(1, -(-len(values) * int(q * 1000) // 1000))  # ceil(q * n), at least 1
    return values[rank - 1]


p99 = {
    run: nearest_rank(group["dur_ns"].to_list(), 0.99)
    for (run,), group in waits.filter(pl.col("kind") == "wakeup").group_by("run")
}
for cmp in (nice_cmp, mi_cmp):
    for label, value in system_metric(cmp, "wakeup_latency_p99").items():
        assert p99[label] == value, (label, p99[label], value)
pl.DataFrame({"run": list(p99), "wakeup_latency_p99_us": [v / 1e3 for v in p99.values()]}).sort("run")

# %% [markdown]
# ## Wakeup latency CDF per kernel (`mi` runs)

# %%
fig, ax = plt.subplots(figsize=(7, 4))
for (run,), group in sorted(waits.filter((pl.col("kind") == "wakeup") & pl.col("run").str.starts_with("mi"))
                            .group_by("run"), key=lambda g: g[0]):
    lat = sorted(v / 1e3 for v in group["dur_ns"].to_list())
    ax.step(lat, [(i + 1) / len(lat) for i in range(len(lat))], where="post", label=run)
ax.set_xscale("log")
ax.set_xlabel("wakeup latency (us)")
ax.set_ylabel("fraction of wakeups")
ax.legend()
fig.savefig(out / "latency-cdf.png", dpi=100)

# %% [markdown]
# ## Lag over time of the nice 5 spinner (`series`, 10 ms windows)

# %%
lag = series.filter((pl.col("metric") == "lag_ns") & pl.col("comm").str.contains(r"^nice-?n?5$")).sort("run", "window")
fig, ax = plt.subplots(figsize=(7, 4))
for (run,), group in sorted(lag.group_by("run"), key=lambda g: g[0]):
    ax.plot([w * 10 for w in group["window"].to_list()], [v / 1e6 if v is not None else None for v in group["value"].to_list()], label=run)
ax.set_xlabel("time (ms)")
ax.set_ylabel("lag: entitlement - runtime (ms)")
ax.legend()
fig.savefig(out / "lag.png", dpi=100)
# The largest |lag| over the windows is at most the task's max lag of compare (which sees every instant).
for label, want in task_metric(nice_cmp, "5", "max-lag").items():
    seen = lag.filter(pl.col("run") == label)["value"].abs().max()
    assert seen is not None and seen <= want + 1e-6, (label, seen, want)
print("compare-kernels: every number agrees with schedtrace compare --json")
