//! The patch grammar and the three matching passes.

use super::patch::{Chunk, Op, ParseError, parse};
use super::seek::{Mismatch, apply_chunks, seek};

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn err(text: &str) -> ParseError {
    parse(text).expect_err("the patch is invalid")
}

#[test]
fn every_construct_of_the_grammar_parses() {
    let text = "\
*** Begin Patch
*** Add File: docs/new.md
+# Title
+
+body
*** Delete File: old.txt
*** Update File: src/lib.rs
*** Move to: src/core.rs
@@ fn main() {
 let a = 1;
-let b = 2;
+let b = 3;

@@
-last
+final
*** End of File
*** Update File: README.md
 intro
+added
*** End Patch
";
    let p = parse(text).unwrap();
    assert_eq!(
        p.ops,
        vec![
            Op::Add {
                path: "docs/new.md".into(),
                content: "# Title\n\nbody\n".into(),
                line: 2
            },
            Op::Delete {
                path: "old.txt".into(),
                line: 6
            },
            Op::Update {
                path: "src/lib.rs".into(),
                move_to: Some("src/core.rs".into()),
                chunks: vec![
                    Chunk {
                        context: Some("fn main() {".into()),
                        old: lines(&["let a = 1;", "let b = 2;"]),
                        new: lines(&["let a = 1;", "let b = 3;"]),
                        eof: false,
                        line: 9
                    },
                    Chunk {
                        context: None,
                        old: lines(&["last"]),
                        new: lines(&["final"]),
                        eof: true,
                        line: 14
                    },
                ],
                line: 7
            },
            Op::Update {
                path: "README.md".into(),
                move_to: None,
                chunks: vec![Chunk {
                    context: None,
                    old: lines(&["intro"]),
                    new: lines(&["intro", "added"]),
                    eof: false,
                    line: 19
                }],
                line: 18
            },
        ]
    );
}

#[test]
fn a_move_without_hunks_an_empty_add_and_a_range_header_parse() {
    let p = parse(
        "*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n*** Add File: empty.txt\n\
         *** Update File: c.rs\n@@ -10,3 +10,3 @@ impl Foo\n-x\n+y\n*** End Patch",
    )
    .unwrap();
    assert_eq!(
        p.ops[0],
        Op::Update {
            path: "a.rs".into(),
            move_to: Some("b.rs".into()),
            chunks: vec![],
            line: 2
        }
    );
    assert_eq!(
        p.ops[1],
        Op::Add {
            path: "empty.txt".into(),
            content: String::new(),
            line: 4
        }
    );
    let Op::Update { chunks, .. } = &p.ops[2] else {
        panic!("{:?}", p.ops[2])
    };
    assert_eq!(chunks[0].context.as_deref(), Some("impl Foo"));
    // An empty line inside a hunk is an empty context line; one at the end is a separator.
    let p =
        parse("*** Begin Patch\n*** Update File: x\n@@\n a\n\n b\n-c\n\n*** End Patch").unwrap();
    let Op::Update { chunks, .. } = &p.ops[0] else {
        panic!()
    };
    assert_eq!(chunks[0].old, lines(&["a", "", "b", "c"]));
    assert_eq!(chunks[0].new, lines(&["a", "", "b"]));
}

#[test]
fn context_lines_that_look_like_markers_stay_context() {
    let p = parse(
        "*** Begin Patch\n*** Update File: notes.md\n@@\n *** Add File: not-a-header\n @@ not a hunk\n-x\n+y\n*** End Patch",
    )
    .unwrap();
    let Op::Update { chunks, .. } = &p.ops[0] else {
        panic!()
    };
    assert_eq!(chunks.len(), 1);
    assert_eq!(
        chunks[0].old,
        lines(&["*** Add File: not-a-header", "@@ not a hunk", "x"])
    );
}

#[test]
fn a_bad_envelope_names_the_line() {
    let e = err("\n\n*** Add File: x\n+a\n*** End Patch");
    assert_eq!(e.line, 3);
    assert!(
        e.message.contains("must start with '*** Begin Patch'"),
        "{e}"
    );
    let e = err("*** Begin Patch\n*** Add File: x\n+a\n");
    assert_eq!(e.line, 3);
    assert!(
        e.to_string().contains("must end with '*** End Patch'"),
        "{e}"
    );
    let e = err("");
    assert!(e.message.contains("empty"), "{e}");
    let e = err("*** Begin Patch\n*** End Patch");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("no operations"), "{e}");
    let e = err("*** Begin Patch\n*** Frobnicate File: x\n*** End Patch");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("not an operation header"), "{e}");
    let e = err("*** Begin Patch\n*** Add File:   \n*** End Patch");
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "'*** Add File:' needs a path")
    );
}

#[test]
fn a_bad_hunk_names_the_line() {
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n ok\nbad line\n*** End Patch");
    assert_eq!(e.line, 5);
    assert!(e.message.contains("'bad line'"), "{e}");
    let e = err("*** Begin Patch\n*** Update File: a\n*** End Patch");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("no @@ hunk"), "{e}");
    let e = err("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("no lines"), "{e}");
    // Only the first chunk may leave out its `@@`; the second starts at the stray line.
    let e = err("*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End of File\nz\n*** End Patch");
    assert_eq!(e.line, 6);
    assert!(e.message.contains("expected an '@@' hunk header"), "{e}");
}

#[test]
fn the_three_passes_run_in_order_over_the_whole_range() {
    let file = lines(&["a  ", "  b", "a", "b"]);
    // Exact wins even when a looser match comes earlier.
    assert_eq!(seek(&file, &lines(&["a", "b"]), 0, false), Some(2));
    // Trailing whitespace ignored.
    let file = lines(&["x", "let a = 1;   ", "y"]);
    assert_eq!(seek(&file, &lines(&["let a = 1;"]), 0, false), Some(1));
    // All surrounding whitespace ignored, only as the last pass.
    let file = lines(&["x", "\t  let a = 1;", "    let a = 1;  "]);
    assert_eq!(seek(&file, &lines(&["    let a = 1;"]), 0, false), Some(2));
    assert_eq!(seek(&file, &lines(&["let a = 1;"]), 0, false), Some(1));
    // Inner whitespace still matters.
    assert_eq!(seek(&file, &lines(&["let  a = 1;"]), 0, false), None);
    // The search starts at `start`; a pattern longer than the file never matches.
    assert_eq!(seek(&lines(&["q", "q"]), &lines(&["q"]), 1, false), Some(1));
    assert_eq!(seek(&lines(&["q"]), &lines(&["q", "q"]), 0, false), None);
    // End of file prefers the match that ends the file.
    let file = lines(&["end", "mid", "end"]);
    assert_eq!(seek(&file, &lines(&["end"]), 0, true), Some(2));
    assert_eq!(seek(&file, &lines(&["end"]), 0, false), Some(0));
}

fn chunk(context: Option<&str>, old: &[&str], new: &[&str]) -> Chunk {
    Chunk {
        context: context.map(str::to_string),
        old: lines(old),
        new: lines(new),
        eof: false,
        line: 3,
    }
}

#[test]
fn chunks_apply_in_order_after_their_context_line() {
    let file = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
    let out = apply_chunks(
        file,
        &[chunk(Some("fn b() {"), &["    x();"], &["    y();"])],
    )
    .unwrap();
    assert_eq!(out, "fn a() {\n    x();\n}\nfn b() {\n    y();\n}\n");
    // Two chunks, each after the previous one.
    let out = apply_chunks(
        file,
        &[
            chunk(None, &["    x();"], &["    one();"]),
            chunk(None, &["    x();"], &["    two();"]),
        ],
    )
    .unwrap();
    assert_eq!(out, "fn a() {\n    one();\n}\nfn b() {\n    two();\n}\n");
    // A pure addition goes after its context line, or at the end without one.
    let out = apply_chunks("a\nb\n", &[chunk(Some("a"), &[], &["new"])]).unwrap();
    assert_eq!(out, "a\nnew\nb\n");
    let out = apply_chunks("a\nb\n", &[chunk(None, &[], &["new"])]).unwrap();
    assert_eq!(out, "a\nb\nnew\n");
}

#[test]
fn line_ends_and_the_final_newline_are_kept() {
    let out = apply_chunks("one\r\ntwo\r\n", &[chunk(None, &["two"], &["2"])]).unwrap();
    assert_eq!(out, "one\r\n2\r\n");
    let out = apply_chunks("one\ntwo", &[chunk(None, &["two"], &["2"])]).unwrap();
    assert_eq!(out, "one\n2");
    let out = apply_chunks("", &[chunk(None, &[], &["first"])]).unwrap();
    assert_eq!(out, "first\n");
    // A trailing empty expected line may stand for the final newline.
    let out = apply_chunks("a\nb\n", &[chunk(None, &["b", ""], &["c", ""])]).unwrap();
    assert_eq!(out, "a\nc\n");
}

#[test]
fn a_mismatch_names_the_first_line_that_cannot_be_found() {
    let file = "alpha\nbeta\ngamma\ndelta\n";
    let e = apply_chunks(
        file,
        &[chunk(None, &["beta", "gamma", "GONE", "delta"], &["x"])],
    )
    .unwrap_err();
    assert_eq!(
        e,
        Mismatch {
            line: "GONE".into(),
            chunk_line: 3
        }
    );
    let e = apply_chunks(file, &[chunk(Some("fn missing()"), &["beta"], &["b"])]).unwrap_err();
    assert_eq!(e.line, "fn missing()");
    // Each line exists, but not in this order: the first one out of order is named.
    let e = apply_chunks(file, &[chunk(None, &["gamma", "beta"], &["x"])]).unwrap_err();
    assert_eq!(e.line, "beta");
    // The second chunk must come after the first.
    let e = apply_chunks(
        file,
        &[
            chunk(None, &["gamma"], &["G"]),
            chunk(None, &["alpha"], &["A"]),
        ],
    )
    .unwrap_err();
    assert_eq!(e.line, "alpha");
}

mod hostile {
    use proptest::prelude::*;

    use super::super::patch::{Op, parse};
    use super::super::seek::apply_chunks;

    /// Lines a patch is made of, hostile ones included (markers without paths, stray
    /// `@@`, multibyte text, carriage returns).
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("*** Begin Patch".to_string()),
            Just("*** End Patch".to_string()),
            Just("*** End of File".to_string()),
            Just("*** Add File: a".to_string()),
            Just("*** Update File: a".to_string()),
            Just("*** Delete File:".to_string()),
            Just("*** Move to: b".to_string()),
            Just("@@".to_string()),
            Just("@@ -1,2 +1,2 @@".to_string()),
            Just(String::new()),
            "[ +@*-][a-zé𝄞\\r @]{0,6}",
        ]
    }

    proptest! {
        #[test]
        fn any_patch_text_parses_or_fails_without_panicking_and_applies_to_any_file(
            lines in proptest::collection::vec(line(), 0..24),
            file in "[ab é𝄞\\r\\n]{0,40}",
        ) {
            let text = lines.join("\n");
            if let Ok(p) = parse(&text) {
                for op in &p.ops {
                    if let Op::Update { chunks, .. } = op {
                        let _ = apply_chunks(&file, chunks);
                    }
                }
            }
            let wrapped = format!("*** Begin Patch\n{text}\n*** End Patch");
            if let Ok(p) = parse(&wrapped) {
                for op in &p.ops {
                    if let Op::Update { chunks, .. } = op {
                        let _ = apply_chunks(&file, chunks);
                    }
                }
            }
        }
    }
}
