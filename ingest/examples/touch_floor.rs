//! The floor under any reader of a large file on this machine: the time to touch one word of
//! every ~104-byte record once, front to back. `touch_floor FILE [map|mapkeep|read]`:
//! `map` maps the file and gives pages back every 8 MiB as the readers do, `mapkeep` keeps
//! them (peak RSS = the file), `read` copies it through an 8 MiB buffer with read(2).
use std::io::Read;
use std::time::Instant;

const STRIDE: usize = 104;
const STEP: usize = 8 << 20;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: touch_floor FILE [map|mapkeep|read]");
    let mode = args.next().unwrap_or_else(|| "map".into());
    let start = Instant::now();
    let mut sum = 0u64;
    let mut touch = |buf: &[u8]| {
        let mut pos = 0;
        while pos + 8 <= buf.len() {
            sum = sum.wrapping_add(u64::from_le_bytes(buf[pos..pos + 8].try_into().unwrap()));
            pos += STRIDE;
        }
    };
    match mode.as_str() {
        "map" | "mapkeep" => {
            let bytes = ingest::source::load(path.as_ref()).expect("load");
            for at in (0..bytes.len()).step_by(STEP) {
                let end = (at + STEP).min(bytes.len());
                touch(&bytes[at..end]);
                if mode == "map" {
                    ingest::source::Release::release(&bytes, at..end);
                }
            }
        }
        "read" => {
            let mut file = std::fs::File::open(&path).expect("open");
            let mut buf = vec![0u8; STEP];
            loop {
                let n = file.read(&mut buf).expect("read");
                if n == 0 {
                    break;
                }
                touch(&buf[..n]);
            }
        }
        other => panic!("unknown mode {other}"),
    }
    println!(
        "{mode}: {:.3} s (checksum {sum:x})",
        start.elapsed().as_secs_f64()
    );
}
