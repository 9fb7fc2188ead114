//! The pages of a text column written as a dictionary: the words (a dictionary page) and
//! each row's key into them (a data page), made here rather than by polars.
//!
//! polars takes the column as an Arrow dictionary array: the words copied into string
//! views, then the keys encoded through an iterator that filters the nulls out and a
//! run-length encoder that looks at each key in turn (together a tenth of the `intervals`
//! writer's CPU in a profile). The keys here are a slice already (the nulls left out
//! first), their runs found by comparing neighbours. The pages say what polars' say: the
//! words `PLAIN`, the keys `RLE_DICTIONARY` at the bit width of the largest, and as
//! statistics the smallest and largest word (byte-wise, as the format orders text) with
//! the column's null count.

use super::page::data_page;
use polars::prelude::PolarsError;
use polars_parquet::parquet::encoding::{bitpacked, uleb128, Encoding};
use polars_parquet::parquet::page::{DictPage, Page};
use polars_parquet::parquet::schema::types::PrimitiveType;
use polars_parquet::parquet::statistics::BinaryStatistics;
use polars_parquet::parquet::CowBuffer;

/// A run of equal keys this long or longer is written as one run, not packed.
const REPEAT_RUN: usize = 8;
/// Keys packed in one run at most (polars' bound, which readers are known to take).
const MOST_PACKED: usize = 1 << 13;

/// The column of `rows` rows: `words` (the dictionary, each used), `keys` the keys of the
/// rows that are not null, in order, and `valid` which rows are not (the bytes of a
/// bitmap, the first row lowest; None: every row).
pub(super) fn pages(
    words: &[Box<str>],
    keys: &[u32],
    valid: Option<&[u8]>,
    rows: usize,
    type_: &PrimitiveType,
) -> Result<[Page; 2], PolarsError> {
    let mut plain = Vec::with_capacity(words.iter().map(|w| 4 + w.len()).sum());
    for w in words {
        plain.extend_from_slice(&(w.len() as u32).to_le_bytes());
        plain.extend_from_slice(w.as_bytes());
    }
    let dictionary = DictPage::new(CowBuffer::Owned(plain), words.len(), false);

    let width = 32 - (words.len().saturating_sub(1) as u32).leading_zeros();
    let statistics = BinaryStatistics {
        primitive_type: type_.clone(),
        null_count: Some((rows - keys.len()) as i64),
        distinct_count: None,
        max_value: words
            .iter()
            .max_by(|a, b| a.as_bytes().cmp(b.as_bytes()))
            .map(|w| w.as_bytes().to_vec()),
        min_value: words
            .iter()
            .min_by(|a, b| a.as_bytes().cmp(b.as_bytes()))
            .map(|w| w.as_bytes().to_vec()),
    };
    let encoding = Encoding::RleDictionary;
    let data = data_page(
        rows,
        valid,
        type_,
        encoding,
        statistics.serialize(),
        keys.len() * 2,
        |out| {
            out.push(width as u8);
            hybrid(keys, width as usize, out);
        },
    )?;
    Ok([Page::Dict(dictionary), Page::Data(data)])
}

fn uleb(out: &mut Vec<u8>, n: u64) {
    let mut bytes = [0u8; 10];
    let used = uleb128::encode(n, &mut bytes);
    out.extend_from_slice(&bytes[..used]);
}

/// `keys` in the format's RLE / bit-packed hybrid encoding at `width` bits: each run of
/// [`REPEAT_RUN`] or more equal keys as a repeated run (a task's name on its rows), the
/// keys between packed, in groups of 8.
fn hybrid(keys: &[u32], width: usize, out: &mut Vec<u8>) {
    let mut packed_from = 0;
    let mut i = 0;
    while i < keys.len() {
        let mut end = i + 1;
        while end < keys.len() && keys[end] == keys[i] {
            end += 1;
        }
        // A repeated run starts after a whole number of groups of packed keys: the
        // packed keys before it take what of it they need to fill their last group.
        let fill = (8 - (i - packed_from) % 8) % 8;
        if end - i >= REPEAT_RUN + fill {
            packed(&keys[packed_from..i + fill], width, out);
            uleb(out, ((end - i - fill) as u64) << 1);
            out.extend_from_slice(&keys[i].to_le_bytes()[..width.div_ceil(8)]);
            packed_from = end;
        }
        i = end;
    }
    packed(&keys[packed_from..], width, out);
}

/// `keys` packed at `width` bits, in runs of at most [`MOST_PACKED`]; the last group
/// padded with zeros.
fn packed(keys: &[u32], width: usize, out: &mut Vec<u8>) {
    for run in keys.chunks(MOST_PACKED) {
        let groups = run.len().div_ceil(8);
        uleb(out, ((groups as u64) << 1) | 1);
        let at = out.len();
        // The packer writes whole units of 32 keys; what is past the groups is cut.
        out.resize(at + run.len().div_ceil(32) * 4 * width, 0);
        if width > 0 {
            bitpacked::encode(run, width, &mut out[at..]);
        }
        out.truncate(at + groups * width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_parquet::parquet::page::DataPageHeader;
    use proptest::prelude::*;

    /// Reads `count` values of `width` bits of the hybrid encoding, as the format defines
    /// it; also the number of repeated runs read.
    fn unhybrid(bytes: &[u8], width: usize, count: usize) -> (Vec<u32>, usize) {
        let (mut at, mut out, mut repeated) = (0, Vec::new(), 0);
        while out.len() < count {
            let (header, used) = uleb128::decode(&bytes[at..]);
            at += used;
            if header & 1 == 1 {
                let values = (header >> 1) as usize * 8;
                for v in 0..values {
                    let mut key = 0u32;
                    for k in 0..width {
                        let bit = v * width + k;
                        key |= u32::from(bytes[at + bit / 8] >> (bit % 8) & 1) << k;
                    }
                    out.push(key);
                }
                at += (header >> 1) as usize * width;
            } else {
                let mut value = [0u8; 4];
                let n = width.div_ceil(8);
                value[..n].copy_from_slice(&bytes[at..at + n]);
                at += n;
                repeated += 1;
                out.extend(std::iter::repeat_n(
                    u32::from_le_bytes(value),
                    (header >> 1) as usize,
                ));
            }
        }
        assert_eq!(at, bytes.len(), "every byte read");
        assert!(out[count..].iter().all(|&k| k == 0), "padding is zeros");
        out.truncate(count);
        (out, repeated)
    }

    fn width_of(keys: &[u32]) -> usize {
        (32 - keys.iter().max().copied().unwrap_or(0).leading_zeros()) as usize
    }

    #[test]
    fn runs_of_a_tasks_name_are_repeated_runs() {
        // 3 keys, then 20 of one (5 of them fill the packed group: 15 repeated), 5, then
        // 12 of one (3 fill the group: 9 repeated), and 9 of one right after (no group to
        // fill: all 9 repeated).
        let mut keys = vec![1, 2, 3];
        keys.extend([7; 20]);
        keys.extend([1, 2, 3, 4, 5]);
        keys.extend([6; 12]);
        keys.extend([4; 9]);
        let mut out = Vec::new();
        hybrid(&keys, 3, &mut out);
        assert_eq!(unhybrid(&out, 3, keys.len()), (keys, 3));
    }

    #[test]
    fn one_word_is_keys_of_no_bits() {
        let keys = vec![0; 100];
        let mut out = Vec::new();
        hybrid(&keys, 0, &mut out);
        assert_eq!(
            out,
            [100 << 1, 0x01],
            "one run of 100 (uleb 200), no value bytes"
        );
        assert_eq!(unhybrid(&out, 0, 100).0, keys);
    }

    proptest! {
        #[test]
        fn any_keys_read_back(
            runs in proptest::collection::vec((0u32..5000, 1usize..40), 0..400),
        ) {
            let keys: Vec<u32> = runs.iter().flat_map(|&(k, n)| std::iter::repeat_n(k, n)).collect();
            let width = width_of(&keys);
            let mut out = Vec::new();
            hybrid(&keys, width, &mut out);
            prop_assert_eq!(unhybrid(&out, width, keys.len()).0, keys);
        }
    }

    /// The two pages: the words plain in key order, the keys after the levels, and the
    /// statistics of the words and the nulls.
    #[test]
    fn a_column_is_its_words_and_its_keys() {
        let type_ =
            super::super::page::column_type(polars_arrow::datatypes::ArrowDataType::Utf8View);
        let words: Vec<Box<str>> = ["sh", "bash", "zsh"].map(Box::from).to_vec();
        // Rows: bash, null, sh, zsh, zsh.
        let keys = [1, 0, 2, 2];
        let valid = [0b11101u8];
        let [Page::Dict(dict), Page::Data(data)] =
            pages(&words, &keys, Some(&valid), 5, &type_).unwrap()
        else {
            panic!("a dictionary page, then a data page")
        };
        assert_eq!(dict.num_values, 3);
        assert_eq!(&*dict.buffer, b"\x02\0\0\0sh\x04\0\0\0bash\x03\0\0\0zsh");
        assert_eq!(data.num_values(), 5);
        assert_eq!(data.encoding(), Encoding::RleDictionary);
        let DataPageHeader::V1(header) = data.header() else {
            panic!("V1")
        };
        let stats =
            BinaryStatistics::deserialize(header.statistics.as_ref().unwrap(), type_).unwrap();
        assert_eq!(stats.min_value.as_deref(), Some(&b"bash"[..]));
        assert_eq!(stats.max_value.as_deref(), Some(&b"zsh"[..]));
        assert_eq!(stats.null_count, Some(1));
        let buffer = data.buffer();
        // Levels: length 2, one packed group (uleb 3), the bits; then the width, 2 bits.
        assert_eq!(&buffer[..7], &[2, 0, 0, 0, 3, 0b11101, 2]);
        assert_eq!(unhybrid(&buffer[7..], 2, 4).0, keys);
    }
}
