//! Fluent keys and code agree, in both directions:
//! - every key the code under `src/` uses exists in en-US AND zh-CN;
//! - every message in the locale files is used by non-test code under `src/` (directly, as
//!   a key built from a listed dynamic prefix, or referenced by another message), so unused
//!   messages cannot come back;
//! - the project's own parity checker (`shared/tools/ftl-parity`) reports no problem.
//!
//! How a key "used in code" is found: Rust sources are lexed (comments skipped, string
//! literals extracted with their positions), then a literal counts as a key when
//! - it is passed straight to a localizing call (`tr(`, `tra(`, `notice(`, `info(`, …), or
//! - it has the shape of a key (`word-word…`) and its first word is a namespace some
//!   message in en-US uses (`cmd`, `tui`, `config`, …): this catches keys that travel
//!   through tables, `message_id()`-style functions and wrappers.
//!
//! Keys built at run time (`format!("tui-badge-{name}")`) are listed in [`DYNAMIC`] with
//! where their suffixes come from; a new `format!`-built key with a known namespace that is
//! not listed fails the test. Literals with the shape of a key that are not keys (wire and
//! log names) are listed in [`NOT_KEYS`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::common;
use crate::common::rust_lexer::{self, Literal};

/// The locales every key must exist in.
const LOCALES: [&str; 2] = ["en-US", "zh-CN"];

/// A family of keys built at run time as `prefix` + a suffix literal.
struct Dynamic {
    /// The literal prefix, e.g. `tui-badge-`.
    prefix: &'static str,
    /// The file whose `format!` builds the key.
    builder: &'static str,
    /// The file the suffix literals are passed in (ending in `/`: every file under it).
    suffix_file: &'static str,
    /// A regex whose first group captures each suffix literal in `suffix_file`.
    suffix_pattern: &'static str,
}

/// Every key family built at run time.
const DYNAMIC: &[Dynamic] = &[
    Dynamic {
        prefix: "tui-badge-",
        builder: "src/ui/trajectory/render.rs",
        suffix_file: "src/ui/trajectory/render.rs",
        suffix_pattern: r#"\bbadge\(\s*"([a-z0-9-]+)""#,
    },
    Dynamic {
        prefix: "config-type-",
        builder: "src/config/error.rs",
        suffix_file: "src/config/parse/",
        suffix_pattern: r#"\bexpected:\s*"([a-z0-9-]+)""#,
    },
    Dynamic {
        prefix: "llm-code-",
        builder: "src/ui/step_label.rs",
        suffix_file: "src/llm/types.rs",
        suffix_pattern: r#"\w+ => "([a-z_]+)", "llm-error-"#,
    },
    Dynamic {
        prefix: "config-file-kind-",
        builder: "src/config/error.rs",
        suffix_file: "src/fs_guard.rs",
        suffix_pattern: r#"SpecialKind::\w+ => "([a-z-]+)","#,
    },
];

/// Literals with the shape of a key (and a key namespace) that are not Fluent keys.
const NOT_KEYS: &[(&str, &str)] = &[
    (
        "tool-addition",
        "content block type in the log and on the wire",
    ),
    (
        "tool-removal",
        "content block type in the log and on the wire",
    ),
    ("tool-call", "content block type in the log"),
    ("tool-registry", "message source kind in the log"),
    ("no-such-key", "a unit test of the unknown-key fallback"),
    ("session-dir", "a command-line option name"),
    ("cache-unit", "a command-line option name"),
    ("system-prompt", "a message source kind"),
    ("sandbox-mode", "a message source kind (the mode note)"),
    (
        "tool-bridge",
        "a message source kind (a tool note of the tool bridge, never logged)",
    ),
    ("mcp-auth", "the folder of MCP OAuth token files"),
    (
        "tool-catalogue",
        "a message source kind (the announcement of deferred tools)",
    ),
    (
        "tool-definition",
        "a message source kind (the note of a same-name definition change)",
    ),
    (
        "mcp-protocol-version",
        "an HTTP header the MCP transport sets itself",
    ),
    (
        "mcp-session-id",
        "an HTTP header the MCP transport sets itself",
    ),
];

/// Calls whose first string argument (after an optional `NoticeLevel::X,`) is a key.
const KEY_CALLS: &str =
    r#"\b(?:tr|tra|notice|emit_notice|info|warn|Notice::new)\(\s*(?:NoticeLevel::\w+\s*,\s*)?$"#;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ------------------------------------------------------------------ Fluent files

/// Message ids of one locale, each with the message ids its value references.
fn messages(locale: &str) -> BTreeMap<String, BTreeSet<String>> {
    let id = Regex::new(r"^([A-Za-z][A-Za-z0-9_-]*)\s*=").unwrap();
    let term = Regex::new(r"^-[A-Za-z]").unwrap();
    let reference = Regex::new(r"\{\s*([A-Za-z][A-Za-z0-9_-]*)\s*\}").unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let dir = root().join("locales").join(locale);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ftl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .ftl files in {}", dir.display());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if let Some(m) = id.captures(line) {
                let name = m[1].to_string();
                out.entry(name.clone()).or_default();
                current = Some(name);
            } else if term.is_match(line) {
                current = None;
            }
            if let Some(c) = &current {
                for r in reference.captures_iter(line) {
                    out.get_mut(c).unwrap().insert(r[1].to_string());
                }
            }
        }
    }
    out
}

// ------------------------------------------------------------------ Rust sources

/// One lexed source file.
struct Source {
    /// Path relative to the crate root, with `/`.
    path: String,
    /// The text with comments blanked out (same byte offsets).
    code: String,
    /// The text with comments and literals blanked out (for brace matching).
    skeleton: String,
    /// Every string literal.
    literals: Vec<Literal>,
    /// Byte ranges of `#[cfg(test)]` modules.
    test_ranges: Vec<(usize, usize)>,
    /// The whole file is a `#[cfg(test)]` module.
    test_only: bool,
}

impl Source {
    fn in_test(&self, offset: usize) -> bool {
        self.test_only
            || self
                .test_ranges
                .iter()
                .any(|&(a, b)| a <= offset && offset < b)
    }
}

/// Lexes a Rust source file (the suite's one lexer) and finds its test modules.
fn lex(path: String, text: &str) -> Source {
    let rust_lexer::Lexed {
        code,
        skeleton,
        literals,
    } = rust_lexer::lex(text);
    let test_ranges = test_ranges(&skeleton);
    Source {
        path,
        code,
        skeleton,
        literals,
        test_ranges,
        test_only: false,
    }
}

/// Byte ranges of inline `#[cfg(test)] mod name { … }` blocks.
fn test_ranges(skeleton: &str) -> Vec<(usize, usize)> {
    let re = Regex::new(
        r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([a-z]+\))?\s+)?mod\s+\w+\s*\{",
    )
    .unwrap();
    let b = skeleton.as_bytes();
    re.find_iter(skeleton)
        .map(|m| {
            let mut depth = 0usize;
            let mut end = b.len();
            for (k, &c) in b.iter().enumerate().skip(m.end() - 1) {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            (m.start(), end)
        })
        .collect()
}

/// Every `.rs` file under `src/`, lexed, with test-only module files marked.
fn sources() -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&root().join("src"), &mut paths);
    paths.sort();
    let mut sources: Vec<Source> = paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            lex(rel, &std::fs::read_to_string(p).unwrap())
        })
        .collect();
    // `#[cfg(test)] mod name;` makes `name.rs` / `name/mod.rs` test-only.
    let decl = Regex::new(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*mod\s+(\w+)\s*;").unwrap();
    let mut test_files = BTreeSet::new();
    for s in &sources {
        let dir = match s.path.rsplit_once('/') {
            Some((d, f)) if f == "mod.rs" || f == "lib.rs" || f == "main.rs" => d.to_string(),
            Some((d, f)) => format!("{d}/{}", f.trim_end_matches(".rs")),
            None => String::new(),
        };
        for m in decl.captures_iter(&s.skeleton) {
            test_files.insert(format!("{dir}/{}.rs", &m[1]));
            test_files.insert(format!("{dir}/{}/mod.rs", &m[1]));
        }
    }
    for s in &mut sources {
        s.test_only = test_files.contains(&s.path);
    }
    sources
}

/// The last `n` bytes of `s` or a little more (on a char boundary).
fn tail(s: &str, n: usize) -> &str {
    let mut at = s.len().saturating_sub(n);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    &s[at..]
}

/// A key-shaped literal: lowercase words joined by `-`.
fn key_shaped(s: &str) -> bool {
    static SHAPE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$").unwrap());
    SHAPE.is_match(s)
}

/// The first word of a key (`cmd` of `cmd-help`).
fn namespace(key: &str) -> &str {
    key.split('-').next().unwrap_or(key)
}

/// What the scan found.
struct Usage {
    /// Keys the code uses, each with one place (`file:line`) it is used.
    used: BTreeMap<String, String>,
    /// Keys used by non-test code.
    used_in_production: BTreeSet<String>,
    /// Problems found while scanning (unlisted dynamic keys).
    problems: Vec<String>,
}

fn scan(namespaces: &BTreeSet<String>) -> Usage {
    let call = Regex::new(KEY_CALLS).unwrap();
    let dynamic_literal = Regex::new(r"^([a-z][a-z0-9]*(?:-[a-z0-9]+)*-)\{").unwrap();
    let sources = sources();
    let not_keys: BTreeSet<&str> = NOT_KEYS.iter().map(|(k, _)| *k).collect();
    let mut usage = Usage {
        used: BTreeMap::new(),
        used_in_production: BTreeSet::new(),
        problems: Vec::new(),
    };
    for s in &sources {
        for lit in &s.literals {
            let passed_to_call = call.is_match(tail(&s.code[..lit.start], 160));
            let shaped = key_shaped(&lit.text) && namespaces.contains(namespace(&lit.text));
            let at = format!("{}:{}", s.path, lit.line);
            if let Some(m) = dynamic_literal.captures(&lit.text)
                && namespaces.contains(namespace(&m[1]))
            {
                let prefix = &m[1];
                if !DYNAMIC
                    .iter()
                    .any(|d| d.prefix == prefix && d.builder == s.path)
                {
                    usage.problems.push(format!(
                        "{at}: key built at run time from \"{prefix}…\"; list it in DYNAMIC \
                         with where its suffixes come from"
                    ));
                }
                continue;
            }
            if !(passed_to_call && key_shaped(&lit.text) || shaped)
                || not_keys.contains(lit.text.as_str())
            {
                continue;
            }
            usage.used.entry(lit.text.clone()).or_insert(at);
            if !s.in_test(lit.start) {
                usage.used_in_production.insert(lit.text.clone());
            }
        }
    }
    for d in DYNAMIC {
        // A `suffix_file` ending in `/` names every file under that directory.
        let files: Vec<_> = sources
            .iter()
            .filter(|s| {
                s.path == d.suffix_file
                    || (d.suffix_file.ends_with('/') && s.path.starts_with(d.suffix_file))
            })
            .collect();
        assert!(
            !files.is_empty(),
            "DYNAMIC names a missing file {}",
            d.suffix_file
        );
        let builder = sources
            .iter()
            .find(|s| s.path == d.builder)
            .unwrap_or_else(|| panic!("DYNAMIC names a missing file {}", d.builder));
        assert!(
            builder
                .literals
                .iter()
                .any(|l| l.text.starts_with(&format!("{}{{", d.prefix))),
            "{} no longer builds \"{}…\" keys; update DYNAMIC",
            d.builder,
            d.prefix
        );
        let re = Regex::new(d.suffix_pattern).unwrap();
        let mut found = 0;
        for (file, m) in files
            .iter()
            .flat_map(|f| re.captures_iter(&f.code).map(move |m| (f, m)))
        {
            let offset = m.get(0).map_or(0, |g| g.start());
            let key = format!("{}{}", d.prefix, &m[1]);
            let line = file.code[..offset].matches('\n').count() + 1;
            usage
                .used
                .entry(key.clone())
                .or_insert(format!("{}:{line}", file.path));
            if !file.in_test(offset) {
                usage.used_in_production.insert(key);
            }
            found += 1;
        }
        assert!(
            found > 0,
            "no suffix for \"{}…\" found in {}",
            d.prefix,
            d.suffix_file
        );
    }
    usage
}

fn en_namespaces() -> BTreeSet<String> {
    messages("en-US")
        .keys()
        .map(|k| namespace(k).to_string())
        .collect()
}

// ------------------------------------------------------------------ the checks

#[test]
fn every_key_used_in_code_exists_in_both_locales() {
    let usage = scan(&en_namespaces());
    assert!(
        usage.used.len() > 200,
        "the scan finds the keys ({})",
        usage.used.len()
    );
    let mut problems = usage.problems.clone();
    for locale in LOCALES {
        let ids = messages(locale);
        for (key, at) in &usage.used {
            if !ids.contains_key(key) {
                problems.push(format!("{at}: \"{key}\" is not in locales/{locale}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_fluent_message_is_used_by_the_code() {
    let en = messages("en-US");
    let usage = scan(&en_namespaces());
    let referenced: BTreeSet<&String> = en.values().flatten().collect();
    let unused: Vec<&String> = en
        .keys()
        .filter(|k| !usage.used_in_production.contains(*k) && !referenced.contains(k))
        .collect();
    assert!(
        unused.is_empty(),
        "messages in locales/en-US that no (non-test) code under src/ uses; remove them \
         from every locale or use them:\n{unused:#?}"
    );
}

#[test]
fn not_keys_are_not_messages_and_still_occur() {
    let en = messages("en-US");
    let sources = sources();
    for (k, why) in NOT_KEYS {
        assert!(
            !en.contains_key(*k),
            "\"{k}\" is listed as not a key ({why}) but is a message"
        );
        assert!(
            sources
                .iter()
                .any(|s| s.literals.iter().any(|l| l.text == *k)),
            "\"{k}\" no longer occurs in src/; drop it from NOT_KEYS"
        );
    }
}

#[test]
fn the_lexer_skips_comments_and_char_literals_and_finds_raw_strings() {
    let src = r####"
// "cmd-in-line-comment"
/* "cmd-in-block" /* nested "cmd-nested" */ still "cmd-still" */
fn f<'a>(x: &'a str) -> char { let q = '"'; let e = '\''; tr("cmd-one"); '"' }
const R: &str = r#"raw "quoted" text"#;
const B: &[u8] = b"bytes";
#[cfg(test)]
mod tests {
    fn g() { tr("cmd-in-test"); let s = "}"; }
}
fn h() { tra("cmd-two", &[]); }
"####;
    let s = lex("src/x.rs".into(), src);
    let texts: Vec<&str> = s.literals.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "cmd-one",
            r#"raw "quoted" text"#,
            "bytes",
            "cmd-in-test",
            "}",
            "cmd-two"
        ]
    );
    let in_test: Vec<bool> = s.literals.iter().map(|l| s.in_test(l.start)).collect();
    assert_eq!(in_test, [false, false, false, true, true, false]);
    let call = Regex::new(KEY_CALLS).unwrap();
    assert!(call.is_match(&s.code[..s.literals[0].start]));
    assert!(!call.is_match(&s.code[..s.literals[1].start]));
}

/// The project's parity checker: same ids, attributes and placeholders in every locale.
/// Missing checker or `python3`: skipped, or a failure under `DEEPTERM_REQUIRE_EXTERNAL=1`.
#[test]
fn ftl_parity_tool_reports_no_problems() {
    // `DEEPTERM_FTL_PARITY` names the checker; otherwise the nearest `shared/tools/ftl-parity`
    // above the crate (the project keeps its tools next to the repository), else the copy
    // in `tests/support` (a clean clone has no `shared` folder next to it).
    let tool = match std::env::var_os("DEEPTERM_FTL_PARITY") {
        Some(p) => Some(PathBuf::from(p)).filter(|p| p.is_file()),
        None => root()
            .ancestors()
            .map(|a| a.join("shared/tools/ftl-parity"))
            .find(|p| p.is_file())
            .or_else(|| Some(root().join("tests/support/ftl-parity")).filter(|p| p.is_file())),
    };
    if !common::require_external("shared/tools/ftl-parity", tool.is_some()) {
        return;
    }
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !common::require_external("python3", python) {
        return;
    }
    let tool = tool.unwrap_or_default();
    let out = std::process::Command::new("python3")
        .arg(&tool)
        .arg(root().join("locales"))
        .output()
        .unwrap_or_else(|e| panic!("python3 {}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("0 problems"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Every zh-CN message value (`key = value` plus its continuation lines), comments skipped.
fn zh_values() -> Vec<(String, String)> {
    let dir = root().join("locales/zh-CN");
    let mut out: Vec<(String, String)> = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ftl"))
        .collect();
    files.sort();
    let head = Regex::new(r"^([a-z][a-z0-9-]*) = ?(.*)$").unwrap();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if let Some(c) = head.captures(line) {
                out.push((c[1].to_string(), c[2].to_string()));
            } else if let Some(last) = out.last_mut() {
                last.1.push('\n');
                last.1.push_str(line.trim());
            }
        }
    }
    out
}

/// one Chinese word per concept. Each entry is the chosen term and the
/// variants that must not appear in any zh-CN message.
const ZH_GLOSSARY: &[(&str, &[&str])] = &[
    // A route is provider/model; `/model` switches it.
    ("路由", &["切换模型", "未选择模型", "模型路线"]),
    ("服务器", &["服务端"]),
    ("轮", &["回合"]),
    ("允许", &["批准"]),
    ("拒绝", &["否决"]),
    ("提示词", &["提示语"]),
    ("会话", &["对话记录"]),
    ("输入框", &["编辑框", "撰写框"]),
    ("简体中文", &["zh-CN。", "为 zh-CN", "/ 中文"]),
    // A request that read less from the cache than it could: the cache "失效", never
    // "中断" (that is a cut connection) or "丢失".
    (
        "缓存失效",
        &["缓存中断", "缓存断裂", "丢失缓存", "缓存丢失", "缓存被破坏"],
    ),
    // The demo simulator, in its replies and the notices about it.
    ("演示模拟器", &["演示仿真器", "示范模拟器", "模拟服务器"]),
    // How an MCP server process ended.
    ("退出状态", &["退出码", "退出代码", "返回码"]),
];

#[test]
fn zh_glossary_one_word_per_concept() {
    let values = zh_values();
    assert!(values.len() > 100, "read the zh-CN messages");
    let mut problems = Vec::new();
    for (term, banned) in ZH_GLOSSARY {
        for (key, value) in &values {
            for b in *banned {
                if value.contains(b) {
                    problems.push(format!("{key}: uses “{b}”, the glossary says “{term}”"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Chinese punctuation. Quotations use full-width “…” (ASCII quotes only in
/// TOML syntax such as `tool_removal = "retain"`, or where the text names the `"` character
/// itself), no ASCII comma or colon sits next to Chinese text, and the list separator
/// (`Arg::List`) is `、`.
#[test]
fn zh_punctuation_is_full_width() {
    let cjk = r"[\u{4e00}-\u{9fff}\u{3000}-\u{303f}\u{ff00}-\u{ffef}“”]";
    let ascii_punct = Regex::new(&format!(
        r"{cjk}[ ]?[,:;]|[,;][ ]?{cjk}|{cjk}[ ]?\(|\)[ ]?{cjk}"
    ))
    .unwrap();
    let toml = Regex::new(r#"= "[^"]*""#).unwrap();
    let fluent_literal = Regex::new(r#"\{"[^"]*"\}"#).unwrap();
    let mut problems = Vec::new();
    for (key, value) in zh_values() {
        let rest = fluent_literal.replace_all(&value, "");
        let rest = toml.replace_all(&rest, "");
        let names_the_character = rest.contains("以 \" 开头");
        if rest.contains('"') && !names_the_character {
            problems.push(format!("{key}: ASCII quotes in “{value}”"));
        }
        if ascii_punct.is_match(&rest) {
            problems.push(format!(
                "{key}: ASCII punctuation next to Chinese in “{value}”"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let zh = deepterm::i18n::Localizer::new(deepterm::i18n::Locale::ZhCn);
    let names = deepterm::i18n::Arg::List(vec!["grep".into(), "list_dir".into()]);
    let shown = zh.tra(
        "store-ambiguous",
        &[("query", "ab".into()), ("candidates", names)],
    );
    assert!(shown.contains("grep、list_dir"), "{shown}");
}

/// A space between Chinese and Latin text (`界面语言已切换为 English。`), in the messages
/// as written and where a selector or an argument puts Latin words next to Chinese.
#[test]
fn zh_latin_words_are_spaced_from_chinese() {
    let cjk = r"[\u{4e00}-\u{9fff}]";
    let tight = Regex::new(&format!(r"{cjk}[A-Za-z]|[A-Za-z]{cjk}")).unwrap();
    // Rendered without arguments: selectors take their default variant, and a missing
    // argument shows as `{$name}`, which is left out here.
    let missing = Regex::new(r"\{\$?[A-Za-z_-]*\}").unwrap();
    let zh = deepterm::i18n::Localizer::new(deepterm::i18n::Locale::ZhCn);
    let mut problems = Vec::new();
    for (key, _) in zh_values() {
        let shown = zh.tr(&key);
        let rest = missing.replace_all(&shown, "");
        if tight.is_match(&rest) {
            problems.push(format!("{key}: “{shown}”"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let switched = zh.tra("cmd-lang-switched", &[("locale", "en-US".into())]);
    assert_eq!(switched, "界面语言已切换为 English。");
    let failed = zh.tra(
        "mcp-connect-failed",
        &[
            ("name", "badjs".into()),
            (
                "error",
                deepterm::i18n::Text::new("mcp-err-exited", vec![("status", "1".into())]).into(),
            ),
        ],
    );
    assert_eq!(
        failed,
        "无法连接 MCP 服务器 badjs：服务器已退出，退出状态为 1"
    );
}
