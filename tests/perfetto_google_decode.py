#!/usr/bin/env python3
"""Decodes a Perfetto trace with Google's own schema (PyPI `perfetto`'s perfetto_trace_pb2)
and prints every sched event and print marker as one JSON object per line, for tests/perfetto_google_schema.rs.
Exit 3 when the modules are not importable (the test then skips, or fails under CI)."""
import json
import sys

try:
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import Trace
except ImportError as e:  # the Rust test decides whether this is a skip or a failure
    print(f"cannot import perfetto_trace_pb2: {e}", file=sys.stderr)
    sys.exit(3)

trace = Trace()
with open(sys.argv[1], "rb") as f:
    trace.ParseFromString(f.read())


def comm(b):
    return b if isinstance(b, str) else b.decode("utf-8", "replace")


def task(w):
    return {"pid": w.pid, "comm": comm(w.comm), "prio": w.prio if w.HasField("prio") else -1}


out = []
for packet in trace.packet:
    if not packet.HasField("ftrace_events"):
        continue
    bundle = packet.ftrace_events
    cpu = bundle.cpu
    for e in bundle.event:
        kind = e.WhichOneof("event")
        rec = {"ts": e.timestamp, "cpu": cpu, "kind": kind}
        if kind == "sched_switch":
            s = e.sched_switch
            rec.update(prev={"pid": s.prev_pid, "comm": comm(s.prev_comm), "prio": s.prev_prio},
                       prev_state=s.prev_state,
                       next={"pid": s.next_pid, "comm": comm(s.next_comm), "prio": s.next_prio})
        elif kind in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
            w = getattr(e, kind)
            rec.update(task=task(w), target_cpu=w.target_cpu)
        elif kind == "sched_migrate_task":
            m = e.sched_migrate_task
            rec.update(task={"pid": m.pid, "comm": comm(m.comm), "prio": m.prio},
                       orig_cpu=m.orig_cpu, dest_cpu=m.dest_cpu)
        elif kind == "sched_process_fork":
            f = e.sched_process_fork
            rec.update(parent_pid=f.parent_pid, child_pid=f.child_pid, child_comm=comm(f.child_comm))
        elif kind in ("sched_process_exit", "sched_process_free"):
            rec.update(pid=getattr(e, kind).pid)
        elif kind == "print" and e.print.buf:
            # An empty print only marks where the source's window ends.
            rec.update(buf=e.print.buf)
        else:
            continue
        out.append(rec)
    if bundle.HasField("compact_sched"):
        c = bundle.compact_sched
        intern = [comm(s) for s in c.intern_table]
        ts = 0
        for i, delta in enumerate(c.switch_timestamp):
            ts += delta
            out.append({"ts": ts, "cpu": cpu, "kind": "compact_switch",
                        "prev_state": c.switch_prev_state[i],
                        "next": {"pid": c.switch_next_pid[i], "prio": c.switch_next_prio[i],
                                 "comm": intern[c.switch_next_comm_index[i]]}})
        ts = 0
        for i, delta in enumerate(c.waking_timestamp):
            ts += delta
            out.append({"ts": ts, "cpu": cpu, "kind": "compact_waking",
                        "task": {"pid": c.waking_pid[i], "prio": c.waking_prio[i],
                                 "comm": intern[c.waking_comm_index[i]]},
                        "target_cpu": c.waking_target_cpu[i]})
for rec in out:
    print(json.dumps(rec))
