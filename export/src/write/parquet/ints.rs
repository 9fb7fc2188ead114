//! An integer column of the batch, and its data page.
//!
//! The values are kept without their nulls (a null is a bit in the validity bitmap and
//! no slot), so the page's values are the vector as it is: [`super::delta`] encodes them
//! in one pass and their smallest and largest (the page's statistics) come from the same
//! slice. Through polars, the column was an Arrow array of every row whose nulls the
//! encoder and the statistics each skipped value by value. The page is the one polars'
//! writer makes for an `Int64` column (the same header, definition levels and statistics),
//! its values in our encoding of the same format.

use super::delta;
use super::dense::Dense;
use super::page::data_page;
use polars::prelude::PolarsError;
use polars_arrow::array::{Array, PrimitiveArray};
use polars_parquet::parquet::encoding::Encoding;
use polars_parquet::parquet::page::Page;
use polars_parquet::parquet::schema::types::PrimitiveType;
use polars_parquet::parquet::statistics::PrimitiveStatistics;

/// The rows of an integer column ([`Dense`]: its values without their nulls).
pub(super) type Ints = Dense<Vec<i64>>;

impl Ints {
    /// The rows gathered, as one data page of `type_`; the column is left empty, with room
    /// for as many rows.
    pub(super) fn page(&mut self, type_: &PrimitiveType) -> Result<Page, PolarsError> {
        // Room for as many values in the next batch.
        let room = Vec::with_capacity(self.present());
        let (values, valid, rows) = self.take_parts(room);
        let bounds = smallest_and_largest(&values);
        let statistics = PrimitiveStatistics::<i64> {
            primitive_type: type_.clone(),
            null_count: Some((rows - values.len()) as i64),
            distinct_count: None,
            min_value: bounds.map(|b| b.0),
            max_value: bounds.map(|b| b.1),
        };
        // Bounded by 9 bytes and a width byte's share a value.
        let capacity = values.len() * 9;
        let page = data_page(
            rows,
            valid.as_ref().map(|v| v.as_slice()),
            type_,
            Encoding::DeltaBinaryPacked,
            statistics.serialize(),
            capacity,
            |out| delta::encode(&values, out),
        )?;
        Ok(Page::Data(page))
    }

    /// The rows gathered as an Arrow array (every row a slot), leaving the column empty:
    /// what the rows are, as the tests that compare ways of gathering them see them.
    pub(super) fn take(&mut self) -> Box<dyn Array> {
        let (all, valid) = self.take_slots(|values| values, 0);
        PrimitiveArray::from_vec(all).with_validity(valid).boxed()
    }
}

/// The smallest and the largest of `values` (the page's statistics): two plain
/// reductions, which the compiler makes vector minima and maxima (of one fold of both it
/// made a loop a value at a time).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2"))]
fn smallest_and_largest(values: &[i64]) -> Option<(i64, i64)> {
    let smallest = values.iter().copied().min()?;
    let largest = values.iter().copied().max()?;
    Some((smallest, largest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_arrow::datatypes::ArrowDataType;
    use polars_parquet::parquet::page::DataPageHeader;
    use proptest::prelude::*;

    fn rows(array: &dyn Array) -> Vec<Option<i64>> {
        let ints = array.as_any().downcast_ref::<PrimitiveArray<i64>>();
        ints.unwrap().iter().map(|v| v.copied()).collect()
    }

    proptest! {
        /// Gathered in runs (bulk, repeated) or row by row, a column holds the same rows.
        #[test]
        fn runs_and_rows_gather_the_same(
            runs in proptest::collection::vec(
                (proptest::collection::vec(proptest::option::of(any::<i64>()), 0..150), any::<bool>()),
                0..12,
            ),
        ) {
            let (mut bulk, mut single) = (Ints::default(), Ints::default());
            let mut want = Vec::new();
            for (run, repeat) in &runs {
                if *repeat {
                    let value = run.first().copied().flatten();
                    bulk.extend_repeated(value, run.len());
                    want.extend(std::iter::repeat_n(value, run.len()));
                } else {
                    bulk.extend(run.iter().copied());
                    want.extend(run.iter().copied());
                }
            }
            want.iter().for_each(|&v| single.push(v));
            prop_assert_eq!(rows(&*bulk.take()), want.clone());
            prop_assert_eq!(rows(&*single.take()), want);
        }
    }

    /// A page's header: its rows, its encodings and its statistics of the non-null values.
    #[test]
    fn a_page_says_its_rows_and_statistics() {
        let mut ints = Ints::default();
        let values: Vec<Option<i64>> = (0..1000i64)
            .map(|i| (i % 7 != 3).then_some((i * 7919) % 2003 - 1000))
            .collect();
        ints.extend(values.iter().copied());
        let present: Vec<i64> = values.iter().flatten().copied().collect();
        let type_ = super::super::page::column_type(ArrowDataType::Int64);
        let Page::Data(page) = ints.page(&type_).unwrap() else {
            panic!("a data page")
        };
        assert_eq!(page.num_values(), 1000);
        assert_eq!(page.encoding(), Encoding::DeltaBinaryPacked);
        let DataPageHeader::V1(header) = page.header() else {
            panic!("V1")
        };
        let stats = header.statistics.as_ref().unwrap();
        let stats = PrimitiveStatistics::<i64>::deserialize(stats, type_).unwrap();
        assert_eq!(stats.min_value, present.iter().copied().min());
        assert_eq!(stats.max_value, present.iter().copied().max());
        assert_eq!(stats.null_count, Some(1000 - present.len() as i64));
        assert!(ints.take().is_empty(), "the page took the rows");
    }

    proptest! {
        #[test]
        fn smallest_and_largest_are_min_and_max(v in proptest::collection::vec(any::<i64>(), 0..300)) {
            let want = v.iter().copied().min().zip(v.iter().copied().max());
            prop_assert_eq!(smallest_and_largest(&v), want);
        }
    }
}
