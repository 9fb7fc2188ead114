//! Parser of ftrace event `format` files and of `events/header_page` (formats.md §3.1, §2.1).
//!
//! Only the field table and the print fmt are kept; fields are later looked up by
//! name, never by fixed offsets, because layouts differ between kernels.

use crate::error::{Error, Result};

/// How a field's bytes are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A 1/2/4/8-byte integer (or pointer, `long`, `bool`).
    Int,
    /// A fixed-size array, `char comm[16]` being the usual one (a string up to its first NUL).
    CharArray,
    /// `__data_loc TYPE[] name`: u32 with offset (from the record start) and length.
    DataLoc,
    /// `__rel_loc TYPE[] name`: like `DataLoc` but the offset is relative to the end of the field.
    RelLoc,
    /// `TYPE name[]` with size 0: the rest of the record.
    Flex,
}

/// One `field:` line of a format file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
    pub kind: FieldKind,
}

/// A parsed `format` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventFormat {
    pub id: u32,
    pub system: String,
    pub name: String,
    pub fields: Vec<Field>,
    pub print_fmt: String,
}

impl EventFormat {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// What a ring-buffer page header looks like (from `events/header_page`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderPage {
    /// Size of the `commit` word = the kernel's `long` (4 or 8).
    pub commit_size: usize,
    /// Where event data starts in a page (16 on 64-bit, 12 on most 32-bit kernels).
    pub data_offset: usize,
    /// Bytes of event data area; `data_offset + data_size` is the sub-buffer size.
    pub data_size: usize,
}

impl HeaderPage {
    /// Total size of a page (sub-buffer) as the kernel sees it.
    pub fn page_size(&self) -> usize {
        self.data_offset + self.data_size
    }
}

/// Parses one `format` file of event system `system`.
pub(crate) fn parse_format(system: &str, text: &[u8]) -> Result<EventFormat> {
    let text = String::from_utf8_lossy(text);
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    let mut print_fmt = String::new();
    for (line_no, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("name:") {
            name = Some(rest.trim().to_string());
        } else if let Some(rest) = trimmed.strip_prefix("ID:") {
            id = rest.trim().parse::<u32>().ok();
            if id.is_none() {
                return Err(Error::at(
                    0,
                    format!("format file of {system}: bad ID line {:?}", line.trim()),
                ));
            }
        } else if trimmed.starts_with("field:") || trimmed.starts_with("field ") {
            let field = parse_field_line(trimmed).ok_or_else(|| {
                Error::at(
                    0,
                    format!(
                        "format file of {system}: cannot parse field line {} {:?}",
                        line_no + 1,
                        line.trim()
                    ),
                )
            })?;
            fields.push(field);
        } else if let Some(rest) = trimmed.strip_prefix("print fmt:") {
            print_fmt = rest.trim().to_string();
        }
    }
    let name =
        name.ok_or_else(|| Error::at(0, format!("format file of {system}: no name line")))?;
    let id = id.ok_or_else(|| Error::at(0, format!("format file {system}/{name}: no ID line")))?;
    Ok(EventFormat {
        id,
        system: system.to_string(),
        name,
        fields,
        print_fmt,
    })
}

/// Parses the `events/header_page` text. Fails for the empty text of pre-2.6.31 kernels.
pub(crate) fn parse_header_page(text: &[u8]) -> Result<HeaderPage> {
    let text = String::from_utf8_lossy(text);
    let fields: Vec<Field> = text
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("field"))
        .filter_map(parse_field_line)
        .collect();
    let find = |n: &str| fields.iter().find(|f| f.name == n);
    let commit = find("commit").ok_or_else(|| {
        Error::whole("header_page has no commit field (old ring-buffer format is not supported)")
    })?;
    let data = find("data").ok_or_else(|| Error::whole("header_page has no data field"))?;
    if !matches!(commit.size, 4 | 8) {
        return Err(Error::whole(format!(
            "header_page: commit size {} is neither 4 nor 8",
            commit.size
        )));
    }
    if data.offset < 8 + commit.size.min(8) || data.offset > 64 || data.size == 0 {
        return Err(Error::whole(format!(
            "header_page: implausible data offset {} / size {}",
            data.offset, data.size
        )));
    }
    Ok(HeaderPage {
        commit_size: commit.size,
        data_offset: data.offset,
        data_size: data.size,
    })
}

/// Parses `field:DECL;\toffset:N;\tsize:N;\tsigned:N;` (whitespace-tolerant).
fn parse_field_line(line: &str) -> Option<Field> {
    let rest = line.strip_prefix("field")?.trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let (decl, attrs) = rest.split_once(';')?;
    let decl = decl.trim();
    let attr = |key: &str| -> Option<&str> {
        attrs.split(';').find_map(|part| {
            let (k, v) = part.split_once(':')?;
            (k.trim() == key).then(|| v.trim())
        })
    };
    let offset: usize = attr("offset")?.parse().ok()?;
    let size: usize = attr("size")?.parse().ok()?;
    let signed_attr = attr("signed").and_then(|v| v.parse::<u8>().ok());

    // The name is the last identifier, before an optional `[...]`.
    // (`__data_loc char[] comm` has the brackets before the name, `char comm[16]` after it.)
    let (base, is_array) = match decl
        .strip_suffix(']')
        .and_then(|d| d.rfind('[').map(|i| &d[..i]))
    {
        Some(b) => (b.trim_end(), true),
        None => (decl, decl.contains("[]")),
    };
    let name_start = base
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + base[i..].chars().next().map_or(1, char::len_utf8)
        });
    let name = &base[name_start..];
    if name.is_empty() {
        return None;
    }
    let type_part = base[..name_start].trim();
    let kind = if type_part.starts_with("__data_loc") {
        FieldKind::DataLoc
    } else if type_part.starts_with("__rel_loc") {
        FieldKind::RelLoc
    } else if is_array && size == 0 {
        FieldKind::Flex
    } else if is_array {
        FieldKind::CharArray
    } else {
        FieldKind::Int
    };
    let signed = match signed_attr {
        Some(s) => s != 0,
        // Kernels before ~2.6.32 print no `signed:`; infer it from the C type.
        None => {
            !type_part.contains("unsigned")
                && ["int", "long", "short", "s8", "s16", "s32", "s64", "pid_t"]
                    .iter()
                    .any(|t| type_part.split_whitespace().any(|w| w == *t))
        }
    };
    Some(Field {
        name: name.to_string(),
        offset,
        size,
        signed,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(fixtures::file("kernel-6.18-formats").join(name)).unwrap()
    }

    #[test]
    fn sched_switch_6_18() {
        let f = parse_format("sched", &read("sched_sched_switch.format")).unwrap();
        assert_eq!(
            (f.id, f.name.as_str(), f.system.as_str()),
            (372, "sched_switch", "sched")
        );
        assert_eq!(f.fields.len(), 11);
        let pc = f.field("prev_comm").unwrap();
        assert_eq!((pc.offset, pc.size, pc.kind), (8, 16, FieldKind::CharArray));
        let ps = f.field("prev_state").unwrap();
        assert_eq!(
            (ps.offset, ps.size, ps.signed, ps.kind),
            (32, 8, true, FieldKind::Int)
        );
        let np = f.field("next_prio").unwrap();
        assert_eq!((np.offset, np.size), (60, 4));
        assert!(f.print_fmt.starts_with("\"prev_comm=%s"));
        assert!(f.print_fmt.ends_with("REC->next_prio"));
    }

    #[test]
    fn data_loc_comm_6_18() {
        let f = parse_format("sched", &read("sched_sched_process_fork.format")).unwrap();
        assert_eq!(f.id, 366);
        let pc = f.field("parent_comm").unwrap();
        assert_eq!((pc.offset, pc.size, pc.kind), (8, 4, FieldKind::DataLoc));
        assert_eq!(f.field("child_pid").unwrap().offset, 20);
        let m = parse_format("sched", &read("sched_sched_migrate_task.format")).unwrap();
        assert_eq!(m.field("comm").unwrap().kind, FieldKind::DataLoc);
        assert_eq!(m.field("dest_cpu").unwrap().offset, 24);
    }

    #[test]
    fn header_page_6_18_and_32_bit() {
        let h = parse_header_page(&read("header_page")).unwrap();
        assert_eq!(
            h,
            HeaderPage {
                commit_size: 8,
                data_offset: 16,
                data_size: 4080
            }
        );
        let h32 = parse_header_page(
            b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n",
        )
        .unwrap();
        assert_eq!(
            h32,
            HeaderPage {
                commit_size: 4,
                data_offset: 12,
                data_size: 4084
            }
        );
        assert!(parse_header_page(b"").is_err());
    }

    #[test]
    fn old_style_fields_and_flex_arrays() {
        let f = parse_format(
            "ftrace",
            b"name: print\nID: 5\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n\tfield:int common_pid;\toffset:4;\tsize:4;\n\tfield:unsigned long ip;\toffset:8;\tsize:8;\n\tfield:char buf[];\toffset:16;\tsize:0;\n\nprint fmt: \"%ps: %s\", REC->ip, REC->buf\n",
        )
        .unwrap();
        assert!(!f.field("common_type").unwrap().signed);
        assert!(f.field("common_pid").unwrap().signed);
        assert_eq!(f.field("buf").unwrap().kind, FieldKind::Flex);
        assert!(parse_format("x", b"name: x\nformat:\n").is_err());
    }
}
