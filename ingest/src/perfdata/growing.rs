//! A perf.data that `perf record` is still writing, tallied as it grows: the samples so far
//! and the events perf's ring buffers lost, per CPU, from the PERF_RECORD_LOST records perf
//! writes as soon as a buffer has room again. `schedtrace record` shows them while it
//! records; perf itself says nothing about losses until it ends.
//!
//! Only whole records are read: a record still being written is read on the next call, from
//! where this one stopped. perf writes a file-mode header with its attrs before the first
//! record (the data size is filled in at the end), so the layout of the loss records'
//! `sample_id` trailer (which holds the CPU) is known from the start; in pipe mode the attrs
//! come in-stream. Compressed records (`perf record -z`) are not opened: their samples and
//! losses are not counted.

use super::attr;
use super::bytes::{u64_at, Endian};
use super::header::{self, Mode, FILE_HEADER_SIZE};
use super::records::{self, HEADER_ATTR, LOST, SAMPLE};
use super::sample::SampleFormat;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes read per call at most: a storm writes tens of MiB a second, the rest waits.
const READ_AT_MOST: u64 = 64 << 20;

/// What a growing perf.data holds so far.
#[derive(Debug, Default, Clone)]
pub struct Growing {
    endian: Option<Endian>,
    /// The layout of the loss records' trailer (the first attr's: perf gives every event of
    /// a session the same sample type).
    format: Option<SampleFormat>,
    /// Where the next record starts.
    pos: u64,
    /// The stream cannot be followed further (a record smaller than its header).
    stuck: bool,
    /// PERF_RECORD_SAMPLE records: the events recorded so far.
    pub samples: u64,
    /// Events lost, by CPU (`None`: the record does not say).
    pub lost: BTreeMap<Option<u32>, u64>,
    /// Bytes of the file so far.
    pub bytes: u64,
}

impl Growing {
    /// Reads what was appended to `path` since the last call; a file too short for its
    /// header yet, or not a perf.data, is left for the next call.
    pub fn update(&mut self, path: &Path) -> std::io::Result<()> {
        let mut file = std::fs::File::open(path)?;
        self.bytes = file.metadata()?.len();
        if self.endian.is_none() && !self.start(&mut file)? {
            return Ok(());
        }
        if self.stuck || self.bytes <= self.pos {
            return Ok(());
        }
        let len = (self.bytes - self.pos).min(READ_AT_MOST);
        let mut buf = Vec::with_capacity(len as usize);
        file.seek(SeekFrom::Start(self.pos))?;
        file.take(len).read_to_end(&mut buf)?;
        self.tally(&buf);
        Ok(())
    }

    /// Reads the header (and a file's attrs); false until they are all written.
    fn start(&mut self, file: &mut std::fs::File) -> std::io::Result<bool> {
        let mut head = Vec::new();
        file.by_ref()
            .take(FILE_HEADER_SIZE)
            .read_to_end(&mut head)?;
        let Ok(h) = header::parse(&head) else {
            return Ok(false);
        };
        if h.mode == Mode::File {
            let attr_len = h.attr_size.min(4096);
            let mut first = Vec::new();
            file.seek(SeekFrom::Start(h.attrs.offset))?;
            file.take(attr_len).read_to_end(&mut first)?;
            let room = attr_len.saturating_sub(16) as usize;
            match attr::parse(h.endian, &first, room, h.attrs.offset) {
                Ok(a) => self.format = Some(SampleFormat::new(&a)),
                Err(_) => return Ok(false),
            }
        }
        self.endian = Some(h.endian);
        self.pos = h.data.offset;
        Ok(true)
    }

    /// Counts the whole records of `buf` (which starts at `self.pos`).
    fn tally(&mut self, buf: &[u8]) {
        let endian = self.endian.expect("started");
        let mut pos = 0;
        loop {
            let rec = match records::frame(endian, buf, pos, self.pos) {
                Ok(Some(rec)) => rec,
                // The end of what is written, or a record still being written.
                Ok(None) => break,
                Err(_) if buf.len() - pos >= 8 && records_too_small(endian, buf, pos) => {
                    self.stuck = true;
                    break;
                }
                Err(_) => break,
            };
            match rec.kind {
                SAMPLE => self.samples += 1,
                // {u64 id; u64 lost; trailer}. The LOST_SAMPLES perf writes when it ends
                // repeat these (see `emit`): not counted here.
                LOST => {
                    let count = u64_at(endian, rec.body, 8).unwrap_or(0);
                    let cpu = self
                        .format
                        .as_ref()
                        .and_then(|f| f.trailer(endian, rec.body))
                        .and_then(|s| s.cpu);
                    *self.lost.entry(cpu).or_insert(0) += count;
                }
                HEADER_ATTR if self.format.is_none() => {
                    let body = rec.body;
                    if let Ok(a) = attr::parse(endian, body, body.len(), self.pos) {
                        self.format = Some(SampleFormat::new(&a));
                    }
                }
                _ => {}
            }
            pos += rec.len;
        }
        self.pos += pos as u64;
    }
}

/// Whether the record at `pos` declares a size below its own header (the stream is broken
/// there; a record merely not written yet is never that).
fn records_too_small(endian: Endian, buf: &[u8], pos: usize) -> bool {
    super::bytes::u16_at(endian, buf, pos + 6).is_some_and(|size| size < 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A pipe-mode perf.data with one overflow (`fixtures/perfdata/sched-record.pipe.data.xz`,
    /// its README: `perf script` counts 62,363 samples, and `--show-lost-events` one loss of
    /// 225 events on CPU 1, repeated by three time-0 LOST_SAMPLES summaries 90 + 90 + 45).
    /// Written in two parts, cut inside a record: the tally is the same as in one.
    #[test]
    fn a_file_read_as_it_grows_counts_samples_and_losses_per_cpu() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/perfdata/sched-record.pipe.data.xz");
        let bytes = crate::source::load(&path).unwrap().to_vec();
        let out = std::env::temp_dir().join(format!("growing-{}.data", std::process::id()));
        let cut = bytes.len() / 2 + 3;
        let mut f = std::fs::File::create(&out).unwrap();
        let mut g = Growing::default();
        f.write_all(&bytes[..cut]).unwrap();
        g.update(&out).unwrap();
        let halfway = g.samples;
        f.write_all(&bytes[cut..]).unwrap();
        g.update(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        assert!(0 < halfway && halfway < g.samples, "{halfway}");
        assert_eq!(g.samples, 24151 + 25521 + 12680 + 9 + 1 + 1);
        assert_eq!(g.lost, BTreeMap::from([(Some(1), 225)]));
        assert_eq!(g.bytes, bytes.len() as u64);
    }
}
