//! A column's rows as the pages made here want them ([`super::ints`], [`super::bools`]): the
//! values that are not null, in order, with no slot for a null, and the [`Validity`] of
//! every row. The page's values are then the store as it is, and its definition levels the
//! validity's bytes.

use super::page::{extend_bits, Validity};
use polars_arrow::bitmap::{Bitmap, MutableBitmap};

/// Where a column keeps its values that are not null.
pub(super) trait Present: Default {
    type Value: Copy;
    fn len(&self) -> usize;
    fn reserve(&mut self, n: usize);
    fn push(&mut self, value: Self::Value);
    fn extend_present(&mut self, values: impl Iterator<Item = Self::Value>);
}

impl Present for Vec<i64> {
    type Value = i64;
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n)
    }
    #[inline]
    fn push(&mut self, value: i64) {
        Vec::push(self, value)
    }
    #[inline]
    fn extend_present(&mut self, values: impl Iterator<Item = i64>) {
        self.extend(values)
    }
}

/// Booleans as bits, the first value lowest (the format's `PLAIN` booleans).
impl Present for MutableBitmap {
    type Value = bool;
    fn len(&self) -> usize {
        MutableBitmap::len(self)
    }
    fn reserve(&mut self, n: usize) {
        MutableBitmap::reserve(self, n)
    }
    #[inline]
    fn push(&mut self, value: bool) {
        MutableBitmap::push(self, value)
    }
    #[inline]
    fn extend_present(&mut self, values: impl Iterator<Item = bool>) {
        extend_bits(self, values)
    }
}

/// The rows of a column: the values that are not null, in order, and (from the first null
/// on) which rows are.
#[derive(Default)]
pub(super) struct Dense<P> {
    values: P,
    valid: Validity,
    rows: usize,
}

impl<P: Present> Dense<P> {
    #[inline]
    pub(super) fn push(&mut self, value: Option<P::Value>) {
        self.valid.push(self.rows, value.is_some());
        if let Some(v) = value {
            self.values.push(v);
        }
        self.rows += 1;
    }

    /// Appends `values` (a slice's, mapped): the values in one loop, and the validity
    /// (once there is a null) in another, 64 rows to a word. Pushed one by one, a branch
    /// and a bit for each, they were a seventh of the `intervals` writer's CPU.
    #[inline]
    pub(super) fn extend<I>(&mut self, values: I)
    where
        I: ExactSizeIterator<Item = Option<P::Value>> + Clone,
    {
        let (n, before) = (values.len(), self.values.len());
        self.values.reserve(n);
        self.values.extend_present(values.clone().flatten());
        let nulls = n - (self.values.len() - before);
        self.valid
            .extend(self.rows, nulls, values.map(|v| v.is_some()));
        self.rows += n;
    }

    /// Appends `value` `n` times (a task's pid on each of its rows).
    pub(super) fn extend_repeated(&mut self, value: Option<P::Value>, n: usize) {
        self.valid.repeat(self.rows, n, value.is_some());
        if let Some(v) = value {
            self.values.extend_present(std::iter::repeat_n(v, n));
        }
        self.rows += n;
    }

    /// The number of values that are not null.
    pub(super) fn present(&self) -> usize {
        self.values.len()
    }

    /// The values, the validity and the number of rows gathered, leaving the column empty
    /// with `room` for its next values.
    pub(super) fn take_parts(&mut self, room: P) -> (P, Option<MutableBitmap>, usize) {
        let values = std::mem::replace(&mut self.values, room);
        (values, self.valid.take(), std::mem::take(&mut self.rows))
    }

    /// Every row, `null` in the slot of a null (for the tests that compare ways of
    /// gathering, as Arrow arrays), and the validity; the column is left empty.
    pub(super) fn take_slots<T>(
        &mut self,
        present: impl FnOnce(P) -> Vec<T>,
        null: T,
    ) -> (Vec<T>, Option<Bitmap>)
    where
        T: Copy,
    {
        let (values, valid, rows) = self.take_parts(P::default());
        let valid: Option<Bitmap> = valid.map(Into::into);
        let mut present = present(values).into_iter();
        let all = (0..rows)
            .map(|row| match &valid {
                Some(v) if !v.get_bit(row) => null,
                _ => present.next().expect("a value for each valid row"),
            })
            .collect();
        (all, valid)
    }
}
