//! One field of a raw event record: where it is and how to read it, decided once per
//! format so that the per-record read has no size or sign dispatch left beyond one match.

use super::endian::ByteOrder;
use super::format::{EventFormat, Field, FieldKind};
use crate::event::{Comm, COMM_LEN};

/// An integer field: where it is and, decided once from its size and sign, how to read it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Int {
    pub offset: usize,
    pub width: Width,
}

/// Integer encodings a format can declare. The per-record read is one match on this instead of
/// a length match, a shift pair and a sign test per field.
#[derive(Clone, Copy, Debug)]
pub(super) enum Width {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    /// Sign does not matter at 64 bits: the bits are kept as they are.
    W64,
    /// Any other size (0, 3, 16, ...): never readable as an integer.
    Unreadable,
}

impl Int {
    pub(super) fn of(format: &EventFormat, name: &str) -> Option<Int> {
        format.field(name).map(|f: &Field| Int {
            offset: f.offset,
            width: match (f.size, f.signed) {
                (1, false) => Width::U8,
                (1, true) => Width::I8,
                (2, false) => Width::U16,
                (2, true) => Width::I16,
                (4, false) => Width::U32,
                (4, true) => Width::I32,
                (8, _) => Width::W64,
                _ => Width::Unreadable,
            },
        })
    }

    /// The value, sign-extended if signed; `None` when the record is too short for it.
    #[inline(always)]
    pub(super) fn read<O: ByteOrder>(self, r: &[u8]) -> Option<i64> {
        let at = self.offset;
        Some(match self.width {
            Width::U8 => *r.get(at)? as i64,
            Width::I8 => *r.get(at)? as i8 as i64,
            Width::U16 => O::u16(array(r, at)?) as i64,
            Width::I16 => O::u16(array(r, at)?) as i16 as i64,
            Width::U32 => O::u32(array(r, at)?) as i64,
            Width::I32 => O::u32(array(r, at)?) as i32 as i64,
            Width::W64 => O::u64(array(r, at)?) as i64,
            Width::Unreadable => return None,
        })
    }
}

/// `N` bytes at `at`, `None` when they do not fit (a fixed-size copy, no length match).
#[inline(always)]
pub(super) fn array<const N: usize>(r: &[u8], at: usize) -> Option<[u8; N]> {
    r.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// A 4-byte integer as i32 (signed or not, the bits are the same once cut to 32).
#[inline(always)]
pub(super) fn i32_at<O: ByteOrder>(r: &[u8], at: usize) -> Option<i32> {
    array(r, at).map(|b| O::u32(b) as i32)
}

/// A task-name field and how its bytes are found.
#[derive(Clone, Copy, Debug)]
pub(super) enum Str {
    /// `char comm[N]` (or an integer-typed field): the N bytes at `offset`.
    Fixed { offset: usize, size: usize },
    /// `TYPE name[]` of size 0: the rest of the record.
    Flex { offset: usize },
    /// `__data_loc` / `__rel_loc`: a u32 (u16 on very old kernels) locating the string.
    Loc {
        offset: usize,
        size: usize,
        relative: bool,
    },
}

impl Str {
    pub(super) fn of(format: &EventFormat, name: &str) -> Option<Str> {
        format.field(name).map(|f: &Field| match f.kind {
            FieldKind::CharArray | FieldKind::Int => Str::Fixed {
                offset: f.offset,
                size: f.size,
            },
            FieldKind::Flex => Str::Flex { offset: f.offset },
            FieldKind::DataLoc | FieldKind::RelLoc => Str::Loc {
                offset: f.offset,
                size: f.size,
                relative: f.kind == FieldKind::RelLoc,
            },
        })
    }

    /// The task name; `None` when its bytes lie outside the record.
    #[inline(always)]
    pub(super) fn read<O: ByteOrder>(self, r: &[u8]) -> Option<Comm> {
        let bytes = self.bytes::<O>(r)?;
        // `char comm[16]`, the usual case: a fixed 16-byte copy (a name keeps at most 16
        // bytes anyway) instead of a variable-length memcpy call per name.
        if let (Str::Fixed { .. }, Some(head)) = (self, bytes.first_chunk::<COMM_LEN>()) {
            return Some(Comm::from_bytes(head));
        }
        Some(Comm::from_bytes(bytes))
    }

    /// The field's bytes in the record (with any NUL padding); `None` when they lie outside it.
    #[inline(always)]
    pub(super) fn bytes<O: ByteOrder>(self, r: &[u8]) -> Option<&[u8]> {
        Some(match self {
            Str::Fixed { offset, size } => r.get(offset..offset.checked_add(size)?)?,
            Str::Flex { offset } => r.get(offset..)?,
            Str::Loc {
                offset,
                size,
                relative,
            } => {
                let (start, len) = if size == 2 {
                    // Very old kernels: a u16 offset only; the string runs to the record end.
                    let start = O::u16(array(r, offset)?) as usize;
                    (start, r.len().checked_sub(start)?)
                } else {
                    let v = O::u32(array(r, offset)?);
                    ((v & 0xffff) as usize, (v >> 16) as usize)
                };
                let start = if relative {
                    start + offset + size
                } else {
                    start
                };
                r.get(start..start.checked_add(len)?)?
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftrace::endian::{Be, Endian, Le};

    /// The per-width integer reads give what the general `Endian::int_at` gives, for every size
    /// and sign a format can declare, both byte orders, in and out of bounds.
    #[test]
    fn int_reads_match_the_general_reader() {
        let record: Vec<u8> = (0..20u8).map(|b| b.wrapping_mul(37) ^ 0x80).collect();
        for endian in [Endian::Little, Endian::Big] {
            for size in 0..=9 {
                for signed in [false, true] {
                    for offset in [0, 3, 12, 16, 19, 20, usize::MAX - 2] {
                        let format = EventFormat {
                            id: 1,
                            system: "t".into(),
                            name: "t".into(),
                            fields: vec![Field {
                                name: "f".into(),
                                offset,
                                size,
                                signed,
                                kind: FieldKind::Int,
                            }],
                            print_fmt: String::new(),
                        };
                        let field = Int::of(&format, "f").unwrap();
                        let got = match endian {
                            Endian::Little => field.read::<Le>(&record),
                            Endian::Big => field.read::<Be>(&record),
                        };
                        let want = endian.int_at(&record, offset, size, signed);
                        assert_eq!(
                            got, want,
                            "{endian:?} size {size} signed {signed} @{offset}"
                        );
                    }
                }
            }
        }
    }

    /// A `char[N]` name: the bytes up to the first NUL, at most 16, and the whole field in bounds.
    #[test]
    fn fixed_comm_of_any_size() {
        let record = b"0123456789abcdefghij\0xyz";
        for size in [0, 1, 5, 15, 16, 17, 20, 24, 25] {
            let field = Str::Fixed { offset: 0, size };
            let got = field.read::<Le>(record);
            // The general rule: the whole field, cut at 16 bytes and at its first NUL.
            let want = record.get(..size).map(Comm::from_bytes);
            assert_eq!(got, want, "size {size}");
        }
        assert_eq!(
            Str::Fixed {
                offset: 4,
                size: 16
            }
            .read::<Le>(record)
            .map(|c| c.to_string()),
            Some("456789abcdefghij".to_string())
        );
    }
}
