//! Bad input: errors carry the line and the cause, bad lines among good ones are counted
//! (never fatal, never silent), and mutated real lines never panic.

use crate::text_common::*;
use ingest::error::Location;
use ingest::Event;
use proptest::prelude::*;

fn read_err(bytes: &[u8]) -> ingest::Error {
    ingest::text::read(bytes, &mut |_: &Event| {}).expect_err("must fail")
}

#[test]
fn empty_and_comment_only_inputs_fail_without_a_line() {
    for input in [&b""[..], b"\n\n", b"# tracer: nop\n#\n"] {
        let e = read_err(input);
        assert_eq!(e.location, Location::Whole, "{e}");
        assert!(e.cause.contains("without any event lines"), "{e}");
    }
}

#[test]
fn garbage_fails_at_its_first_bad_line() {
    let e = read_err(b"# tracer: nop\n\nhello world\nmore junk\n");
    assert_eq!(e.location, Location::Line(3), "{e}");
    assert!(
        e.cause.contains("no [CPU] column") && e.cause.contains("hello world"),
        "{e}"
    );
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let e = read_err(&junk);
    assert!(matches!(e.location, Location::Line(n) if n >= 1), "{e}");
    // Through the format detection too: binary junk is not text, and not a panic.
    assert!(ingest::read_bytes(&junk, &mut |_: &Event| {}).is_err());
    // A sched event whose fields do not parse is named by its reason.
    let e = read_err(b"  bash-1 [000] 1.000001: sched_switch: nonsense\n");
    assert_eq!(e.location, Location::Line(1));
    assert!(e.cause.contains("malformed sched_switch"), "{e}");
}

#[test]
fn bad_lines_among_good_ones_are_counted_with_line_numbers() {
    let mut text = String::from("cpus=2\n");
    text += "  bash-10 [000] 1.000001: sched_waking: comm=a pid=2 prio=120 target_cpu=001\n";
    text += "this is not a trace line\n";
    text += "  bash-10 [000] 1.000002: sched_switch: prev_comm=bash prev_pid=10 prev_prio=120 prev_state=Q ==> next_comm=a next_pid=2 next_prio=120\n";
    text += "  bash-10 [000] 1.000003: sched_wakeup: comm=a pid=x prio=120 target_cpu=001\n";
    text += "  bash-10 [001] 0.999999: print: tracing_mark_write: hello\n";
    let (got, events) = read_text(text.as_bytes());
    assert_eq!(events.len(), 2);
    assert_eq!(
        got.stats.out_of_order, 1,
        "the print line is older than the waking"
    );
    assert_eq!(events[0].ts, 999_999_000);
    let rejected: Vec<_> = got
        .stats
        .rejected
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        rejected,
        [
            ("malformed sched_wakeup", 1),
            ("no [CPU] column", 1),
            ("unknown sched_switch prev_state letters", 1),
        ]
    );
    assert_eq!(got.stats.reject_examples.len(), 3);
    assert!(
        got.stats.reject_examples[0].starts_with("line 3: no [CPU] column"),
        "{:?}",
        got.stats.reject_examples
    );
    assert!(
        got.stats.reject_examples[1].starts_with("line 4: unknown sched_switch prev_state letters")
    );
    assert!(got.stats.reject_examples[2].starts_with("line 5: malformed sched_wakeup"));
}

/// Real lines of every rendering, to mutate.
const SEEDS: &[&str] = &[
    "       trace-cmd-190   [003]    19.069687: sched_switch:         trace-cmd:190 [120] S ==> swapper/3:0 [120]",
    "          <idle>-0     [001]    19.071991: sched_wakeup:         rcu_preempt:15 [120] CPU:001",
    "       trace-cmd-6244  [005] 162534.215742: sched_switch:          prev_comm=trace-cmd prev_pid=6244 prev_prio=120 prev_state=64 next_comm=swapper/5 next_pid=0 next_prio=120",
    "            perf 18087 [000]  1137.897399:       sched:sched_switch: prev_comm=perf prev_pid=18087 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0",
    "com.android.systemui-611   (  611) [001] d..5 514769.086090: sched_wakeup: comm=Binder_5 pid=679 prio=120 success=1 target_cpu=001 state=W",
    " capture-ftrace--18356   [000] d..2.  1078.974263: sched_wakeup_new: comm=capture-ftrace- pid=18358 prio=120 target_cpu=001",
    "capture--18585     1d..2. 1088293958us#: sched_switch: prev_comm=capture-ftrace- prev_pid=18585 prev_prio=120 prev_state=D ==> next_comm=lto cgu.0.rcgu. next_pid=18577 next_prio=120",
    "      capture.sh-18044 [000]  1138.508818: sched_process_fork:   comm=capture.sh pid=18044 child_comm=capture.sh child_pid=18138",
    "     migration/0    18 [000]  1137.897409: sched:sched_migrate_task: comm=perf pid=18087 prio=120 orig_cpu=0 dest_cpu=1",
    "CPU:1 [LOST 367433 EVENTS]",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Byte edits of real lines: the reader returns (events or an error), never panics,
    /// and every non-comment line is either an event or counted as rejected.
    #[test]
    fn mutated_lines_never_panic(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..6),
        repeat in 1usize..4,
    ) {
        let mut line = SEEDS[seed].as_bytes().to_vec();
        for (pos, byte, op) in edits {
            let at = if line.is_empty() { 0 } else { pos % (line.len() + 1) };
            match op {
                0 if at < line.len() => line[at] = byte,
                1 => line.insert(at, byte),
                _ if at < line.len() => { line.remove(at); }
                _ => {}
            }
        }
        let mut text = Vec::new();
        for _ in 0..repeat {
            text.extend_from_slice(&line);
            text.push(b'\n');
        }
        let mut n = 0u64;
        match ingest::text::read(&text, &mut |_: &Event| n += 1) {
            Ok(got) => {
                let events: u64 = got.stats.events.values().sum();
                let rejected: u64 = got.stats.rejected.values().sum();
                prop_assert!(n >= events);
                prop_assert!(events + rejected <= repeat as u64 * (1 + line.iter().filter(|&&b| b == b'\r' || b == b'\n').count() as u64));
            }
            Err(e) => prop_assert!(!e.cause.is_empty()),
        }
    }
}

/// Inputs over a few MB are parsed in parallel chunks: line numbers of rejects, lost
/// markers at chunk ends and the out-of-order count must not depend on the split.
#[test]
fn line_numbers_and_markers_across_chunks() {
    let mut text = String::from("cpus=2\n");
    let mut line_no = 1;
    for i in 0..60_000u64 {
        line_no += 1;
        if i == 45_000 {
            text += "garbage in the middle\n";
            continue;
        }
        if i % 10_000 == 9_999 {
            text += &format!("CPU:{} [LOST {i} EVENTS]\n", i % 2);
            continue;
        }
        let (s, us) = (1000 + i / 1_000_000, i % 1_000_000);
        text += &format!(
            "            bash-4242  [{:03}] {s}.{us:06}: sched_waking:         comm=worker one pid=77 prio=120 target_cpu=001\n",
            i % 2
        );
    }
    assert!(text.len() > 6 << 20, "{} bytes: several chunks", text.len());
    let (got, events) = read_text(text.as_bytes());
    assert_eq!(got.stats.rejected.get("no [CPU] column"), Some(&1));
    assert_eq!(
        got.stats.reject_examples,
        [format!(
            "line {}: no [CPU] column: \"garbage in the middle\"",
            45_002
        )]
    );
    assert_eq!(line_no, 60_001);
    assert_eq!(got.stats.events["sched_waking"], 60_000 - 1 - 6);
    assert_eq!(got.stats.out_of_order, 0);
    let lost: Vec<_> = events
        .iter()
        .filter(|e| matches!(e.kind, ingest::EventKind::Lost { .. }))
        .collect();
    assert_eq!(lost.len(), 6);
    for l in &lost {
        let ingest::EventKind::Lost { count: Some(c) } = l.kind else {
            panic!()
        };
        // Marker i takes the time of the event after it (1000 s + (i + 1) µs); the last
        // line has none after it and takes the one before.
        let at = if c == 59_999 { c - 1 } else { c + 1 };
        assert_eq!(l.ts, 1_000_000_000_000 + at * 1000, "{l:?}");
        assert_eq!(u64::from(l.cpu), c % 2);
    }
}
