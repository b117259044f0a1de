//! A pane's scroll position, shared by Chat and the Trajectory.

/// Scroll state of a pane: `None` follows the tail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scroll {
    /// Top row when not following.
    pub top: Option<usize>,
}

impl Scroll {
    /// The effective top row for `total` rows in a viewport of `height`.
    pub fn resolve(&self, total: usize, height: usize) -> usize {
        let max = total.saturating_sub(height);
        self.top.map_or(max, |t| t.min(max))
    }

    /// Scrolls by `delta` rows (negative = up); reaching the bottom resumes following.
    pub fn by(&mut self, delta: isize, total: usize, height: usize) {
        let max = total.saturating_sub(height);
        let cur = self.resolve(total, height) as isize;
        let next = (cur + delta).clamp(0, max as isize) as usize;
        self.top = if next >= max { None } else { Some(next) };
    }

    /// Whether the pane follows the tail.
    pub fn following(&self) -> bool {
        self.top.is_none()
    }
}
