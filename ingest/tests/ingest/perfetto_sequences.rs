//! Perfetto packet sequences (issue #11 items 5 and 6): `previous_packet_dropped` on the first
//! packet of a sequence is no loss, on a later one it is; bundles of two sequences that
//! interleave in the file are in order, each on its own.

use ingest::perfetto::proto::*;
use ingest::{Event, EventKind};
use prost::Message;

fn switch(ts: u64, prev: i32, next: i32) -> FtraceEvent {
    FtraceEvent {
        timestamp: Some(ts),
        pid: Some(prev as u32),
        event: Some(FtraceEventKind::SchedSwitch(SchedSwitch {
            prev_comm: Some(b"a".to_vec()),
            prev_pid: Some(prev),
            prev_prio: Some(120),
            prev_state: Some(0),
            next_comm: Some(b"b".to_vec()),
            next_pid: Some(next),
            next_prio: Some(120),
        })),
        ..Default::default()
    }
}

fn waking(ts: u64, pid: i32) -> FtraceEvent {
    FtraceEvent {
        timestamp: Some(ts),
        pid: Some(0),
        event: Some(FtraceEventKind::SchedWaking(SchedWakeup {
            comm: Some(b"w".to_vec()),
            pid: Some(pid),
            prio: Some(120),
            success: Some(1),
            target_cpu: Some(0),
        })),
        ..Default::default()
    }
}

fn packet(seq: u32, dropped: bool, events: Vec<FtraceEvent>) -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(seq),
        previous_packet_dropped: dropped.then_some(true),
        ftrace_events: Some(FtraceEventBundle {
            cpu: Some(0),
            event: events,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn read(packets: Vec<TracePacket>) -> (ingest::Ingested, Vec<Event>) {
    let bytes = Trace { packet: packets }.encode_to_vec();
    let mut events = Vec::new();
    let got = ingest::perfetto::read(&bytes, &mut |e: &Event| events.push(*e)).unwrap();
    (got, events)
}

#[test]
fn interleaved_sequences_are_in_order_and_first_packets_lose_nothing() {
    // Sequence 1 (sched) and 2 (wakings), each with the flag on its first packet as Perfetto
    // writes them; in file order the times go 100 300 | 200 400 | 500 | 450.
    let (got, events) = read(vec![
        packet(1, true, vec![switch(100, 0, 1), switch(300, 1, 0)]),
        packet(2, true, vec![waking(200, 7), waking(400, 8)]),
        packet(1, false, vec![switch(500, 0, 1)]),
        packet(2, false, vec![waking(450, 9)]),
    ]);
    assert_eq!(got.stats.out_of_order, 0);
    assert_eq!(
        got.stats
            .rejected
            .get("packets dropped by the tracing service"),
        None
    );
    let times: Vec<u64> = events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::TaskName { .. }))
        .map(|e| e.ts)
        .collect();
    assert_eq!(times, [100, 200, 300, 400, 450, 500]);
}

#[test]
fn a_later_dropped_flag_and_backwards_time_in_one_sequence_count() {
    let (got, _) = read(vec![
        packet(1, true, vec![switch(100, 0, 1)]),
        packet(1, true, vec![switch(300, 1, 0)]),
        packet(1, false, vec![switch(200, 0, 1)]),
    ]);
    assert_eq!(
        got.stats.rejected["packets dropped by the tracing service"],
        1
    );
    assert_eq!(got.stats.out_of_order, 1);
}
