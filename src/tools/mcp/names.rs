//! Model-facing names of MCP tools: `<server>__<tool>` with the configured server name,
//! mapped deterministically onto `[a-zA-Z0-9_-]{1,64}` when the raw name does not fit.

use std::collections::HashSet;

/// Longest model-facing tool name.
pub const MAX_NAME_LEN: usize = 64;

/// Whether `name` matches `[a-zA-Z0-9_-]{1,64}`.
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// FNV-1a (32 bit): a stable hash, independent of the Rust version and process.
fn fnv1a(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Replaces every character outside `[a-zA-Z0-9_-]` with `_`.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The model-facing name of one tool, before de-duplication: `<server>__<tool>` when
/// valid; otherwise bad characters become `_`, and a name longer than 64 is cut to 55
/// characters plus `_` and an 8-hex-digit hash of the raw name.
pub fn model_tool_name(server: &str, tool: &str) -> String {
    let raw = format!("{server}__{tool}");
    if is_valid_tool_name(&raw) {
        return raw;
    }
    let clean = sanitize(&raw);
    if clean.len() <= MAX_NAME_LEN {
        return clean;
    }
    // `clean` is ASCII, so byte slicing is safe.
    format!("{}_{:08x}", &clean[..MAX_NAME_LEN - 9], fnv1a(&raw))
}

/// Model-facing names for a server's tools, in the order given: `(model name, original
/// tool name)`. Collisions after mapping get a `_2`, `_3`, … suffix, assigned in order of
/// the original names so the result does not depend on the server's listing order.
pub fn map_tool_names(server: &str, tools: &[String]) -> Vec<(String, String)> {
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|&a, &b| tools[a].cmp(&tools[b]));
    // Names that map to themselves claim their spelling first.
    let mut taken: HashSet<String> = HashSet::new();
    let mut out: Vec<Option<String>> = vec![None; tools.len()];
    for &i in &order {
        let raw = format!("{server}__{}", tools[i]);
        if is_valid_tool_name(&raw) && taken.insert(raw.clone()) {
            out[i] = Some(raw);
        }
    }
    for &i in &order {
        if out[i].is_some() {
            continue;
        }
        let base = model_tool_name(server, &tools[i]);
        let mut name = base.clone();
        let mut n = 2u32;
        while taken.contains(&name) {
            let suffix = format!("_{n}");
            let keep = base.len().min(MAX_NAME_LEN - suffix.len());
            name = format!("{}{suffix}", &base[..keep]);
            n += 1;
        }
        taken.insert(name.clone());
        out[i] = Some(name);
    }
    out.into_iter()
        .zip(tools)
        .map(|(m, t)| (m.unwrap_or_default(), t.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_server_double_underscore_tool() {
        assert_eq!(model_tool_name("fs", "read_file"), "fs__read_file");
        assert_eq!(model_tool_name("my-srv", "a-b"), "my-srv__a-b");
    }

    #[test]
    fn bad_characters_become_underscores() {
        assert_eq!(model_tool_name("fs", "read.file"), "fs__read_file");
        assert_eq!(model_tool_name("a b", "x/y"), "a_b__x_y");
        assert_eq!(model_tool_name("fs", "读"), "fs___");
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let long = "t".repeat(80);
        let a = model_tool_name("server", &long);
        assert_eq!(a.len(), 64);
        assert!(is_valid_tool_name(&a));
        assert_eq!(a, model_tool_name("server", &long), "deterministic");
        let mut other = long.clone();
        other.push('u');
        let b = model_tool_name("server", &other);
        assert_eq!(a[..55], b[..55]);
        assert_ne!(a, b, "the hash tells them apart");
        // The hash is FNV-1a of the raw name: fixed across runs and builds.
        assert_eq!(fnv1a(""), 0x811c_9dc5);
        assert_eq!(fnv1a("a"), 0xe40c_292c);
    }

    #[test]
    fn collisions_are_deduplicated_independent_of_order() {
        let tools = vec![
            "read_file".to_string(),
            "read.file".to_string(),
            "read file".to_string(),
        ];
        let m = map_tool_names("fs", &tools);
        assert_eq!(m[0], ("fs__read_file".into(), "read_file".into()));
        assert_eq!(m[1], ("fs__read_file_3".into(), "read.file".into()));
        assert_eq!(m[2], ("fs__read_file_2".into(), "read file".into()));
        let mut rev = tools.clone();
        rev.reverse();
        let r = map_tool_names("fs", &rev);
        for (model, orig) in &m {
            assert!(r.iter().any(|(rm, ro)| rm == model && ro == orig));
        }
        let names: HashSet<_> = m.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(names.len(), 3);
        assert!(names.iter().all(|n| is_valid_tool_name(n)));
    }

    #[test]
    fn dedup_suffix_keeps_long_names_within_64() {
        let a = format!("{}!", "x".repeat(70));
        let b = format!("{}?", "x".repeat(70));
        let m = map_tool_names("s", &[a, b]);
        assert_ne!(m[0].0, m[1].0);
        assert!(m.iter().all(|(n, _)| is_valid_tool_name(n)));
    }
}
