//! A perf.data held in memory read on two threads: a second thread frames the records,
//! queues their keys and sorts each round ([`super::pass`]); the caller's thread decodes the
//! sorted rounds straight from the shared map and feeds its sink. Framing touches every byte
//! of the input first and is the larger half; the decode goes with the analysis so that the
//! two threads carry about the same load (the sink need not be `Send`).

use super::emit::{Emitter, Segment, Session};
use super::header::Header;
use super::ids::IdMap;
use super::pass::{self, Emitting, Rounds};
use super::rounds::Key;
use super::scan::{AttrEntry, Scan, SEG_UNPACKED};
use super::source::{Mapped, Source};
use crate::ftrace::{Decoder, Endian, TracingData};
use crate::progress::Tracker;
use crate::source::{KeepAll, Release};
use crate::{EventSink, IngestStats, Ingested, Result, TraceMeta};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::Arc;

/// Rounds in flight between the threads (a round is up to a few MB of keys).
const ROUNDS_IN_FLIGHT: usize = 2;

/// The session as the decoding thread holds it.
struct SessionCopy {
    endian: Endian,
    attrs: Vec<AttrEntry>,
    ids: IdMap,
    decoder: Option<Arc<Decoder>>,
    tracing: Option<Arc<TracingData>>,
}

impl SessionCopy {
    fn view(&self) -> Session<'_> {
        Session {
            endian: self.endian,
            attrs: &self.attrs,
            ids: &self.ids,
            decoder: self.decoder.as_deref(),
        }
    }
}

enum Message {
    Meta(Box<TraceMeta>),
    Session(Box<SessionCopy>),
    /// A round's keys; `unpacked` is a copy of the unpacked (`perf record -z`) bytes its keys
    /// point into, from the given unpacked offset on (that buffer is the reader's to reuse).
    Round {
        keys: Vec<Key>,
        unpacked: Option<(usize, Vec<u8>)>,
    },
    DoneBefore(u64),
}

/// [`Rounds`] sent to the decoding thread.
struct Sending {
    full: SyncSender<Message>,
    recycled: Receiver<Vec<Key>>,
}

impl Sending {
    fn send(&mut self, message: Message) {
        // The decoding side only goes away when it panicked; the join reports that.
        let _ = self.full.send(message);
    }
}

impl Rounds for Sending {
    fn meta(&mut self, meta: &TraceMeta) {
        self.send(Message::Meta(Box::new(meta.clone())));
    }

    fn session(
        &mut self,
        session: &Session,
        tracing: Option<&Arc<TracingData>>,
        decoder: Option<&Arc<Decoder>>,
    ) {
        self.send(Message::Session(Box::new(SessionCopy {
            endian: session.endian,
            attrs: session.attrs.to_vec(),
            ids: session.ids.clone(),
            decoder: decoder.cloned(),
            tracing: tracing.cloned(),
        })));
    }

    fn round(&mut self, keys: &[Key], _: &Session, _: Segment, unpacked: Segment) {
        let mut batch = self.recycled.try_recv().unwrap_or_default();
        batch.extend_from_slice(keys);
        let unpacked = keys
            .iter()
            .filter(|k| k.segment() == SEG_UNPACKED)
            .map(|k| k.offset())
            .min()
            .map(|low| {
                let from = low.saturating_sub(unpacked.base).min(unpacked.bytes.len());
                (unpacked.base + from, unpacked.bytes[from..].to_vec())
            });
        self.send(Message::Round {
            keys: batch,
            unpacked,
        });
    }

    fn done_before(&mut self, at: u64) {
        self.send(Message::DoneBefore(at));
    }
}

/// Reads the records of `data_end`-bounded `bytes` (header and file-mode metadata already
/// taken into `scan`) on a second thread and decodes them into `sink` on this one.
pub(crate) fn run(
    header: &Header,
    scan: Scan,
    bytes: &[u8],
    data_end: usize,
    release: &dyn Release,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let (full, messages) = sync_channel::<Message>(ROUNDS_IN_FLIGHT);
    let (empty, recycled) = channel::<Vec<Key>>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            // Pages are given back by the decoding side, once it is done with them.
            let mut source = Mapped::new(bytes, data_end, &KeepAll);
            let mut sending = Sending { full, recycled };
            pass::run(header, scan, &mut source, &mut sending, progress)
        });
        let mut emitting = Emitting {
            emitter: Emitter::default(),
            sink,
            stats: IngestStats::default(),
        };
        let mut releaser = Mapped::new(bytes, data_end, release);
        let input = Segment {
            base: 0,
            bytes: &bytes[..data_end],
        };
        let mut session: Option<Box<SessionCopy>> = None;
        let mut cancelled = false;
        for message in &messages {
            match message {
                Message::Meta(meta) => emitting.meta(&meta),
                Message::Session(copy) => {
                    emitting.session(&copy.view(), copy.tracing.as_ref(), copy.decoder.as_ref());
                    session = Some(copy);
                }
                Message::Round { mut keys, unpacked } => {
                    let copy = session
                        .as_ref()
                        .expect("pass::flush hands on the session before any round");
                    let unpacked = unpacked.as_ref().map_or(
                        Segment {
                            base: 0,
                            bytes: &[],
                        },
                        |(base, bytes)| Segment { base: *base, bytes },
                    );
                    emitting.round(&keys, &copy.view(), input, unpacked);
                    keys.clear();
                    let _ = empty.send(keys);
                    // Cancelled: stop decoding; the framing thread sees the flag too.
                    if progress.progress().is_cancelled() {
                        cancelled = true;
                        break;
                    }
                }
                Message::DoneBefore(at) => releaser.done_before(at),
            }
        }
        // Unblocks a framing thread waiting to hand over a round.
        drop(messages);
        let pass = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        if cancelled {
            return Err(crate::Error::cancelled());
        }
        let Emitting {
            emitter,
            sink,
            stats,
        } = emitting;
        pass.finish(emitter, stats, sink)
    })
}
