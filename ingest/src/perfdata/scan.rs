//! Takes in the framed records one by one: the metadata records as they come (attrs, ids,
//! tracing data, features — pipe mode sends them in-stream), unpacks compressed records,
//! and for every record that yields events queues a 16-byte sort key (timestamp, where the
//! record is, which attr it belongs to) for its round. Nothing is decoded or copied here.

use super::attr::{self, Attr};
use super::bytes::{u32_at, u64_at, Endian};
use super::compressed::Unpacker;
use super::features::Features;
use super::header::{Header, Section};
use super::ids::IdMap;
use super::records::{self, Record};
use super::rounds::{Key, RoundQueue};
use super::sample::SampleFormat;
use crate::{Error, IngestStats, Result};

/// One attr of the session with what is needed to read and name its records.
#[derive(Debug, Clone)]
pub(crate) struct AttrEntry {
    pub attr: Attr,
    pub format: SampleFormat,
    /// Name from EVENT_DESC / EVENT_UPDATE ("sched:sched_switch", "cycles"), if known.
    pub name: Option<String>,
}

/// Which buffer a key points into.
pub(super) const SEG_INPUT: u64 = 0;
pub(super) const SEG_UNPACKED: u64 = 1;

pub(crate) struct Scan {
    pub endian: Endian,
    /// The run's `--strict` and `--max-inflate`.
    pub options: crate::ReadOptions,
    pub attrs: Vec<AttrEntry>,
    pub ids: IdMap,
    ids_dirty: bool,
    pub features: Features,
    /// (input offset, bytes) of the HEADER_TRACING_DATA payload (pipe mode).
    pub tracing_data: Option<(u64, Vec<u8>)>,
    pub unpacker: Option<Unpacker>,
    /// How far the unpacked stream has been framed (unpacked offset).
    pub unpacked_pos: usize,
    /// Keys waiting for their round.
    pub queue: RoundQueue,
    max_ts: u64,
    pub stats: IngestStats,
    pub records_seen: u64,
    /// Records that carry a time (samples, task records) framed so far.
    pub timed_records: u64,
    pub compressed_records: u64,
    pub rounds: u64,
    /// Changes whenever attrs, ids or their names change (the emitter's view must follow).
    pub generation: u64,
}

impl Scan {
    pub(crate) fn new(endian: Endian, options: crate::ReadOptions) -> Scan {
        Scan {
            endian,
            options,
            attrs: Vec::new(),
            ids: IdMap::default(),
            ids_dirty: false,
            features: Features::default(),
            tracing_data: None,
            unpacker: None,
            unpacked_pos: 0,
            queue: RoundQueue::default(),
            max_ts: 0,
            stats: IngestStats::default(),
            records_seen: 0,
            timed_records: 0,
            compressed_records: 0,
            rounds: 0,
            generation: 0,
        }
    }

    /// Reads the file-mode attrs section and the ids each attr points to.
    pub(crate) fn read_file_attrs(&mut self, bytes: &[u8], header: &Header) -> Result<()> {
        let section = header.attrs.slice(bytes, "attrs", 24)?;
        let stride = header.attr_size;
        if stride < attr::ATTR_SIZE_VER0 as u64 + 16 || stride > 1 << 16 {
            return Err(Error::at(
                16,
                format!("attr_size {stride} is not a perf_event_attr (64.. bytes) plus 16"),
            ));
        }
        if !header.attrs.size.is_multiple_of(stride) {
            return Err(Error::at(
                24,
                format!(
                    "attrs section size {} is not a multiple of attr_size {stride}",
                    header.attrs.size
                ),
            ));
        }
        for (i, entry) in section.chunks_exact(stride as usize).enumerate() {
            let at = header.attrs.offset + i as u64 * stride;
            let room = stride as usize - 16;
            let attr = attr::parse(self.endian, entry, room, at)?;
            let ids_at = at + room as u64;
            let ids = Section {
                offset: u64_at(self.endian, entry, room).unwrap_or(0),
                size: u64_at(self.endian, entry, room + 8).unwrap_or(0),
            };
            let raw_ids = ids.slice(bytes, "attr ids", ids_at)?;
            let index = self.push_attr(attr, at)?;
            for chunk in raw_ids.chunks_exact(8) {
                let id = u64_at(self.endian, chunk, 0).unwrap_or(0);
                self.ids.insert(id, index, None);
            }
            self.ids_dirty = true;
        }
        Ok(())
    }

    fn push_attr(&mut self, attr: Attr, at: u64) -> Result<u16> {
        let index =
            u16::try_from(self.attrs.len()).map_err(|_| Error::at(at, "more than 65535 attrs"))?;
        if let Some(first) = self.attrs.first() {
            // perf requires one id position for every event of a session (it locates the id
            // before knowing the event); a file that breaks this cannot be read reliably.
            if first.format.id_offset != SampleFormat::new(&attr).id_offset
                && self.attrs.len() + 1 > 1
                && first.format.id_offset.is_some()
            {
                return Err(Error::at(
                    at,
                    "attrs disagree on the position of the sample id (IDENTIFIER/ID bits)",
                ));
            }
        }
        self.attrs.push(AttrEntry {
            format: SampleFormat::new(&attr),
            attr,
            name: None,
        });
        Ok(index)
    }

    /// Checks, at the end of the stream, that compressed data did not stop inside a record.
    pub(crate) fn finish(&mut self) -> Result<()> {
        if let Some(unpacker) = &self.unpacker {
            let end = unpacker.base + unpacker.out.len();
            if self.unpacked_pos != end {
                return Err(Error::whole(format!(
                    "compressed data ends inside a record ({} of {end} unpacked bytes framed)",
                    self.unpacked_pos
                )));
            }
        }
        self.freeze_ids();
        Ok(())
    }

    /// Builds the id lookup table once ids stop changing.
    pub(crate) fn freeze_ids(&mut self) {
        if self.ids_dirty {
            self.ids.freeze();
            self.ids_dirty = false;
        }
    }

    /// Takes in one record of the input stream at input offset `offset`.
    pub(crate) fn record(&mut self, rec: Record<'_>, offset: usize) -> Result<()> {
        self.records_seen += 1;
        let at = offset as u64;
        if matches!(
            rec.kind,
            records::HEADER_ATTR
                | records::HEADER_FEATURE
                | records::ID_INDEX
                | records::EVENT_UPDATE
                | records::HEADER_TRACING_DATA
        ) {
            self.generation += 1;
        }
        match rec.kind {
            records::SAMPLE => self.key_sample(rec, SEG_INPUT, offset),
            records::COMM
            | records::FORK
            | records::EXIT
            | records::LOST
            | records::LOST_SAMPLES => self.key_side_band(rec, SEG_INPUT, offset),
            records::HEADER_ATTR => self.header_attr(rec, at),
            records::HEADER_TRACING_DATA => {
                self.tracing_data = Some((at + 12, rec.extra.to_vec()));
                Ok(())
            }
            records::HEADER_FEATURE => {
                let bit = u64_at(self.endian, rec.body, 0)
                    .ok_or_else(|| Error::at(at, "HEADER_FEATURE record without feature id"))?;
                let bit = u32::try_from(bit).unwrap_or(u32::MAX);
                let before = self.features.events.len();
                self.features
                    .add(bit, &rec.body[8..], at + 16, self.endian)?;
                if self.features.events.len() != before {
                    self.name_attrs_from_event_desc();
                }
                Ok(())
            }
            records::ID_INDEX => self.id_index(rec, at),
            records::EVENT_UPDATE => {
                // u64 type (2 = name); u64 id; NUL-terminated name.
                if u64_at(self.endian, rec.body, 0) == Some(2) {
                    if let Some(info) =
                        u64_at(self.endian, rec.body, 8).and_then(|id| self.ids.get(id))
                    {
                        let raw = &rec.body[16.min(rec.body.len())..];
                        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                        self.attrs[info.attr as usize].name =
                            Some(String::from_utf8_lossy(&raw[..end]).into_owned());
                    }
                }
                Ok(())
            }
            records::COMPRESSED | records::COMPRESSED2 => {
                self.compressed_records += 1;
                let payload = if rec.kind == records::COMPRESSED2 {
                    let size = u64_at(self.endian, rec.body, 0)
                        .ok_or_else(|| Error::at(at, "COMPRESSED2 record without data size"))?;
                    rec.body[8..]
                        .get(..usize::try_from(size).unwrap_or(usize::MAX))
                        .ok_or_else(|| {
                            Error::at(
                                at,
                                format!("COMPRESSED2 data size {size} exceeds the record"),
                            )
                        })?
                } else {
                    rec.body
                };
                if self.unpacker.is_none() {
                    self.unpacker = Some(Unpacker::new(self.options.max_inflate)?);
                }
                self.unpacker.as_mut().unwrap().feed(payload, at + 8)?;
                self.scan_unpacked()
            }
            records::FINISHED_ROUND => {
                self.rounds += 1;
                self.queue.marker();
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Frames the whole records that the last compressed record completed.
    fn scan_unpacked(&mut self) -> Result<()> {
        let mut unpacker = self.unpacker.take().expect("unpacker present");
        let out = std::mem::take(&mut unpacker.out);
        let base = unpacker.base;
        let mut pos = self.unpacked_pos;
        let result = (|| -> Result<()> {
            loop {
                // A record whose header or body is not complete yet waits for the next chunk.
                let at = pos - base;
                let Some(size) = super::bytes::u16_at(self.endian, &out, at + 6) else {
                    return Ok(());
                };
                if size >= 8 && at + size as usize > out.len() {
                    return Ok(());
                }
                let framed = records::frame(self.endian, &out, at, 0).map_err(|e| {
                    Error::whole(format!("in decompressed data at byte {pos}: {}", e.cause))
                })?;
                let Some(rec) = framed else { return Ok(()) };
                self.unpacked_record(rec, pos)?;
                pos += rec.len;
            }
        })();
        self.unpacked_pos = pos;
        unpacker.out = out;
        self.unpacker = Some(unpacker);
        result
    }

    /// Takes in one record of the unpacked stream (kernel records only are expected).
    fn unpacked_record(&mut self, rec: Record<'_>, pos: usize) -> Result<()> {
        self.records_seen += 1;
        match rec.kind {
            records::SAMPLE => self.key_sample(rec, SEG_UNPACKED, pos),
            records::COMM
            | records::FORK
            | records::EXIT
            | records::LOST
            | records::LOST_SAMPLES => self.key_side_band(rec, SEG_UNPACKED, pos),
            records::FINISHED_ROUND => {
                self.rounds += 1;
                self.queue.marker();
                Ok(())
            }
            records::COMPRESSED | records::COMPRESSED2 => {
                Err(Error::whole("compressed record inside compressed data"))
            }
            _ => Ok(()),
        }
    }

    fn header_attr(&mut self, rec: Record<'_>, at: u64) -> Result<()> {
        let attr = attr::parse(self.endian, rec.body, rec.body.len(), at + 8)?;
        let index = self.push_attr(attr.clone(), at)?;
        let ids = &rec.body[attr.size as usize..];
        for chunk in ids.chunks_exact(8) {
            self.ids
                .insert(u64_at(self.endian, chunk, 0).unwrap_or(0), index, None);
        }
        self.ids_dirty = true;
        Ok(())
    }

    fn id_index(&mut self, rec: Record<'_>, at: u64) -> Result<()> {
        let nr = u64_at(self.endian, rec.body, 0)
            .ok_or_else(|| Error::at(at, "ID_INDEX record without entry count"))?;
        if nr > (rec.body.len() as u64 - 8) / 32 {
            return Err(Error::at(
                at,
                format!("ID_INDEX: {nr} entries do not fit in the record"),
            ));
        }
        // Entries are {id, idx, cpu, tid}; `idx` is the position in the event's CPU/thread
        // map, not the attr: ids are tied to attrs by HEADER_ATTR / the attrs section only.
        for i in 0..nr as usize {
            let e = 8 + 32 * i;
            let word = |k: usize| u64_at(self.endian, rec.body, e + 8 * k).unwrap_or(0);
            if let Ok(cpu) = u32::try_from(word(2)) {
                if cpu != u32::MAX {
                    self.ids.set_cpu(word(0), cpu);
                }
            }
        }
        self.ids_dirty = true;
        Ok(())
    }

    /// Names attrs from EVENT_DESC: by id when the ids match, else by position.
    pub(crate) fn name_attrs_from_event_desc(&mut self) {
        for (i, desc) in self.features.events.iter().enumerate() {
            let by_id = desc
                .ids
                .iter()
                .find_map(|&id| self.ids.get(id))
                .map(|info| info.attr as usize);
            let index = by_id.or((self.features.events.len() == self.attrs.len()).then_some(i));
            if let Some(entry) = index.and_then(|k| self.attrs.get_mut(k)) {
                entry.name = Some(desc.name.clone());
            }
        }
    }

    /// Attr of a record whose id word (if the layout has one) is `id`.
    #[inline]
    fn attr_of(&mut self, id: Option<u64>) -> Option<u16> {
        match id {
            Some(id) => {
                self.freeze_ids();
                self.ids.get(id).map(|info| info.attr).or_else(|| {
                    // A session with a single attr and no id table (old files) still works.
                    (self.attrs.len() == 1 && self.ids.is_empty()).then_some(0)
                })
            }
            None => (!self.attrs.is_empty()).then_some(0),
        }
    }

    fn push_key(&mut self, ts: Option<u64>, seg: u64, offset: usize, attr: u16) {
        // Records without a time keep their place after the latest time seen.
        self.timed_records += 1;
        let ts = ts.unwrap_or(self.max_ts);
        if ts < self.max_ts {
            self.stats.out_of_order += 1;
        } else {
            self.max_ts = ts;
        }
        self.queue.push(Key::new(ts, seg, offset, attr));
    }

    fn key_sample(&mut self, rec: Record<'_>, seg: u64, offset: usize) -> Result<()> {
        let Some(first) = self.attrs.first() else {
            return Err(Error::at(offset as u64, "sample before any attr"));
        };
        let id = match first.format.id_offset {
            Some(off) => match u64_at(self.endian, rec.body, off) {
                Some(id) => Some(id),
                None => {
                    self.reject(seg, offset, "sample too short for its id");
                    return Ok(());
                }
            },
            None => None,
        };
        let Some(attr) = self.attr_of(id) else {
            self.reject(seg, offset, "sample id matches no attr");
            return Ok(());
        };
        let format = &self.attrs[attr as usize].format;
        let ts = match format.time_offset {
            Some(off) => match u64_at(self.endian, rec.body, off) {
                Some(t) => Some(t),
                None => {
                    self.reject(seg, offset, "sample too short for its time");
                    return Ok(());
                }
            },
            None => None,
        };
        self.push_key(ts, seg, offset, attr);
        Ok(())
    }

    fn key_side_band(&mut self, rec: Record<'_>, seg: u64, offset: usize) -> Result<()> {
        let Some(first) = self.attrs.first() else {
            // Side-band before any attr cannot be attributed; it carries nothing we need.
            return Ok(());
        };
        let id = match (first.format.id_all, first.format.trailer_id_from_end) {
            (true, Some(back)) => rec
                .body
                .len()
                .checked_sub(back)
                .and_then(|p| u64_at(self.endian, rec.body, p)),
            _ => None,
        };
        let attr = self.attr_of(id).unwrap_or(0);
        let format = &self.attrs[attr as usize].format;
        let ts = format.trailer(self.endian, rec.body).and_then(|t| t.time);
        self.push_key(ts, seg, offset, attr);
        Ok(())
    }

    fn reject(&mut self, seg: u64, offset: usize, reason: &'static str) {
        let place = if seg == SEG_INPUT {
            "input offset"
        } else {
            "unpacked offset"
        };
        self.stats.reject(reason, || {
            format!("perf record at {place} {offset}: {reason}")
        });
    }
}

/// The type and body of the record at `offset` of a segment (for the emitter).
#[inline]
pub(super) fn record_at(endian: Endian, seg: &[u8], offset: usize) -> Option<(u32, &[u8])> {
    let kind = u32_at(endian, seg, offset)?;
    let size = super::bytes::u16_at(endian, seg, offset + 6)? as usize;
    let body = seg.get(offset + 8..offset + size)?;
    Some((kind, body))
}
