//! What the data pages made here ([`super::ints`], [`super::bools`],
//! [`super::dictionary`]) share: the validity of a column's rows, their definition
//! levels, and the page around the encoded values.

use polars::prelude::PolarsError;
use polars_arrow::bitmap::MutableBitmap;
use polars_parquet::parquet::encoding::{uleb128, Encoding};
use polars_parquet::parquet::metadata::Descriptor;
use polars_parquet::parquet::page::{DataPage, DataPageHeader, DataPageHeaderV1};
use polars_parquet::parquet::schema::types::PrimitiveType;
use polars_parquet::parquet::schema::Repetition;
use polars_parquet::parquet::statistics::ParquetStatistics;
use polars_parquet::parquet::CowBuffer;
use polars_parquet::write::{write_def_levels, Version};

/// Which rows of a column are not null: a bitmap made (every row before valid) at the
/// first null, as most columns have none.
#[derive(Default)]
pub(super) struct Validity(Option<MutableBitmap>);

impl Validity {
    /// The bitmap, made if need be for `rows` rows before, all valid.
    fn bits(&mut self, rows: usize) -> &mut MutableBitmap {
        self.0.get_or_insert_with(|| {
            let mut all = MutableBitmap::with_capacity(rows.max(1024));
            all.extend_constant(rows, true);
            all
        })
    }

    /// One row after `rows` others, `valid` or null.
    #[inline]
    pub(super) fn push(&mut self, rows: usize, valid: bool) {
        match (&mut self.0, valid) {
            (None, true) => {}
            (Some(bits), true) => bits.push(true),
            (_, false) => self.bits(rows).push(false),
        }
    }

    /// Rows after `rows` others, which `flags` says are valid, `nulls` of them not.
    #[inline]
    pub(super) fn extend(&mut self, rows: usize, nulls: usize, flags: impl Iterator<Item = bool>) {
        if nulls > 0 || self.0.is_some() {
            extend_bits(self.bits(rows), flags);
        }
    }

    /// `n` rows after `rows` others, all `valid` or all null.
    pub(super) fn repeat(&mut self, rows: usize, n: usize, valid: bool) {
        match (&mut self.0, valid) {
            (None, true) => {}
            (Some(bits), true) => bits.extend_constant(n, true),
            (_, false) => self.bits(rows).extend_constant(n, false),
        }
    }

    /// The bitmap, None when every row was valid; this is left empty.
    pub(super) fn take(&mut self) -> Option<MutableBitmap> {
        self.0.take()
    }
}

/// Appends `flags` to `bits`, 64 to a word.
pub(super) fn extend_bits(bits: &mut MutableBitmap, mut flags: impl Iterator<Item = bool>) {
    loop {
        let (mut word, mut k) = (0u64, 0);
        for flag in flags.by_ref().take(64) {
            word |= u64::from(flag) << k;
            k += 1;
        }
        if k > 0 {
            bits.extend_from_slice(&word.to_le_bytes(), 0, k);
        }
        if k < 64 {
            return;
        }
    }
}

/// A V1 data page of `rows` rows of `type_`: their definition levels (`valid`: the bytes
/// of a validity bitmap, the first row lowest; None, every row valid), then the values as
/// `values` writes them in `encoding`, and `statistics` in its header: the page polars'
/// writer makes around its own values.
pub(super) fn data_page(
    rows: usize,
    valid: Option<&[u8]>,
    type_: &PrimitiveType,
    encoding: Encoding,
    statistics: ParquetStatistics,
    capacity: usize,
    values: impl FnOnce(&mut Vec<u8>),
) -> Result<DataPage, PolarsError> {
    let optional = type_.field_info.repetition == Repetition::Optional;
    let mut buffer = Vec::with_capacity(16 + rows / 4 + capacity);
    match (valid, optional) {
        (Some(bits), true) => definition_levels(bits, rows, &mut buffer),
        _ => write_def_levels(&mut buffer, optional, None, rows, Version::V1)?,
    }
    values(&mut buffer);
    let header = DataPageHeader::V1(DataPageHeaderV1 {
        num_values: rows as i32,
        encoding: encoding.into(),
        definition_level_encoding: Encoding::Rle.into(),
        repetition_level_encoding: Encoding::Rle.into(),
        statistics: Some(statistics),
    });
    let descriptor = Descriptor {
        primitive_type: type_.clone(),
        max_def_level: 0,
        max_rep_level: 0,
    };
    Ok(DataPage::new(
        header,
        CowBuffer::Owned(buffer),
        descriptor,
        rows,
    ))
}

/// The definition levels of the first `rows` bits of `bytes` (1: a value, 0: a null) as
/// the format's V1 pages hold them: their length in 4 bytes, then one run of the RLE /
/// bit-packed hybrid encoding, bit-packed, whose bits are the validity bitmap's bytes as
/// they are (both put a row's bit at the same place, the first row lowest). polars'
/// writer encodes the bitmap bit by bit into runs; copied whole, it is a memcpy, and
/// what runs of ones there are, zstd compresses.
pub(super) fn definition_levels(bytes: &[u8], rows: usize, out: &mut Vec<u8>) {
    let groups = rows.div_ceil(8);
    let mut header = [0u8; 10];
    let n = uleb128::encode(((groups as u64) << 1) | 1, &mut header);
    let length = (n + groups) as u32;
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&header[..n]);
    // The last byte's bits past the rows are 0 (a new bitmap's), and readers stop at
    // the page's row count anyway.
    out.extend_from_slice(&bytes[..groups]);
}

/// The Parquet type polars gives a nullable column of Arrow type `dtype` (for the pages'
/// tests).
#[cfg(test)]
pub(super) fn column_type(dtype: polars_arrow::datatypes::ArrowDataType) -> PrimitiveType {
    let field = polars_arrow::datatypes::Field::new("c".into(), dtype, true);
    match polars_parquet::write::to_parquet_type(&field) {
        Ok(polars_parquet::write::ParquetType::PrimitiveType(t)) => t,
        other => panic!("not a primitive column: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The levels read back as the format defines them: a 4-byte length, then runs of
    /// the hybrid encoding (here one bit-packed run), a row's level its bit.
    #[test]
    fn definition_levels_are_the_rows_validity() {
        for n in [1usize, 7, 8, 9, 64, 65, 200] {
            let mut valid = MutableBitmap::new();
            let want: Vec<bool> = (0..n).map(|i| i % 3 != 1 && i != n - 1).collect();
            extend_bits(&mut valid, want.iter().copied());
            let mut out = vec![];
            definition_levels(valid.as_slice(), valid.len(), &mut out);
            let length = u32::from_le_bytes(out[..4].try_into().unwrap()) as usize;
            assert_eq!(length, out.len() - 4, "{n} rows");
            let (header, used) = uleb128::decode(&out[4..]);
            assert_eq!(header & 1, 1, "bit-packed");
            let groups = (header >> 1) as usize;
            assert_eq!(groups, n.div_ceil(8));
            let bits = &out[4 + used..];
            assert_eq!(bits.len(), groups);
            let got: Vec<bool> = (0..n).map(|i| bits[i / 8] >> (i % 8) & 1 == 1).collect();
            assert_eq!(got, want, "{n} rows");
            assert!(
                (n..groups * 8).all(|i| bits[i / 8] >> (i % 8) & 1 == 0),
                "padding 0"
            );
        }
    }

    #[test]
    fn validity_is_made_at_the_first_null() {
        let mut v = Validity::default();
        v.push(0, true);
        v.repeat(1, 3, true);
        assert!(v.0.is_none(), "no null, no bitmap");
        v.extend(4, 0, [true, true].into_iter());
        assert!(v.0.is_none());
        v.push(6, false);
        v.repeat(7, 2, false);
        v.extend(9, 1, [true, false, true].into_iter());
        let bits = v.take().expect("a null was pushed");
        let got: Vec<bool> = (0..bits.len()).map(|i| bits.get(i)).collect();
        let mut want = vec![true; 6];
        want.extend([false, false, false, true, false, true]);
        assert_eq!(got, want);
        assert!(v.take().is_none(), "taken");
    }
}
