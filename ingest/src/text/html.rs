//! Android systrace / atrace HTML: the ftrace text sits in
//! `<script class="trace-data" type="application/text"> ... </script>` blocks (formats.md §5.4).
//! Everything else in the page is HTML and JavaScript, not trace lines.

/// A part of the input that holds trace text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Region {
    pub start: usize,
    pub end: usize,
}

/// True when the input is an HTML page (systrace) rather than plain trace text.
pub(super) fn is_html(bytes: &[u8]) -> bool {
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
/// newer systrace pages are left out: they start with `{` or `[`). Blocks are found as the
/// HTML parser finds them: a script's content runs to the first `</script>`, so the text
/// `<script class="trace-data"` inside a JavaScript block (a string in the viewer's own code)
/// is skipped with the block that holds it.
pub(super) fn trace_data_regions(bytes: &[u8]) -> Vec<Region> {
    let mut regions = Vec::new();
    let mut pos = 0;
    while let Some(at) = find_ignore_case(&bytes[pos..], b"<script") {
        let tag_at = pos + at;
        let Some(gt) = memchr::memchr(b'>', &bytes[tag_at..]) else {
            break;
        };
        let start = tag_at + gt + 1;
        let end = find_ignore_case(&bytes[start..], b"</script").map_or(bytes.len(), |e| start + e);
        let is_data =
            memchr::memmem::find(&bytes[tag_at..start], b"class=\"trace-data\"").is_some();
        let first = bytes[start..end].iter().find(|b| !b.is_ascii_whitespace());
        if is_data && !matches!(first, Some(b'{') | Some(b'[')) {
            regions.push(Region { start, end });
        }
        pos = end;
    }
    regions
}

/// First position of `needle` (ASCII, lower case) in `hay`, ignoring ASCII case.
fn find_ignore_case(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memchr2(needle[0], needle[0].to_ascii_uppercase(), &hay[from..]) {
        let at = from + i;
        if hay.len() - at >= needle.len() && hay[at..at + needle.len()].eq_ignore_ascii_case(needle)
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
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

    /// Trace Compass's test page has viewer JavaScript that contains the text of a data tag;
    /// only the real block (after that script) is trace data.
    #[test]
    fn a_data_tag_inside_javascript_is_not_a_block() {
        let page = b"<!DOCTYPE html>\n<script>\nvar t = '<script class=\"trace-data\" type=\"application/text\">';\nvar x = 1;\n</script>\n<SCRIPT class=\"trace-data\" type=\"application/text\">\nREAL\n</script>\n";
        let r = trace_data_regions(page);
        assert_eq!(r.len(), 1);
        assert_eq!(&page[r[0].start..r[0].end], b"\nREAL\n");
    }
}
