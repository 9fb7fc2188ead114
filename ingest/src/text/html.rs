//! Android systrace / atrace HTML: the ftrace text sits in
//! `<script class="trace-data" type="application/text"> ... </script>` blocks (formats.md §5.4).
//! Everything else in the page is HTML and JavaScript, not trace lines.

/// A part of the input that holds trace text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: usize,
    pub end: usize,
}

/// True when the input is an HTML page (systrace) rather than plain trace text.
pub fn is_html(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(512)];
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let head = &head[start..];
    [&b"<!doctype html"[..], b"<html"]
        .iter()
        .any(|tag| head.len() >= tag.len() && head[..tag.len()].eq_ignore_ascii_case(tag))
}

/// The text of every `trace-data` script block that holds ftrace text (JSON blocks of
/// newer systrace pages are left out: they start with `{` or `[`).
pub fn trace_data_regions(bytes: &[u8]) -> Vec<Region> {
    let mut regions = Vec::new();
    let mut pos = 0;
    while let Some(at) = memchr::memmem::find(&bytes[pos..], b"class=\"trace-data\"") {
        let tag_at = pos + at;
        let Some(gt) = memchr::memchr(b'>', &bytes[tag_at..]) else {
            break;
        };
        let start = tag_at + gt + 1;
        let end =
            memchr::memmem::find(&bytes[start..], b"</script>").map_or(bytes.len(), |e| start + e);
        let first = bytes[start..end].iter().find(|b| !b.is_ascii_whitespace());
        if !matches!(first, Some(b'{') | Some(b'[')) {
            regions.push(Region { start, end });
        }
        pos = end;
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_blocks() {
        let page = b"<!DOCTYPE html>\n<script class=\"trace-data\" type=\"application/text\">\nA\n</script>\n<script class=\"trace-data\">{\"x\":1}</script>";
        assert!(is_html(page));
        let r = trace_data_regions(page);
        assert_eq!(r.len(), 1);
        assert_eq!(&page[r[0].start..r[0].end], b"\nA\n");
    }
}
