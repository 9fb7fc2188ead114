//! `schemas/perfetto/schedtrace_subset.proto` and the hand-written prost structs in
//! `ingest/src/perfetto/proto.rs` agree: a `Trace` with every struct field set is
//! encoded, and walking its bytes with the .proto as the only guide must find every
//! declared field of every message (so no struct field is missing or misnumbered)
//! and nothing undeclared, each with the wire type its declared type implies.

use ingest::perfetto::proto::*;
use ingest::perfetto::wire::field_at;
use prost::Message;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
struct Decl {
    ty: String,
    repeated: bool,
}

/// message full name (`ProcessTree.Process`) → field number → declaration.
type Schema = BTreeMap<String, BTreeMap<u64, Decl>>;

fn parse_proto(text: &str) -> Schema {
    let mut schema = Schema::new();
    // Scopes: Some(message name) or None for a oneof block.
    let mut scopes: Vec<Option<String>> = Vec::new();
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap().trim();
        if line.is_empty() || line.starts_with("syntax") || line.starts_with("package") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "message" {
            let parent = scopes.iter().rev().find_map(|s| s.clone());
            let name = match parent {
                Some(p) => format!("{p}.{}", words[1]),
                None => words[1].to_string(),
            };
            schema.entry(name.clone()).or_default();
            if !line.ends_with('}') {
                scopes.push(Some(name));
            }
        } else if words[0] == "oneof" {
            scopes.push(None);
        } else if line == "}" {
            scopes.pop();
        } else {
            let (repeated, rest) = match words[0] {
                "repeated" => (true, &words[1..]),
                "optional" => (false, &words[1..]),
                _ => (false, &words[..]),
            };
            let number: u64 = rest[3]
                .trim_end_matches(';')
                .parse()
                .unwrap_or_else(|_| panic!("field line {line:?}"));
            assert_eq!(rest[2], "=", "{line}");
            let message = scopes
                .iter()
                .rev()
                .find_map(|s| s.clone())
                .expect("field outside a message");
            let old = schema.get_mut(&message).unwrap().insert(
                number,
                Decl {
                    ty: rest[0].to_string(),
                    repeated,
                },
            );
            assert!(old.is_none(), "{message}: field {number} declared twice");
        }
    }
    schema
}

/// The message type a field refers to (nested names first), or `None` for scalars.
fn resolve(schema: &Schema, scope: &str, ty: &str) -> Option<String> {
    let nested = format!("{scope}.{ty}");
    if schema.contains_key(&nested) {
        Some(nested)
    } else if schema.contains_key(ty) {
        Some(ty.to_string())
    } else {
        None
    }
}

fn expected_wire_type(schema: &Schema, scope: &str, d: &Decl) -> u8 {
    if resolve(schema, scope, &d.ty).is_some() {
        return 2;
    }
    match d.ty.as_str() {
        "string" | "bytes" => 2,
        "double" | "fixed64" => 1,
        _ if d.repeated => 2, // packed scalars
        _ => 0,
    }
}

fn walk(schema: &Schema, message: &str, bytes: &[u8], seen: &mut BTreeSet<(String, u64)>) {
    let decls = &schema[message];
    let mut pos = 0;
    while pos < bytes.len() {
        let f = field_at(bytes, pos).unwrap();
        let d = decls.get(&f.number).unwrap_or_else(|| {
            panic!(
                "{message}: the structs encode field {} that the .proto does not declare",
                f.number
            )
        });
        assert_eq!(
            f.wire_type,
            expected_wire_type(schema, message, d),
            "{message}.{}: wire type",
            f.number
        );
        seen.insert((message.to_string(), f.number));
        if let Some(inner) = resolve(schema, message, &d.ty) {
            walk(schema, &inner, &bytes[f.payload.0..f.payload.1], seen);
        }
        pos = f.payload.1;
    }
}

fn s(x: &str) -> Option<Vec<u8>> {
    Some(x.as_bytes().to_vec())
}

fn wakeup() -> SchedWakeup {
    SchedWakeup {
        comm: s("c"),
        pid: Some(1),
        prio: Some(2),
        success: Some(1),
        target_cpu: Some(3),
    }
}

fn everything() -> Trace {
    use FtraceEventKind as K;
    let kinds = vec![
        K::Print(PrintFtraceEvent {
            ip: Some(1),
            buf: s("m\n"),
        }),
        K::SchedSwitch(SchedSwitch {
            prev_comm: s("a"),
            prev_pid: Some(1),
            prev_prio: Some(2),
            prev_state: Some(-1),
            next_comm: s("b"),
            next_pid: Some(3),
            next_prio: Some(4),
        }),
        K::CpuFrequency(Empty {}),
        K::CpuIdle(CpuIdle {
            state: Some(1),
            cpu_id: Some(2),
        }),
        K::SchedWakeup(wakeup()),
        K::SchedWaking(wakeup()),
        K::SchedWakeupNew(wakeup()),
        K::SchedProcessExit(SchedProcessExit {
            comm: s("x"),
            pid: Some(1),
            tgid: Some(2),
            prio: Some(3),
        }),
        K::SchedProcessFork(SchedProcessFork {
            parent_comm: s("p"),
            parent_pid: Some(1),
            child_comm: s("c"),
            child_pid: Some(2),
        }),
        K::SchedProcessFree(SchedProcessFree {
            comm: s("f"),
            pid: Some(1),
            prio: Some(2),
        }),
        K::Generic(GenericFtraceEvent { event_name: s("g") }),
        K::SchedMigrateTask(SchedMigrateTask {
            comm: s("m"),
            pid: Some(1),
            prio: Some(2),
            orig_cpu: Some(3),
            dest_cpu: Some(4),
        }),
    ];
    let events = kinds
        .into_iter()
        .map(|k| FtraceEvent {
            timestamp: Some(1),
            pid: Some(2),
            common_flags: Some(3),
            event: Some(k),
        })
        .collect();
    let packet = TracePacket {
        ftrace_events: Some(FtraceEventBundle {
            cpu: Some(1),
            event: events,
            lost_events: Some(true),
            compact_sched: Some(CompactSched {
                switch_timestamp: vec![1],
                switch_prev_state: vec![2],
                switch_next_pid: vec![3],
                switch_next_prio: vec![4],
                intern_table: vec![b"i".to_vec()],
                switch_next_comm_index: vec![0],
                waking_timestamp: vec![5],
                waking_pid: vec![6],
                waking_target_cpu: vec![7],
                waking_prio: vec![8],
                waking_comm_index: vec![0],
                waking_common_flags: vec![9],
            }),
            ftrace_clock: Some(2),
            ftrace_timestamp: Some(3),
            boot_timestamp: Some(4),
            previous_bundle_end_timestamp: Some(5),
        }),
        process_tree: Some(ProcessTree {
            processes: vec![Process {
                pid: Some(1),
                ppid: Some(2),
                cmdline: vec![b"a".to_vec()],
            }],
            threads: vec![Thread {
                tid: Some(1),
                name: s("t"),
                tgid: Some(2),
            }],
        }),
        clock_snapshot: Some(ClockSnapshot {
            clocks: vec![Clock {
                clock_id: Some(6),
                timestamp: Some(1),
            }],
            primary_trace_clock: Some(6),
        }),
        timestamp: Some(1),
        trusted_packet_sequence_id: Some(2),
        sequence_flags: Some(1),
        ftrace_stats: Some(FtraceStats {
            phase: Some(1),
            cpu_stats: vec![FtraceCpuStats {
                cpu: Some(1),
                entries: Some(2),
                overrun: Some(3),
                dropped_events: Some(4),
            }],
        }),
        previous_packet_dropped: Some(true),
        system_info: Some(SystemInfo {
            utsname: Some(Utsname {
                sysname: s("L"),
                version: s("v"),
                release: s("r"),
                machine: s("m"),
            }),
            num_cpus: Some(4),
        }),
        compressed_packets: Some(vec![1]),
        timestamp_clock_id: Some(6),
        zstd_compressed_packets: Some(vec![2]),
    };
    Trace {
        packet: vec![packet],
    }
}

#[test]
fn structs_match_the_proto() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../schemas/perfetto/schedtrace_subset.proto"
    ))
    .unwrap();
    let schema = parse_proto(&text);
    assert!(schema.len() >= 20, "{:?}", schema.keys());
    let bytes = everything().encode_to_vec();
    let mut seen = BTreeSet::new();
    walk(&schema, "Trace", &bytes, &mut seen);
    let declared: BTreeSet<(String, u64)> = schema
        .iter()
        .flat_map(|(m, fields)| fields.keys().map(move |n| (m.clone(), *n)))
        .collect();
    let missing: Vec<_> = declared.difference(&seen).collect();
    assert!(
        missing.is_empty(),
        "declared in the .proto but not encoded by the structs: {missing:?}"
    );
    // And the bytes decode back to the same value.
    assert_eq!(Trace::decode(&bytes[..]).unwrap(), everything());
}
