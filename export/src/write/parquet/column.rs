//! One column of the Parquet batch being gathered, as typed values (`Vec<i64>`,
//! `Vec<f64>`, bits) and a validity bitmap, made into an Arrow array once per row group.
//!
//! Text columns are gathered as a dictionary: every text column of the per-event tables
//! holds a few distinct words (a task's name, a state, an end reason), and polars, given
//! them as strings, estimated their cardinality and hashed every value again into the
//! dictionary it writes for them (with copying the text, a third of the writers' CPU in
//! the profile). Looking each word up once here, as it comes, gives the same dictionary
//! pages for a fraction of that.

use polars::prelude::PlHashMap;
use polars_arrow::array::{Array, DictionaryArray, MutableBinaryViewArray, PrimitiveArray};
use polars_arrow::datatypes::{ArrowDataType, IntegerType};

use super::bools::Bools;
use super::dictionary;
use super::ints::Ints;
use super::page::Validity;
use crate::cell::{Cell, Kind};
use polars::prelude::PolarsError;
use polars_arrow::bitmap::Bitmap;
use polars_parquet::parquet::page::Page;
use polars_parquet::parquet::schema::types::PrimitiveType;

/// Values and their validity (a null's slot holds the type's default; the bitmap is made
/// at the first null, [`Validity`]): the real columns, and a text column's keys.
pub(super) struct Values<T> {
    values: Vec<T>,
    valid: Validity,
}

impl<T> Default for Values<T> {
    fn default() -> Self {
        Values {
            values: Vec::new(),
            valid: Validity::default(),
        }
    }
}

impl<T: Default> Values<T> {
    #[inline]
    fn push(&mut self, value: Option<T>) {
        self.valid.push(self.values.len(), value.is_some());
        self.values.push(value.unwrap_or_default());
    }

    /// Appends `values` (a slice's, mapped), in one loop without a
    /// [`Cell`] each (see [`super::intervals`]).
    #[inline]
    fn extend(&mut self, values: impl ExactSizeIterator<Item = Option<T>>) {
        self.values.reserve(values.len());
        for value in values {
            self.push(value);
        }
    }

    /// The values gathered, leaving room for as many in the next batch: a vector grown
    /// from nothing again is reallocated at each doubling, every batch (paired runs on the
    /// large trace of `bench/`: 0.98 × the export's CPU, within the runs' noise).
    fn take(&mut self) -> (Vec<T>, Option<Bitmap>) {
        let valid = self.valid.take().map(Into::into);
        let room = Vec::with_capacity(self.values.len());
        (std::mem::replace(&mut self.values, room), valid)
    }
}

/// A text column as dictionary keys, the words in the order first seen.
///
/// Most cells are found without hashing: a `'static` word (a state, an end reason: the
/// tables' [`Cell::Word`]s) by its address among the few seen, and any text equal to the
/// one before it (consecutive rows of one task repeat its name) by that comparison. The
/// hash of every cell was the Parquet writers' largest cost after the dictionaries.
#[derive(Default)]
pub(super) struct Words {
    keys: Values<u32>,
    index: PlHashMap<Box<str>, u32>,
    words: Vec<Box<str>>,
    /// `'static` words seen in this row group, each in the slot its address picks (boxed:
    /// some KiB, which would make every column that large).
    fixed: Box<FixedSlots>,
    /// The key of the last text pushed.
    last: Option<u32>,
}

/// `(address, length, key)` of `'static` words, a slot each by a hash of the address:
/// found in one comparison, where a search among the words seen took some (the text
/// columns' largest cost once the writers no longer hashed every cell). Address 0 is an
/// empty slot (no word lies there).
struct FixedSlots([(usize, usize, u32); FIXED_SLOTS]);

const FIXED_SLOTS: usize = 64;

impl Default for FixedSlots {
    fn default() -> Self {
        FixedSlots([(0, 0, 0); FIXED_SLOTS])
    }
}

impl FixedSlots {
    /// The slot of `w`: the top bits of its address times a large odd constant (the
    /// addresses of a column's words are near each other; the product spreads them).
    #[inline]
    fn slot(w: &'static str) -> usize {
        let spread = (w.as_ptr() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (spread >> (64 - FIXED_SLOTS.trailing_zeros())) as usize
    }
}

/// Above this share of distinct values a dictionary does not pay, and the column is
/// written plain: the rule polars applies to the strings it is given (`tasks`' JSON text
/// columns, one distinct value a row, stay as polars wrote them).
const PLAIN_ABOVE: f64 = 0.75;

impl Words {
    /// The key of `w`, a new one when it was not seen in this row group.
    fn key(&mut self, w: &str) -> u32 {
        match self.index.get(w) {
            Some(&key) => key,
            None => {
                let key = self.words.len() as u32;
                self.words.push(w.into());
                self.index.insert(w.into(), key);
                key
            }
        }
    }

    fn push(&mut self, word: Option<&str>) {
        let key = word.map(|w| match self.last {
            Some(last) if *self.words[last as usize] == *w => last,
            _ => {
                let key = self.key(w);
                self.last = Some(key);
                key
            }
        });
        self.keys.push(key);
    }

    /// Pushes a `'static` word: its address and length name it for good (the text there
    /// never changes), so a word seen before is found among the few by them.
    fn push_fixed(&mut self, w: &'static str) {
        let key = self.fixed_key(w);
        self.keys.push(Some(key));
    }

    /// Pushes `w` `n` times (a task's name on each of its rows).
    fn push_repeated(&mut self, w: &str, n: usize) {
        if n == 0 {
            // No row: the word stays out of the dictionary, as row by row.
            return;
        }
        let key = match self.last {
            Some(last) if *self.words[last as usize] == *w => last,
            _ => self.key(w),
        };
        self.last = Some(key);
        self.keys.extend(std::iter::repeat_n(Some(key), n));
    }

    /// The key of `'static` word `w`, found as [`Words::push_fixed`] finds it.
    #[inline]
    fn fixed_key(&mut self, w: &'static str) -> u32 {
        let slot = FixedSlots::slot(w);
        let at = (w.as_ptr() as usize, w.len());
        match self.fixed.0[slot] {
            (address, len, key) if (address, len) == at => key,
            _ => {
                // Two words of one column in one slot take turns in it, each found by
                // its text when the other holds it.
                let key = self.key(w);
                self.fixed.0[slot] = (at.0, at.1, key);
                key
            }
        }
    }

    /// Whether the column's words are few enough for a dictionary ([`PLAIN_ABOVE`]).
    fn is_dictionary(&self) -> bool {
        let rows = self.keys.values.len();
        rows <= 128 || self.words.len() as f64 / rows as f64 <= PLAIN_ABOVE
    }

    /// The keys, their validity and the words gathered, leaving the column empty for the
    /// next row group.
    fn take_parts(&mut self) -> (Vec<u32>, Option<Bitmap>, Vec<Box<str>>) {
        let (keys, valid) = self.keys.take();
        let words = std::mem::take(&mut self.words);
        self.index.clear();
        *self.fixed = FixedSlots::default();
        self.last = None;
        (keys, valid, words)
    }

    /// The gathered rows as a dictionary page and a data page of `type_`
    /// ([`dictionary`]), leaving the column empty; None (and the column as it was) when
    /// they are written plain.
    pub(super) fn dictionary_pages(
        &mut self,
        type_: &PrimitiveType,
    ) -> Option<Result<[Page; 2], PolarsError>> {
        if !self.is_dictionary() {
            return None;
        }
        let (keys, valid, words) = self.take_parts();
        let rows = keys.len();
        let (bits, present) = match &valid {
            Some(valid) => {
                let (bytes, offset, _) = valid.as_slice();
                debug_assert_eq!(offset, 0, "a bitmap of its own");
                let present: Vec<u32> = keys
                    .iter()
                    .zip(valid.iter())
                    .filter(|v| v.1)
                    .map(|v| *v.0)
                    .collect();
                (Some(bytes), present)
            }
            None => (None, keys),
        };
        Some(dictionary::pages(&words, &present, bits, rows, type_))
    }

    fn take(&mut self) -> Box<dyn Array> {
        let plain = !self.is_dictionary();
        let (keys, valid, words) = self.take_parts();
        let rows = keys.len();
        if plain {
            let mut plain = MutableBinaryViewArray::<str>::with_capacity(rows);
            for (row, &key) in keys.iter().enumerate() {
                match &valid {
                    Some(v) if !v.get_bit(row) => plain.push_null(),
                    _ => plain.push_value(&*words[key as usize]),
                }
            }
            return plain.freeze().boxed();
        }
        let mut values = MutableBinaryViewArray::<str>::with_capacity(words.len());
        for w in &words {
            values.push_value(&**w);
        }
        let keys = PrimitiveArray::from_vec(keys).with_validity(valid);
        let dtype = ArrowDataType::Dictionary(
            IntegerType::UInt32,
            Box::new(ArrowDataType::Utf8View),
            false,
        );
        DictionaryArray::try_new(dtype, keys, values.freeze().boxed())
            .expect("every key indexes a word pushed with it")
            .boxed()
    }
}

/// One column's buffer, of its [`Kind`].
pub(super) enum Column {
    Int(Ints),
    Real(Values<f64>),
    Bool(Bools),
    Text(Words),
}

impl Column {
    pub(super) fn new(kind: Kind) -> Column {
        match kind {
            Kind::Int => Column::Int(Ints::default()),
            Kind::Real => Column::Real(Values::default()),
            Kind::Bool => Column::Bool(Bools::default()),
            Kind::Text => Column::Text(Words::default()),
        }
    }

    /// Appends `cell`; false (and nothing appended) when it does not fit the column.
    #[inline]
    pub(super) fn push(&mut self, cell: &Cell) -> bool {
        match (self, cell) {
            (Column::Int(c), Cell::Int(n)) => c.push(Some(*n)),
            (Column::Real(c), Cell::Real(x)) => c.push(Some(*x)),
            (Column::Bool(c), Cell::Bool(b)) => c.push(Some(*b)),
            (Column::Text(c), Cell::Text(s)) => c.push(Some(s.as_ref())),
            (Column::Text(c), Cell::Word(w)) => c.push_fixed(w),
            (Column::Int(c), Cell::Null) => c.push(None),
            (Column::Real(c), Cell::Null) => c.push(None),
            (Column::Bool(c), Cell::Null) => c.push(None),
            (Column::Text(c), Cell::Null) => c.push(None),
            _ => return false,
        }
        true
    }

    /// Appends integers (None: null); false (nothing appended) when this is no
    /// integer column.
    #[inline]
    pub(super) fn ints<I>(&mut self, values: I) -> bool
    where
        I: ExactSizeIterator<Item = Option<i64>> + Clone,
    {
        match self {
            Column::Int(c) => c.extend(values),
            _ => return false,
        }
        true
    }

    /// Appends `value` `n` times; false when this is no integer column.
    pub(super) fn repeated_int(&mut self, value: Option<i64>, n: usize) -> bool {
        match self {
            Column::Int(c) => c.extend_repeated(value, n),
            _ => return false,
        }
        true
    }

    /// Appends booleans (None: null); false when this is no boolean column.
    #[inline]
    pub(super) fn bools<I>(&mut self, values: I) -> bool
    where
        I: ExactSizeIterator<Item = Option<bool>> + Clone,
    {
        match self {
            Column::Bool(c) => c.extend(values),
            _ => return false,
        }
        true
    }

    /// Appends text `w` `n` times; false when this is no text column.
    pub(super) fn repeated_text(&mut self, w: &str, n: usize) -> bool {
        match self {
            Column::Text(c) => c.push_repeated(w, n),
            _ => return false,
        }
        true
    }

    /// Appends `'static` words (as [`Cell::Word`]s) or nulls; false when this is no text
    /// column.
    #[inline]
    pub(super) fn words(
        &mut self,
        words: impl ExactSizeIterator<Item = Option<&'static str>>,
    ) -> bool {
        match self {
            Column::Text(c) => {
                c.keys.values.reserve(words.len());
                words.for_each(|w| match w {
                    Some(w) => c.push_fixed(w),
                    None => c.push(None),
                });
            }
            _ => return false,
        }
        true
    }

    /// Appends texts or nulls; false when this is no text column.
    #[inline]
    pub(super) fn texts<'t>(
        &mut self,
        texts: impl ExactSizeIterator<Item = Option<&'t str>>,
    ) -> bool {
        match self {
            Column::Text(c) => {
                c.keys.values.reserve(texts.len());
                texts.for_each(|t| c.push(t));
            }
            _ => return false,
        }
        true
    }

    /// The gathered rows as an Arrow array, leaving the column empty for the next batch.
    pub(super) fn take(&mut self) -> Box<dyn Array> {
        match self {
            Column::Int(c) => c.take(),
            Column::Real(c) => {
                let (values, valid) = c.take();
                PrimitiveArray::from_vec(values)
                    .with_validity(valid)
                    .boxed()
            }
            Column::Bool(c) => c.take(),
            Column::Text(c) => c.take(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_arrow::array::{BooleanArray, Utf8ViewArray};

    /// The text of a text column's array, dictionary or plain, row by row.
    fn texts(array: &dyn Array) -> Vec<Option<String>> {
        if let Some(dict) = array.as_any().downcast_ref::<DictionaryArray<u32>>() {
            let words = dict
                .values()
                .as_any()
                .downcast_ref::<Utf8ViewArray>()
                .unwrap();
            return dict
                .keys()
                .iter()
                .map(|k| k.map(|&k| words.value(k as usize).to_string()))
                .collect();
        }
        let plain = array.as_any().downcast_ref::<Utf8ViewArray>().unwrap();
        plain.iter().map(|v| v.map(str::to_string)).collect()
    }

    fn words_in_dictionary(array: &dyn Array) -> usize {
        let dict = array.as_any().downcast_ref::<DictionaryArray<u32>>();
        dict.expect("a dictionary").values().len()
    }

    fn push_all(column: &mut Column, cells: &[Cell]) {
        for cell in cells {
            assert!(column.push(cell), "{cell:?} fits");
        }
    }

    #[test]
    fn few_words_are_a_dictionary_of_each_batchs_own_words() {
        let mut column = Column::new(Kind::Text);
        push_all(
            &mut column,
            &[
                Cell::text("running"),
                Cell::Null,
                Cell::text("sleeping"),
                Cell::text("running"),
            ],
        );
        let first = column.take();
        assert_eq!(words_in_dictionary(&*first), 2);
        let row = |s: &str| Some(s.to_string());
        assert_eq!(
            texts(&*first),
            [row("running"), None, row("sleeping"), row("running")]
        );

        // The next row group's dictionary holds only its own words.
        push_all(&mut column, &[Cell::text("blocked"), Cell::text("blocked")]);
        let second = column.take();
        assert_eq!(words_in_dictionary(&*second), 1);
        assert_eq!(texts(&*second), [row("blocked"), row("blocked")]);
    }

    /// A word found by its address, a text equal to the last one and a text hashed give
    /// one key per distinct text, in the order first seen, and a row group's end forgets
    /// them all.
    #[test]
    fn words_texts_and_repeats_share_one_key_per_text() {
        let mut column = Column::new(Kind::Text);
        let owned = |s: &str| Cell::Text(std::borrow::Cow::Owned(s.to_string()));
        let cells = [
            Cell::word("running"),
            owned("running"),
            owned("running"),
            Cell::word("sleeping"),
            owned("bash"),
            Cell::word("running"),
            owned("bash"),
            owned("sleeping"),
            Cell::Null,
            Cell::word("sleeping"),
        ];
        push_all(&mut column, &cells);
        let first = column.take();
        assert_eq!(words_in_dictionary(&*first), 3);
        let want: Vec<Option<String>> = cells
            .iter()
            .map(|c| c.as_text().map(str::to_string))
            .collect();
        assert_eq!(texts(&*first), want);
        push_all(&mut column, &[Cell::word("blocked"), owned("blocked")]);
        let second = column.take();
        assert_eq!(words_in_dictionary(&*second), 1);
        let row = |s: &str| Some(s.to_string());
        assert_eq!(texts(&*second), [row("blocked"), row("blocked")]);
    }

    /// More words than slots: words that share a slot still get one key per text.
    #[test]
    fn words_sharing_a_slot_keep_their_keys() {
        let words: Vec<&'static str> = (0..3 * FIXED_SLOTS)
            .map(|i| &*Box::leak(format!("w{}", i % (2 * FIXED_SLOTS)).into_boxed_str()))
            .collect();
        let mut column = Column::new(Kind::Text);
        let cells: Vec<Cell> = words.iter().chain(&words).map(|&w| Cell::word(w)).collect();
        push_all(&mut column, &cells);
        let array = column.take();
        assert_eq!(words_in_dictionary(&*array), 2 * FIXED_SLOTS);
        let want: Vec<Option<String>> = cells
            .iter()
            .map(|c| c.as_text().map(str::to_string))
            .collect();
        assert_eq!(texts(&*array), want);
    }

    #[test]
    fn mostly_distinct_words_are_plain() {
        let mut column = Column::new(Kind::Text);
        let rows: Vec<Option<String>> = (0..200)
            .map(|i| (i % 50 != 7).then(|| format!("{{\"bucket\": {i}}}")))
            .collect();
        let cells: Vec<Cell> = rows.iter().map(|r| Cell::opt_text(r.as_deref())).collect();
        push_all(&mut column, &cells);
        let array = column.take();
        assert_eq!(array.dtype(), &ArrowDataType::Utf8View);
        assert_eq!(texts(&*array), rows);
    }

    #[test]
    fn numbers_keep_their_nulls() {
        let mut column = Column::new(Kind::Int);
        push_all(
            &mut column,
            &[Cell::Int(-3), Cell::Null, Cell::Int(i64::MAX)],
        );
        let array = column.take();
        let ints = array
            .as_any()
            .downcast_ref::<PrimitiveArray<i64>>()
            .unwrap();
        let got: Vec<Option<i64>> = ints.iter().map(|v| v.copied()).collect();
        assert_eq!(got, [Some(-3), None, Some(i64::MAX)]);

        let mut column = Column::new(Kind::Bool);
        push_all(
            &mut column,
            &[Cell::Bool(true), Cell::Null, Cell::Bool(false)],
        );
        let array = column.take();
        let bools = array.as_any().downcast_ref::<BooleanArray>().unwrap();
        let got: Vec<Option<bool>> = bools.iter().collect();
        assert_eq!(got, [Some(true), None, Some(false)]);
    }

    #[test]
    fn a_cell_of_another_kind_is_refused() {
        let mut column = Column::new(Kind::Real);
        assert!(!column.push(&Cell::Int(1)));
        assert!(!column.push(&Cell::text("1")));
        assert!(column.push(&Cell::Real(0.5)));
        assert_eq!(column.take().len(), 1);
    }
}
