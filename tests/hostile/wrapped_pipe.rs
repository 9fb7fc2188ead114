//! A pipe-mode perf.data inside a whole-file wrapper (issue #11 item 2) is read as it inflates,
//! like the pipe on standard input: peak memory stays bounded whatever the inflated size, and the
//! report is the one of the plain file.

use crate::hostile_support::{run, run_fed, scratch};
use serde_json::Value;
use std::io::{Read, Write};
use std::time::Duration;

/// perf_event_header.type values of the records kept in the repeated body: every kernel record
/// (< 64) and FINISHED_ROUND; the metadata records before them (attrs, tracing data, features)
/// are said once, at the start.
const FIRST_USER_TYPE: u32 = 64;
const FINISHED_ROUND: u32 = 68;
const HEADER_TRACING_DATA: u32 = 66;

/// The records of a pipe-mode perf.data after its 16-byte header, as (type, bytes) slices.
fn records(data: &[u8]) -> Vec<(u32, &[u8])> {
    let mut out = Vec::new();
    let mut pos = 16;
    while pos + 8 <= data.len() {
        let kind = u32::from_le_bytes(data[pos..pos + 4].try_into().unwrap());
        let mut len = u16::from_le_bytes(data[pos + 6..pos + 8].try_into().unwrap()) as usize;
        assert!(len >= 8, "record of size {len} at {pos}");
        if kind == HEADER_TRACING_DATA {
            // The tracing data follows its record; its size is the record's first field.
            len += u32::from_le_bytes(data[pos + 8..pos + 12].try_into().unwrap()) as usize;
        }
        out.push((kind, &data[pos..pos + len]));
        pos += len;
    }
    assert_eq!(pos, data.len(), "the fixture frames to its end");
    out
}

/// Writes to `out` a real `perf record -o -` capture with its event records said `copies`
/// times over; returns the bytes written. Streamed: a test process that held them would lend
/// its peak RSS to the children that other tests spawn meanwhile (see `main.rs`).
fn write_repeated_capture(copies: usize, out: &mut impl Write) -> u64 {
    let raw = std::fs::read(fixtures::file("perfdata/sched-record.pipe.data.xz")).unwrap();
    let mut data = Vec::new();
    xz2::read::XzDecoder::new(&raw[..])
        .read_to_end(&mut data)
        .unwrap();
    let body: Vec<u8> = records(&data)
        .into_iter()
        .filter(|&(kind, _)| kind < FIRST_USER_TYPE || kind == FINISHED_ROUND)
        .flat_map(|(_, bytes)| bytes.iter().copied())
        .collect();
    assert!(
        body.len() > 6 << 20,
        "the capture holds {} event bytes",
        body.len()
    );
    out.write_all(&data).unwrap();
    for _ in 1..copies {
        out.write_all(&body).unwrap();
    }
    data.len() as u64 + (copies as u64 - 1) * body.len() as u64
}

fn analyze_json(path: &std::path::Path, mib: u64) -> Value {
    let r = run(
        &["analyze", path.to_str().unwrap(), "--json", "-"],
        None,
        Duration::from_secs(120),
    );
    r.expect_code(0).expect_bounded(mib, 120);
    eprintln!(
        "{}: peak RSS {} KiB in {:?}",
        path.display(),
        r.peak_rss_kib,
        r.wall
    );
    serde_json::from_str(&r.stdout).unwrap()
}

/// 64 copies of the events of a real capture, ~420 MB plain, in a `.zst` of a few MB: read within
/// 160 MB of peak RSS (less than half of the inflated size), with every event, task and count the
/// plain capture gives on standard input. Neither test input holds the plain bytes on disk: a
/// CI machine's disk is shared with the builds.
#[test]
fn a_zst_of_a_pipe_perf_data_is_read_as_it_inflates() {
    let dir = scratch("zstpipe");
    let packed = dir.join("big.pipe.data.zst");
    let size = {
        let mut enc =
            zstd::stream::Encoder::new(std::fs::File::create(&packed).unwrap(), 3).unwrap();
        // A window larger than the repeated body, so the copies cost next to nothing.
        enc.long_distance_matching(true).unwrap();
        enc.window_log(24).unwrap();
        let mut out = std::io::BufWriter::new(enc);
        let size = write_repeated_capture(64, &mut out);
        out.into_inner().ok().unwrap().finish().unwrap();
        size
    };
    let inflated_mib = size >> 20;
    let bound = 160;
    assert!(
        inflated_mib > 2 * bound,
        "{inflated_mib} MiB is no test of the bound"
    );
    let plain = run_fed(
        &["analyze", "-", "--json", "-"],
        Some(Box::new(|pipe| {
            let mut pipe = std::io::BufWriter::new(pipe);
            write_repeated_capture(64, &mut pipe);
            let _ = pipe.flush();
        })),
        Duration::from_secs(120),
    );
    plain.expect_code(0);
    let want: Value = serde_json::from_str(&plain.stdout).unwrap();
    let got = analyze_json(&packed, bound);
    assert!(want["quality"]["events"]["sched_switch"].as_u64().unwrap() > 100_000);
    assert_eq!(got["quality"], want["quality"]);
    assert_eq!(got["tasks"], want["tasks"]);
    assert_eq!(got["system"], want["system"]);
    let _ = std::fs::remove_dir_all(&dir);
}
