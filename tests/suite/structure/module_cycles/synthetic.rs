//! The scanner on tiny synthetic trees: cycles reported as paths, acyclic trees passed, file
//! cycles through `super`, children and re-exports, and what the tokenizer drops.

use super::*;
use crate::common::rust_lexer;

fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("src");
    for (path, text) in files {
        let p = src.join(path);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(&p, text).expect("write");
    }
    (dir, src)
}

fn names(cs: &[Vec<String>]) -> Vec<String> {
    cs.iter().map(|c| c.join(" -> ")).collect()
}

#[test]
fn scanner_reports_a_module_cycle_as_a_path() {
    let (_d, src) = tree(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "b.rs",
            "pub struct B;\npub fn f() -> Option<crate::a::A> { None }\n",
        ),
    ]);
    let a = analyze(&src);
    assert_eq!(names(&a.module_cycles()), ["a -> b -> a"]);
    assert_eq!(
        names(&a.file_cycles()),
        ["src/a.rs -> src/b.rs -> src/a.rs"]
    );
    let report = a.report();
    assert!(report.contains("a -> b -> a"), "{report}");
    assert!(report.contains("src/b.rs:2 `crate::a::A`"), "{report}");
}

#[test]
fn scanner_passes_an_acyclic_tree() {
    let (_d, src) = tree(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        (
            "a/mod.rs",
            "//! Mentions crate::b::X in a comment.\npub mod inner;\npub use inner::{Thing, Other as Renamed};\n\
             pub fn g() -> &'static str { \"crate::b::X\" }\nconst C: char = '{';\n\
             #[cfg(test)]\nmod tests {\n    use crate::b::X;\n    fn t() { let _ = crate::b::X; }\n}\n",
        ),
        ("a/inner.rs", "pub struct Thing;\npub struct Other;\n"),
        (
            "b/mod.rs",
            "pub mod z;\n#[cfg(test)]\nmod b_tests;\nuse crate::a::{self, Thing};\npub struct X(Thing, a::Renamed);\n",
        ),
        (
            "b/z.rs",
            "use super::X;\npub fn h(_: X) { let _ = r#\"crate::b::z\"#; }\n",
        ),
        (
            "b/b_tests.rs",
            "use crate::a::inner::Thing;\nuse crate::b::z::h;\n",
        ),
        ("b/more_tests.rs", "use crate::b::z::h;\n"),
    ]);
    let a = analyze(&src);
    assert_eq!(a.report(), "");
    // The grouped import and the re-export lead to the defining file, not the facade.
    let from_b = &a.files["src/b/mod.rs"];
    assert!(from_b.contains_key("src/a/inner.rs"), "{from_b:?}");
    assert!(!from_b.contains_key("src/a/mod.rs"), "{from_b:?}");
    assert!(a.files["src/b/z.rs"].contains_key("src/b/mod.rs"));
    // The facade `pub use` in a/mod.rs is not an edge; test files are not in the graph.
    assert!(
        a.files["src/a/mod.rs"].is_empty(),
        "{:?}",
        a.files["src/a/mod.rs"]
    );
    assert!(!a.files.contains_key("src/b/b_tests.rs"));
    assert!(!a.files.contains_key("src/b/more_tests.rs"));
    assert_eq!(a.modules["b"].keys().collect::<Vec<_>>(), ["a"]);
    // The same tree's test build: a's unit tests reach b, which uses a.
    let t = analyze_build(&src, true);
    assert_eq!(names(&t.module_cycles()), ["a -> b -> a"]);
    assert!(t.files.contains_key("src/b/b_tests.rs"));
}

#[test]
fn scanner_finds_file_cycles_through_super_children_and_reexports() {
    let (_d, src) = tree(&[
        ("lib.rs", "mod w;\nmod x;\nmod y;\n"),
        // x/mod.rs re-exports and also uses the name itself: that is an edge.
        (
            "x/mod.rs",
            "mod p;\nmod q;\npub use p::P;\nfn uses() -> P { P }\n",
        ),
        ("x/p.rs", "use super::q::Q;\npub struct P;\n"),
        ("x/q.rs", "pub struct Q;\nfn g() { let _ = super::P; }\n"),
        // y: a file cycle through nested grouped imports and a renamed module import.
        ("y/mod.rs", "pub mod r;\npub mod s;\n"),
        (
            "y/r.rs",
            "use crate::y::{s::{self as ess}};\nfn f() { ess::S; }\npub struct R;\n",
        ),
        (
            "y/s.rs",
            "pub struct S;\nfn f() { let _ = crate::y::r::R; }\n",
        ),
        // w: re-exporting a sibling's item is an edge even when unused.
        ("w/mod.rs", "pub mod a;\npub mod b;\n"),
        ("w/a.rs", "pub use super::b::f;\npub struct T;\n"),
        ("w/b.rs", "use super::a::T;\npub fn f(_: T) {}\n"),
    ]);
    let a = analyze(&src);
    assert_eq!(
        names(&a.file_cycles()),
        [
            "src/w/a.rs -> src/w/b.rs -> src/w/a.rs",
            "src/x/p.rs -> src/x/q.rs -> src/x/p.rs",
            "src/y/r.rs -> src/y/s.rs -> src/y/r.rs",
        ]
    );
    assert!(a.module_cycles().is_empty());
}

#[test]
fn lexer_skips_comments_strings_and_chars() {
    let toks = lex(
        "/* crate::a /* nested */ */ let s = \"crate::b\\\"\"; let q = '\"'; let r = br#\"crate::c\"#;\ncrate::d::E",
    );
    let texts: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
    assert!(
        !texts.contains(&"a") && !texts.contains(&"b") && !texts.contains(&"c"),
        "{texts:?}"
    );
    assert_eq!(texts[texts.len() - 5..], ["crate", "::", "d", "::", "E"]);
    assert_eq!(toks.last().map(|t| t.line), Some(2));
}

#[test]
fn the_lexer_blanks_comments_and_literals_and_keeps_offsets_and_lines() {
    let src = "/* a /* nested */ */ let s = \"x\\\"y\"; let q = '\"';\nlet r = br#\"raw \"q\"\"#; f::<'a>(b'z', c\"c\")";
    let l = rust_lexer::lex(src);
    assert_eq!(l.code.len(), src.len());
    assert_eq!(l.skeleton.len(), src.len());
    let texts: Vec<&str> = l.literals.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["x\\\"y", "raw \"q\"", "c"]);
    assert_eq!(l.literals[1].line, 2);
    assert_eq!(&src[l.literals[1].start..l.literals[1].start + 3], "br#");
    let words: Vec<&str> = l.skeleton.split_whitespace().collect();
    assert_eq!(
        words,
        [
            "let", "s", "=", ";", "let", "q", "=", ";", "let", "r", "=", ";", "f::<'a>(", ",", ")"
        ]
    );
    assert!(l.code.starts_with("                     let s = \"x"));
}
