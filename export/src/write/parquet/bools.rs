//! A boolean column of the batch, and its data page: as [`super::ints`] does for
//! integers, the values kept without their nulls (here as bits), so the page's values are
//! the bitmap's bytes as they are (the format's `PLAIN` booleans are bits, the first value
//! lowest, as a bitmap's). Through polars, the column was an Arrow array of every row,
//! its values and nulls pushed a bit at a time and the non-null ones walked again.

use super::dense::Dense;
use super::page::data_page;
use polars::prelude::PolarsError;
use polars_arrow::array::{Array, BooleanArray};
use polars_arrow::bitmap::{Bitmap, MutableBitmap};
use polars_arrow::datatypes::ArrowDataType;
use polars_parquet::parquet::encoding::Encoding;
use polars_parquet::parquet::page::Page;
use polars_parquet::parquet::schema::types::PrimitiveType;
use polars_parquet::parquet::statistics::BooleanStatistics;

/// The rows of a boolean column ([`Dense`]: its values without their nulls, as bits).
pub(super) type Bools = Dense<MutableBitmap>;

impl Bools {
    /// The rows gathered, as one data page of `type_`; the column is left empty.
    pub(super) fn page(&mut self, type_: &PrimitiveType) -> Result<Page, PolarsError> {
        let (values, valid, rows) = self.take_parts(MutableBitmap::new());
        let (present, trues) = (values.len(), values.set_bits());
        let statistics = BooleanStatistics {
            null_count: Some((rows - present) as i64),
            distinct_count: None,
            max_value: (present > 0).then_some(trues > 0),
            min_value: (present > 0).then_some(trues == present),
        };
        let page = data_page(
            rows,
            valid.as_ref().map(|v| v.as_slice()),
            type_,
            Encoding::Plain,
            statistics.serialize(),
            present.div_ceil(8),
            |out| out.extend_from_slice(values.as_slice()),
        )?;
        Ok(Page::Data(page))
    }

    /// The rows gathered as an Arrow array (every row a slot), leaving the column empty:
    /// what the rows are, as the tests that compare ways of gathering them see them.
    pub(super) fn take(&mut self) -> Box<dyn Array> {
        let (all, valid) = self.take_slots(|values| Bitmap::from(values).iter().collect(), false);
        let all: MutableBitmap = all.into_iter().collect();
        BooleanArray::new(ArrowDataType::Boolean, all.into(), valid).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_parquet::parquet::page::DataPageHeader;
    use proptest::prelude::*;

    fn rows(array: &dyn Array) -> Vec<Option<bool>> {
        let bools = array.as_any().downcast_ref::<BooleanArray>();
        bools.unwrap().iter().collect()
    }

    fn bool_type() -> PrimitiveType {
        super::super::page::column_type(ArrowDataType::Boolean)
    }

    proptest! {
        /// Gathered in runs or row by row, a column holds the same rows.
        #[test]
        fn runs_and_rows_gather_the_same(
            runs in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(any::<bool>()), 0..150),
                0..10,
            ),
        ) {
            let (mut bulk, mut single) = (Bools::default(), Bools::default());
            let want: Vec<Option<bool>> = runs.iter().flatten().copied().collect();
            for run in &runs {
                bulk.extend(run.iter().copied());
            }
            want.iter().for_each(|&v| single.push(v));
            prop_assert_eq!(rows(&*bulk.take()), want.clone());
            prop_assert_eq!(rows(&*single.take()), want);
        }
    }

    /// The page: the levels, then the values that are not null as bits; the statistics.
    #[test]
    fn a_page_is_levels_then_bits() {
        let mut bools = Bools::default();
        // Rows: true, null, false, true, null.
        bools.extend([Some(true), None, Some(false), Some(true), None].into_iter());
        let Page::Data(page) = bools.page(&bool_type()).unwrap() else {
            panic!("a data page")
        };
        assert_eq!(page.num_values(), 5);
        assert_eq!(page.encoding(), Encoding::Plain);
        // Levels: length 2, one packed group (uleb 3), bits 01101; values: 1, 0, 1.
        assert_eq!(page.buffer(), &[2, 0, 0, 0, 3, 0b01101, 0b101]);
        let DataPageHeader::V1(header) = page.header() else {
            panic!("V1")
        };
        let stats = BooleanStatistics::deserialize(header.statistics.as_ref().unwrap()).unwrap();
        assert_eq!(
            (stats.min_value, stats.max_value),
            (Some(false), Some(true))
        );
        assert_eq!(stats.null_count, Some(2));

        bools.extend([Some(true), Some(true)].into_iter());
        let Page::Data(page) = bools.page(&bool_type()).unwrap() else {
            panic!("a data page")
        };
        let DataPageHeader::V1(header) = page.header() else {
            panic!("V1")
        };
        let stats = BooleanStatistics::deserialize(header.statistics.as_ref().unwrap()).unwrap();
        assert_eq!(
            (stats.min_value, stats.max_value, stats.null_count),
            (Some(true), Some(true), Some(0))
        );
    }
}
