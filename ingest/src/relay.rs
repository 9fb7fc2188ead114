//! Runs a reader on a second thread and hands its events to the caller's sink in batches,
//! so that decoding the next records overlaps the analysis of the previous ones (the sink
//! need not be `Send`). Events and the one metadata message keep their order.

use crate::{Event, EventSink, TraceMeta};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};

/// Events per batch: large enough that the channel costs nothing per event, small enough
/// to stay in the cache between the two threads.
const BATCH: usize = 4096;
/// Batches in flight: the reader may run this far ahead of the sink.
const IN_FLIGHT: usize = 4;

enum Message {
    Meta(Box<TraceMeta>),
    Events(Vec<Event>),
}

/// The reader's end: full batches go to the sink's thread, emptied ones come back.
pub(crate) struct Deliver {
    full: SyncSender<Message>,
    recycled: Receiver<Vec<Event>>,
    /// The sink's side has gone (it only does so when it stops early).
    closed: bool,
}

impl Deliver {
    /// Sends `batch` (leaving an empty, recycled vector in its place); false once the sink's
    /// side has gone.
    pub(crate) fn batch(&mut self, batch: &mut Vec<Event>) -> bool {
        if batch.is_empty() {
            return !self.closed;
        }
        let mut next = self.recycled.try_recv().unwrap_or_default();
        std::mem::swap(&mut next, batch);
        self.send(Message::Events(next))
    }

    fn send(&mut self, message: Message) -> bool {
        self.closed = self.closed || self.full.send(message).is_err();
        !self.closed
    }
}

/// An [`EventSink`] for the reader's thread that batches what it is given.
pub(crate) struct BatchSink<'d> {
    deliver: &'d mut Deliver,
    batch: Vec<Event>,
}

impl EventSink for BatchSink<'_> {
    #[inline]
    fn event(&mut self, event: &Event) {
        self.batch.push(*event);
        if self.batch.len() >= BATCH {
            self.deliver.batch(&mut self.batch);
            self.batch.reserve(BATCH);
        }
    }

    fn meta(&mut self, meta: &TraceMeta) {
        self.deliver.batch(&mut self.batch);
        self.deliver.send(Message::Meta(Box::new(meta.clone())));
    }
}

impl Drop for BatchSink<'_> {
    fn drop(&mut self) {
        self.deliver.batch(&mut self.batch);
    }
}

/// Runs `produce` on its own thread with a [`Deliver`] and feeds everything it delivers to
/// `sink` on this thread; returns what `produce` returns (a panic there is resumed here).
pub(crate) fn run_batches<T: Send>(
    produce: impl FnOnce(&mut Deliver) -> T + Send,
    sink: &mut dyn EventSink,
) -> T {
    let (full, batches) = sync_channel::<Message>(IN_FLIGHT);
    let (empty, recycled): (Sender<Vec<Event>>, _) = channel();
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            let mut deliver = Deliver {
                full,
                recycled,
                closed: false,
            };
            produce(&mut deliver)
        });
        for message in batches {
            match message {
                Message::Meta(meta) => sink.meta(&meta),
                Message::Events(mut batch) => {
                    sink.events(&batch);
                    batch.clear();
                    let _ = empty.send(batch);
                }
            }
        }
        producer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Runs a reader that feeds an [`EventSink`] on its own thread (see [`run_batches`]).
pub(crate) fn run<T: Send>(
    read: impl FnOnce(&mut dyn EventSink) -> T + Send,
    sink: &mut dyn EventSink,
) -> T {
    run_batches(
        |deliver| {
            let mut batching = BatchSink {
                deliver,
                batch: Vec::with_capacity(BATCH),
            };
            read(&mut batching)
        },
        sink,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EventKind;

    #[test]
    fn events_and_meta_arrive_in_order() {
        let mut seen = Vec::new();
        struct Record<'a>(&'a mut Vec<i64>);
        impl EventSink for Record<'_> {
            fn event(&mut self, e: &Event) {
                self.0.push(e.ts as i64);
            }
            fn meta(&mut self, _: &TraceMeta) {
                self.0.push(-1);
            }
        }
        let n = run(
            |sink| {
                sink.meta(&TraceMeta::default());
                for ts in 0..10_000u64 {
                    sink.event(&Event {
                        ts,
                        cpu: 0,
                        current_pid: 0,
                        kind: EventKind::Other,
                    });
                }
                42
            },
            &mut Record(&mut seen),
        );
        assert_eq!(n, 42);
        assert_eq!(seen.len(), 10_001);
        assert_eq!(seen[0], -1);
        assert!(seen[1..].iter().enumerate().all(|(i, &t)| t == i as i64));
    }
}
