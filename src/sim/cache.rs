//! The simulated prefix cache: pure functions over canonical request renders.
//!
//! Tokens are one per 4 UTF-8 bytes, rounded up. A request hits the longest common
//! prefix with any stored render of the same namespace, rounded down to whole cache
//! units (`unit_tokens` tokens = `4 * unit_tokens` bytes), or a whole stored render that
//! is a full prefix of it (the exact-unit rule). Content shorter than one unit never hits.

/// Token count of a byte length (one token per 4 bytes, rounded up).
pub fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

/// Which point of a request a stored render represents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// The end of the request's input.
    Input,
    /// The input plus the generated assistant turn, rendered as the client should replay it.
    Output,
}

impl UnitKind {
    /// Stable lower-case name (`input` / `output`).
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Input => "input",
            UnitKind::Output => "output",
        }
    }
}

#[derive(Debug, Clone)]
struct Unit {
    namespace: String,
    bytes: Vec<u8>,
    request: usize,
    kind: UnitKind,
}

/// The outcome of a cache lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheLookup {
    /// Cached prompt tokens.
    pub hit_tokens: u64,
    /// Total prompt tokens.
    pub total_tokens: u64,
    /// Byte length of the render.
    pub render_bytes: usize,
    /// First byte offset where the render differs from the best-matching stored render
    /// (= their common prefix length); `None` when nothing was stored for this namespace.
    pub first_diff_byte: Option<usize>,
    /// The request index and kind of the best-matching stored render.
    pub matched: Option<(usize, UnitKind)>,
}

/// The store of cache units.
#[derive(Debug, Clone)]
pub struct CacheModel {
    unit_tokens: usize,
    units: Vec<Unit>,
    max_units: usize,
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl CacheModel {
    /// A new empty cache with the given unit size in tokens (0 is treated as 1).
    pub fn new(unit_tokens: usize) -> Self {
        Self {
            unit_tokens: unit_tokens.max(1),
            units: Vec::new(),
            max_units: 512,
        }
    }

    /// Look up a render without storing it.
    pub fn lookup(&self, namespace: &str, render: &[u8]) -> CacheLookup {
        let unit_bytes = self.unit_tokens * 4;
        let total_tokens = tokens(render.len());
        let mut best_lcp: Option<(usize, usize, UnitKind)> = None;
        let mut hit_tokens = 0u64;
        for unit in self.units.iter().filter(|u| u.namespace == namespace) {
            let lcp = common_prefix(render, &unit.bytes);
            if best_lcp.is_none_or(|(b, _, _)| lcp > b) {
                best_lcp = Some((lcp, unit.request, unit.kind));
            }
            let mut candidate = ((lcp / unit_bytes) * unit_bytes / 4) as u64;
            if lcp == unit.bytes.len() && unit.bytes.len() >= unit_bytes {
                candidate = candidate.max(tokens(unit.bytes.len()));
            }
            hit_tokens = hit_tokens.max(candidate);
        }
        CacheLookup {
            hit_tokens: hit_tokens.min(total_tokens),
            total_tokens,
            render_bytes: render.len(),
            first_diff_byte: best_lcp.map(|(l, _, _)| l),
            matched: best_lcp.map(|(_, r, k)| (r, k)),
        }
    }

    /// Store a render as a cache unit (duplicates are ignored; the oldest units are evicted
    /// beyond a fixed capacity).
    pub fn store(&mut self, namespace: &str, render: Vec<u8>, request: usize, kind: UnitKind) {
        if self
            .units
            .iter()
            .any(|u| u.namespace == namespace && u.bytes == render)
        {
            return;
        }
        self.units.push(Unit {
            namespace: namespace.to_string(),
            bytes: render,
            request,
            kind,
        });
        if self.units.len() > self.max_units {
            let excess = self.units.len() - self.max_units;
            self.units.drain(..excess);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize, fill: u8) -> Vec<u8> {
        vec![fill; n]
    }

    #[test]
    fn first_request_misses_and_has_no_diff_offset() {
        let c = CacheModel::new(64);
        let r = c.lookup("ns", &bytes(1000, b'a'));
        assert_eq!(r.hit_tokens, 0);
        assert_eq!(r.total_tokens, 250);
        assert_eq!(r.first_diff_byte, None);
    }

    #[test]
    fn extension_hits_whole_previous_render_by_exact_unit_rule() {
        let mut c = CacheModel::new(64);
        let a = bytes(1001, b'a');
        c.store("ns", a.clone(), 0, UnitKind::Input);
        let mut b = a.clone();
        b.extend_from_slice(b"more content");
        let r = c.lookup("ns", &b);
        assert_eq!(r.hit_tokens, tokens(1001));
        assert_eq!(r.first_diff_byte, Some(1001));
        assert_eq!(r.matched, Some((0, UnitKind::Input)));
    }

    #[test]
    fn divergence_rounds_down_to_whole_units() {
        let mut c = CacheModel::new(64);
        let a = bytes(2000, b'a');
        c.store("ns", a.clone(), 0, UnitKind::Input);
        let mut b = a.clone();
        b[700] = b'b';
        let r = c.lookup("ns", &b);
        // 700 bytes common -> 2 units of 256 bytes -> 128 tokens
        assert_eq!(r.hit_tokens, 128);
        assert_eq!(r.first_diff_byte, Some(700));
    }

    #[test]
    fn content_shorter_than_a_unit_never_hits() {
        let mut c = CacheModel::new(64);
        c.store("ns", bytes(200, b'a'), 0, UnitKind::Input);
        let r = c.lookup("ns", &bytes(200, b'a'));
        assert_eq!(r.hit_tokens, 0);
        assert_eq!(r.first_diff_byte, Some(200));
    }

    #[test]
    fn namespaces_do_not_share_units() {
        let mut c = CacheModel::new(64);
        c.store("flash", bytes(4000, b'a'), 0, UnitKind::Input);
        let r = c.lookup("pro", &bytes(4000, b'a'));
        assert_eq!(r.hit_tokens, 0);
        assert_eq!(r.first_diff_byte, None);
    }

    #[test]
    fn best_of_several_units_wins_and_hit_is_capped() {
        let mut c = CacheModel::new(64);
        c.store("ns", bytes(300, b'a'), 0, UnitKind::Input);
        c.store("ns", bytes(3000, b'a'), 1, UnitKind::Output);
        let r = c.lookup("ns", &bytes(1030, b'a'));
        assert_eq!(r.hit_tokens, 256);
        assert_eq!(r.matched, Some((1, UnitKind::Output)));
        let identical = c.lookup("ns", &bytes(3000, b'a'));
        assert_eq!(identical.hit_tokens, identical.total_tokens);
    }
}
