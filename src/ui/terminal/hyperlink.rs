//! OSC 8 hyperlinks over a drawn frame (SPEC §15.2: the authorization URL of `/mcp login`
//! is printed as a link). A URL a notice names (its `url` argument) is looked up in the
//! frame after everything is drawn, across the rows it was wrapped over, and each of its
//! cells gets the link around its character. The cell keeps its drawn width
//! (`CellDiffOption::ForcedWidth`), so ratatui's diff and the layout are unchanged; every
//! cell carries the whole sequence, so a cell redrawn alone can never leave a link open.
//! A terminal without OSC 8 ignores the sequence and shows the text.

use std::num::NonZeroU16;

use ratatui::buffer::{Buffer, CellDiffOption};
use ratatui::layout::Position;

/// The most link URLs remembered (the newest are kept).
pub const MAX_LINKS: usize = 4;

/// The longest URL made a link (a longer one stays plain text).
pub const MAX_URL_BYTES: usize = 2048;

/// Whether `url` can be a link: http(s), printable ASCII, not too long.
pub fn linkable(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() <= MAX_URL_BYTES
        && url.bytes().all(|b| b.is_ascii_graphic())
}

/// Remembers `url` as a link (at most [`MAX_LINKS`], newest last, no duplicates).
pub fn remember(links: &mut Vec<String>, url: &str) {
    if !linkable(url) {
        return;
    }
    links.retain(|l| l != url);
    links.push(url.to_string());
    if links.len() > MAX_LINKS {
        links.remove(0);
    }
}

/// The one-character symbol of the cell at (x, y), if it is a plain ASCII one.
fn ascii_at(buf: &Buffer, x: u16, y: u16) -> Option<u8> {
    let s = buf.cell(Position { x, y })?.symbol();
    (s.len() == 1).then(|| s.as_bytes()[0])
}

/// Where `url` is drawn starting at (x, y): its cells, following it onto the next rows
/// when a row ends (in spaces or at the edge) before the URL does.
fn match_at(buf: &Buffer, url: &[u8], x: u16, y: u16) -> Option<Vec<(u16, u16)>> {
    let area = buf.area;
    let (right, bottom) = (area.x + area.width, area.y + area.height);
    let mut cells = Vec::with_capacity(url.len());
    let (mut cx, mut cy) = (x, y);
    let mut i = 0;
    while i < url.len() {
        if cx < right && ascii_at(buf, cx, cy) == Some(url[i]) {
            cells.push((cx, cy));
            i += 1;
            cx += 1;
            continue;
        }
        // The row must end here (a space or the edge) for the URL to go on below.
        if cx < right && ascii_at(buf, cx, cy) != Some(b' ') {
            return None;
        }
        cy += 1;
        if cy >= bottom {
            return None;
        }
        cx = area.x;
        while cx < right && ascii_at(buf, cx, cy) == Some(b' ') {
            cx += 1;
        }
        if ascii_at(buf, cx, cy) != Some(url[i]) {
            return None;
        }
    }
    Some(cells)
}

/// Makes every drawn occurrence of each of `links` in `buf` an OSC 8 hyperlink.
pub fn mark(buf: &mut Buffer, links: &[String]) {
    let area = buf.area;
    for url in links {
        let bytes = url.as_bytes();
        let Some(&first) = bytes.first() else {
            continue;
        };
        let mut found = Vec::new();
        for y in area.y..area.y + area.height {
            for x in area.x..area.x + area.width {
                if ascii_at(buf, x, y) == Some(first)
                    && let Some(cells) = match_at(buf, bytes, x, y)
                {
                    found.push(cells);
                }
            }
        }
        mark_cells(buf, url, found.into_iter().flatten());
    }
}

/// Makes each of `cells` (where a component drew `url`, e.g. wrapped inside a border that
/// [`mark`] cannot see past) part of an OSC 8 link to `url`. Only a [`linkable`] URL is.
pub fn mark_cells(buf: &mut Buffer, url: &str, cells: impl IntoIterator<Item = (u16, u16)>) {
    if !linkable(url) {
        return;
    }
    for (x, y) in cells {
        if let Some(cell) = buf.cell_mut(Position { x, y }) {
            let symbol = format!("\x1b]8;;{url}\x1b\\{}\x1b]8;;\x1b\\", cell.symbol());
            cell.set_symbol(&symbol);
            cell.set_diff_option(CellDiffOption::ForcedWidth(NonZeroU16::MIN));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    fn buffer(rows: &[&str]) -> Buffer {
        let w = rows.iter().map(|r| r.len()).max().unwrap_or(0) as u16;
        let mut buf = Buffer::empty(Rect::new(0, 0, w, rows.len() as u16));
        for (y, r) in rows.iter().enumerate() {
            buf.set_string(0, y as u16, r, ratatui::style::Style::default());
        }
        buf
    }

    fn linked(buf: &Buffer, x: u16, y: u16) -> bool {
        buf.cell(Position { x, y })
            .is_some_and(|c| c.symbol().starts_with("\x1b]8;;http"))
    }

    #[test]
    fn a_wrapped_authorization_url_becomes_one_link_over_its_rows() {
        let url = "http://127.0.0.1:8/auth/authorize?client_id=abc&state=xyz";
        let mut buf = buffer(&[
            "open: http://127.0.0.1:8/auth/a",
            "uthorize?client_id=abc&state=x ",
            "yz                             ",
        ]);
        mark(&mut buf, &[url.to_string()]);
        assert!(!linked(&buf, 0, 0), "the words before it stay text");
        assert!(linked(&buf, 6, 0) && linked(&buf, 30, 0));
        assert!(linked(&buf, 0, 1) && linked(&buf, 29, 1));
        assert!(!linked(&buf, 30, 1), "the padding after it stays text");
        assert!(linked(&buf, 0, 2) && linked(&buf, 1, 2) && !linked(&buf, 2, 2));
        let cell = buf.cell(Position { x: 6, y: 0 }).unwrap();
        assert_eq!(cell.symbol(), format!("\x1b]8;;{url}\x1b\\h\x1b]8;;\x1b\\"));
        // Drawn width is kept, so the frame diff writes each cell once, where it was.
        assert_eq!(
            cell.diff_option,
            CellDiffOption::ForcedWidth(NonZeroU16::MIN)
        );
    }

    #[test]
    fn text_that_only_starts_like_the_url_is_left_alone() {
        let url = "http://127.0.0.1:8/auth/authorize?state=1";
        let mut buf = buffer(&["http://127.0.0.1:8/auth/other and more text"]);
        mark(&mut buf, &[url.to_string()]);
        assert!(!linked(&buf, 0, 0));
    }

    #[test]
    fn only_plain_http_urls_are_remembered_and_only_the_newest_few() {
        let mut links = Vec::new();
        remember(&mut links, "javascript:alert(1)");
        remember(&mut links, "http://a.example/\x1b]8;;x");
        assert!(links.is_empty());
        for i in 0..6 {
            remember(&mut links, &format!("https://a.example/{i}"));
        }
        assert_eq!(links.len(), MAX_LINKS);
        assert_eq!(links.last().unwrap(), "https://a.example/5");
    }
}
