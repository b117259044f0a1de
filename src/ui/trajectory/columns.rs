//! The Trajectory's request-row columns: which show at a width (dropped from the least
//! important end as the pane narrows, the cost only when prices are known), their widths,
//! the localized header and legend, and how figures are written in them.

use crate::i18n::Localizer;
use crate::session::event::Usage;
use crate::ui::text::{str_width, truncate};
use crate::ui::theme;
use ratatui::text::{Line, Span};

/// The request-row columns, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// `#n`, the number `/inspect N` takes.
    Number,
    /// `T1.S2`: turn 1, step 2.
    Step,
    /// Time to first token.
    Ttft,
    /// Total duration.
    Total,
    /// Uncached input tokens (↑).
    In,
    /// Cache-read input tokens (⟳).
    Cached,
    /// Output tokens (↓).
    Out,
    /// What the request cost; empty when no price is known.
    Cost,
    /// Cache-hit %.
    Hit,
}

impl Column {
    /// Every column, in display order.
    pub const ALL: [Column; 9] = [
        Column::Number,
        Column::Step,
        Column::Ttft,
        Column::Total,
        Column::In,
        Column::Cached,
        Column::Out,
        Column::Cost,
        Column::Hit,
    ];
    /// The order columns are dropped in when the pane is narrow: the least important
    /// first (the cost, whose total the footer shows); the hit % goes last.
    pub const DROP_ORDER: [Column; 8] = [
        Column::Cost,
        Column::Ttft,
        Column::Total,
        Column::Out,
        Column::Step,
        Column::In,
        Column::Cached,
        Column::Number,
    ];

    /// Display width in columns.
    pub fn width(self) -> usize {
        match self {
            Column::Number | Column::Hit => 4,
            Column::Step | Column::Cached => 6,
            // `$0.000094`, `<$0.00001`, `$0.0123` (see `format_usd`).
            Column::Cost => 9,
            _ => 5,
        }
    }

    fn right_aligned(self) -> bool {
        !matches!(self, Column::Number | Column::Step)
    }

    fn header_key(self) -> &'static str {
        match self {
            Column::Number => "tui-traj-col-number",
            Column::Step => "tui-traj-col-step",
            Column::Ttft => "tui-traj-col-ttft",
            Column::Total => "tui-traj-col-total",
            Column::In => "tui-traj-col-in",
            Column::Cached => "tui-traj-col-cached",
            Column::Out => "tui-traj-col-out",
            Column::Cost => "tui-traj-col-cost",
            Column::Hit => "tui-traj-col-hit",
        }
    }
}

/// The legend the key help shows for the Trajectory: (what you see, its explanation).
pub const LEGEND: [(&str, &str); 8] = [
    ("T1.S2", "tui-help-legend-step"),
    ("tui-key-legend-durations", "tui-help-legend-ttft"),
    ("↑ ⟳ ↓", "tui-help-legend-tokens"),
    ("tui-key-legend-cost", "tui-help-legend-cost"),
    ("tui-key-legend-hit", "tui-help-legend-hit"),
    ("!", "tui-help-legend-break"),
    ("tui-key-mode-in-history", "tui-help-legend-in-history"),
    (
        "tui-key-mode-addition-only",
        "tui-help-legend-addition-only",
    ),
];

/// The localized name of a route's tool-update mode (footer, ROUTE rows, key help).
pub fn mode_label(l: Localizer, m: crate::session::event::ToolUpdateMode) -> String {
    l.tr(match m {
        crate::session::event::ToolUpdateMode::InHistory => "tui-key-mode-in-history",
        crate::session::event::ToolUpdateMode::AdditionOnly => "tui-key-mode-addition-only",
    })
}

/// Width of the marker gutter every row starts with (the cache-break `!`).
pub const GUTTER: usize = 2;

/// The columns that fit `width`, in display order.
pub fn columns_for(width: usize) -> Vec<Column> {
    columns_priced(width, true)
}

/// The columns that fit `width`, in display order; without the cost column when no price
/// is known (`priced` false: no cost is shown anywhere).
pub fn columns_priced(width: usize, priced: bool) -> Vec<Column> {
    let mut cols = Column::ALL.to_vec();
    if !priced {
        cols.retain(|c| *c != Column::Cost);
    }
    let need = |c: &[Column]| GUTTER + c.iter().map(|c| c.width()).sum::<usize>() + c.len() - 1;
    for d in Column::DROP_ORDER {
        if need(&cols) <= width {
            break;
        }
        cols.retain(|c| *c != d);
    }
    cols
}

pub(super) fn pad(text: &str, w: usize, right: bool) -> String {
    let t = truncate(text, w);
    let fill = " ".repeat(w.saturating_sub(str_width(&t)));
    if right {
        format!("{fill}{t}")
    } else {
        format!("{t}{fill}")
    }
}

/// Lays out `cells` (text and style per column) in `cols`, after the gutter span.
pub(super) fn columns_line(
    gutter: Span<'static>,
    cols: &[Column],
    cell: impl Fn(Column) -> (String, ratatui::style::Style),
) -> Vec<Span<'static>> {
    let mut spans = vec![gutter];
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        let (text, style) = cell(*c);
        spans.push(Span::styled(
            pad(&text, c.width(), c.right_aligned()),
            style,
        ));
    }
    spans
}

/// The localized column header for a pane `width` columns wide.
pub fn header_line(l: Localizer, width: usize) -> Line<'static> {
    header_of(l, &columns_for(width))
}

pub(super) fn header_of(l: Localizer, cols: &[Column]) -> Line<'static> {
    Line::from(columns_line(Span::raw(" ".repeat(GUTTER)), cols, |c| {
        (l.tr(c.header_key()), theme::dim().patch(theme::bold()))
    }))
}

/// Cache-hit percentage: cache-read ÷ (uncached + cache-read).
pub fn hit_percent(u: &Usage) -> Option<u64> {
    u.hit_percent()
}

/// The style of a hit % (see [`theme::hit_band`]).
pub fn hit_style(pct: u64) -> ratatui::style::Style {
    theme::hit_band(pct)
}

/// Formats a token count compactly (`950`, `12.3k`, `1.2M`).
pub fn tokens(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

pub(super) fn ms(v: u64) -> String {
    if v >= 1000 {
        format!("{:.1}s", v as f64 / 1000.0)
    } else {
        format!("{v}ms")
    }
}
