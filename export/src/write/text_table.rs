//! A table file in a text format: what CSV and NDJSON share. One row writer for every
//! table, column-major where it can be: what a batch's columns need is worked out once per
//! batch, column by column ([`BatchPlan`]: which text columns need no quoting or escaping,
//! one scan of each column's bytes), and then each row's values are written straight from
//! the columns into the file's byte buffer by the format's [`RowText`], with no per-row
//! cells rebuilt and no per-text scan.

use super::cursor::{Cursor, TextFile};
use super::BatchWriter;
use crate::cell::Kind;
use crate::columns::ColumnBatch;
use std::fs::File;

/// A text format's way of writing a batch's rows.
pub(super) trait RowText: Send {
    /// The bytes of a row but its values (separators, keys, the newline).
    fn frame(&self) -> usize;
    /// The most bytes a value of a non-text column of `kind` takes (null included).
    fn most(&self, kind: Kind) -> usize;
    /// Whether byte `b` in a text makes the format quote or escape it.
    fn special(&self, b: u8) -> bool;
    /// The most bytes a text value of `len` bytes takes (null included), `plain`: its
    /// column has no special byte.
    fn text_bound(&self, len: usize, plain: bool) -> usize;
    /// Writes row `i` of `batch`, its text columns as `plan` says.
    fn write(&self, out: &mut Cursor, batch: &ColumnBatch, i: usize, plan: &BatchPlan);
}

/// How one batch's columns are written, worked out once for the batch.
pub(super) struct BatchPlan {
    /// Per column: a text column none of whose texts holds a special byte, so each is
    /// written as it is.
    pub(super) plain: Vec<bool>,
    /// The most bytes a row takes but its text values.
    fixed: usize,
    /// The text columns, with whether each is plain.
    texts: Vec<(usize, bool)>,
}

impl BatchPlan {
    fn new(format: &impl RowText, batch: &ColumnBatch) -> BatchPlan {
        let mut fixed = format.frame();
        let mut texts = Vec::new();
        let plain = batch
            .defs
            .iter()
            .zip(&batch.columns)
            .enumerate()
            .map(|(c, (def, column))| match column.text_bytes() {
                Some(bytes) => {
                    let plain = !bytes.iter().any(|&b| format.special(b));
                    texts.push((c, plain));
                    plain
                }
                None => {
                    fixed += format.most(def.kind);
                    false
                }
            })
            .collect();
        BatchPlan {
            plain,
            fixed,
            texts,
        }
    }

    /// The most bytes row `i` of `batch` takes.
    #[inline]
    fn bound(&self, format: &impl RowText, batch: &ColumnBatch, i: usize) -> usize {
        self.fixed
            + self
                .texts
                .iter()
                .map(|&(c, plain)| format.text_bound(batch.columns[c].text_len(i), plain))
                .sum::<usize>()
    }
}

/// A table file in the text format `F`.
pub(super) struct TextTable<F> {
    out: TextFile,
    format: F,
}

impl<F: RowText> TextTable<F> {
    /// A table written to `file` in `format`, starting with the bytes of `header`.
    pub(super) fn new(file: File, format: F, header: &[u8]) -> std::io::Result<TextTable<F>> {
        let mut table = TextTable {
            out: TextFile::new(file),
            format,
        };
        table.out.row(header.len(), |out| out.bytes(header))?;
        Ok(table)
    }
}

impl<F: RowText> BatchWriter for TextTable<F> {
    fn write(&mut self, batch: &mut ColumnBatch) -> std::io::Result<()> {
        let batch = &*batch;
        let format = &self.format;
        let plan = BatchPlan::new(format, batch);
        for i in 0..batch.len() {
            let bound = plan.bound(format, batch, i);
            self.out
                .row(bound, |out| format.write(out, batch, i, &plan))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.finish()
    }
}
