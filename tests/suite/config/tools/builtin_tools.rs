//! The built-in read-only tools: windowed reads, refused escapes and binary files, listings
//! and grep.

use super::*;

#[tokio::test]
async fn read_file_whole_and_windowed() {
    let w = ws();
    std::fs::create_dir(w.root.join("src")).unwrap();
    std::fs::write(w.root.join("src/a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    let out = call(
        &w.reg,
        "read_file",
        serde_json::json!({"path": "src/a.txt"}),
    )
    .await;
    assert_eq!(
        (out.content.as_str(), out.is_error),
        ("one\ntwo\nthree\nfour\n", false)
    );
    let out = call(
        &w.reg,
        "read_file",
        serde_json::json!({"path": "./src/../src/a.txt", "offset": 2, "limit": 2}),
    )
    .await;
    assert_eq!(out.content, "two\nthree\n[lines 2-3 of 4]");
    let abs = w.root.join("src/a.txt").display().to_string();
    let out = call(
        &w.reg,
        "read_file",
        serde_json::json!({"path": abs, "offset": 4}),
    )
    .await;
    assert_eq!(out.content, "four\n[lines 4-4 of 4]");
    let out = call(
        &w.reg,
        "read_file",
        serde_json::json!({"path": "src/a.txt", "offset": 9}),
    )
    .await;
    assert!(
        out.is_error && out.content.contains("past the end"),
        "{}",
        out.content
    );
    let out = call(
        &w.reg,
        "read_file",
        serde_json::json!({"path": "src/missing.txt"}),
    )
    .await;
    assert_eq!(
        out.content,
        "no such file or directory: \"src/missing.txt\""
    );
    let out = call(&w.reg, "read_file", serde_json::json!({})).await;
    assert_eq!(out.content, "missing required argument \"path\"");
    let out = call(&w.reg, "read_file", serde_json::json!({"path": "src"})).await;
    assert!(out.is_error && out.content.contains("is a directory"));
}

#[tokio::test]
async fn builtin_path_escapes_are_refused() {
    let w = ws();
    std::os::unix::fs::symlink(&w.outside, w.root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(w.outside.parent().unwrap(), w.root.join("up")).unwrap();
    let abs = w.outside.display().to_string();
    for (tool, path) in [
        ("read_file", "../secret.txt"),
        ("read_file", abs.as_str()),
        ("read_file", "link.txt"),
        ("read_file", "up/secret.txt"),
        ("read_file", "/etc/passwd"),
        ("read_file", "../does-not-exist"),
        ("list_dir", ".."),
        ("list_dir", "up"),
    ] {
        let out = call(&w.reg, tool, serde_json::json!({"path": path})).await;
        assert!(out.is_error, "{tool} {path}: {}", out.content);
        assert_eq!(
            out.content,
            format!("path \"{path}\" is outside the workspace")
        );
    }
    let out = call(
        &w.reg,
        "grep",
        serde_json::json!({"pattern": "secret", "path": "up"}),
    )
    .await;
    assert_eq!(out.content, "path \"up\" is outside the workspace");
    // Walking the root does not follow the symlinks out.
    let out = call(&w.reg, "grep", serde_json::json!({"pattern": "top secret"})).await;
    assert_eq!((out.content.as_str(), out.is_error), ("no matches", false));
}

#[tokio::test]
async fn binary_and_huge_files_are_refused() {
    let w = ws();
    std::fs::write(w.root.join("nul.bin"), b"abc\0def").unwrap();
    std::fs::write(w.root.join("latin1.txt"), [b'c', b'a', b'f', 0xe9, b'\n']).unwrap();
    for p in ["nul.bin", "latin1.txt"] {
        let out = call(&w.reg, "read_file", serde_json::json!({"path": p})).await;
        assert_eq!(
            out.content,
            format!("\"{p}\" is a binary file; read_file only reads text")
        );
    }
    let big: String = (0..30_000).map(|i| format!("line {i:05}\n")).collect();
    assert!(big.len() > 256 * 1024);
    std::fs::write(w.root.join("big.txt"), &big).unwrap();
    let out = call(&w.reg, "read_file", serde_json::json!({"path": "big.txt"})).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("too large (330000 bytes; the limit is 262144)"),
        "{}",
        out.content
    );
    assert!(out.content.contains("offset and limit"));
    let out = call(
        &w.reg,
        "read_file",
        serde_json::json!({"path": "big.txt", "offset": 29999, "limit": 5}),
    )
    .await;
    assert_eq!(
        out.content,
        "line 29998\nline 29999\n[lines 29999-30000 of 30000]"
    );
}

#[tokio::test]
async fn list_dir_sorted_with_markers() {
    let w = ws();
    std::fs::create_dir(w.root.join("b_dir")).unwrap();
    std::fs::write(w.root.join("a.txt"), "x").unwrap();
    std::fs::write(w.root.join("c.txt"), "x").unwrap();
    std::os::unix::fs::symlink(w.root.join("a.txt"), w.root.join("d_link")).unwrap();
    let out = call(&w.reg, "list_dir", serde_json::json!({})).await;
    assert_eq!(out.content, "a.txt\nb_dir/\nc.txt\nd_link@");
    let out = call(&w.reg, "list_dir", serde_json::json!({"path": "b_dir"})).await;
    assert_eq!(out.content, "(empty directory)");
    let out = call(&w.reg, "list_dir", serde_json::json!({"path": "a.txt"})).await;
    assert_eq!(out.content, "\"a.txt\" is not a directory");
}

#[tokio::test]
async fn grep_finds_matches_and_skips_binary_git_and_target() {
    let w = ws();
    for d in ["src", ".git", "target"] {
        std::fs::create_dir(w.root.join(d)).unwrap();
    }
    std::fs::write(
        w.root.join("src/main.rs"),
        "fn main() {\n    let needle = 1;\n}\n",
    )
    .unwrap();
    std::fs::write(
        w.root.join("notes.md"),
        "a needle here\nnothing\nneedle again\n",
    )
    .unwrap();
    std::fs::write(w.root.join("blob.bin"), b"needle\0").unwrap();
    std::fs::write(w.root.join(".git/config"), "needle").unwrap();
    std::fs::write(w.root.join("target/out"), "needle").unwrap();
    let out = call(&w.reg, "grep", serde_json::json!({"pattern": "needle"})).await;
    assert_eq!(
        out.content,
        "notes.md:1:a needle here\nnotes.md:3:needle again\nsrc/main.rs:2:    let needle = 1;"
    );
    let out = call(
        &w.reg,
        "grep",
        serde_json::json!({"pattern": "^needle", "path": "notes.md"}),
    )
    .await;
    assert_eq!(out.content, "notes.md:3:needle again");
    // An invalid regex is searched literally.
    std::fs::write(w.root.join("paren.txt"), "call f(x\n").unwrap();
    let out = call(&w.reg, "grep", serde_json::json!({"pattern": "f(x"})).await;
    assert_eq!(out.content, "paren.txt:1:call f(x");
    let out = call(&w.reg, "grep", serde_json::json!({"pattern": "zzz"})).await;
    assert_eq!(out.content, "no matches");
    let many: String = (0..300).map(|_| "hit\n").collect();
    std::fs::write(w.root.join("many.txt"), many).unwrap();
    let out = call(
        &w.reg,
        "grep",
        serde_json::json!({"pattern": "hit", "path": "many.txt"}),
    )
    .await;
    assert_eq!(out.content.lines().count(), 201);
    assert!(
        out.content
            .ends_with("[stopped after 200 matches; narrow the pattern or path]")
    );
}

/// `grep` walks with the `ignore` crate, so `.gitignore`d files are skipped
/// (whether or not the workspace is a git repository); hidden files are still searched.
#[tokio::test]
async fn grep_skips_gitignored_files_and_still_searches_hidden_ones() {
    let w = ws();
    std::fs::create_dir(w.root.join("build")).unwrap();
    std::fs::write(w.root.join(".gitignore"), "build/\n*.log\n").unwrap();
    std::fs::write(w.root.join("build/gen.rs"), "needle").unwrap();
    std::fs::write(w.root.join("run.log"), "needle").unwrap();
    std::fs::write(w.root.join(".env.example"), "needle=1").unwrap();
    std::fs::write(w.root.join("kept.rs"), "needle").unwrap();
    let out = call(&w.reg, "grep", serde_json::json!({"pattern": "needle"})).await;
    assert_eq!(out.content, ".env.example:1:needle=1\nkept.rs:1:needle");
}

#[test]
fn builtin_schemas_are_stable_objects() {
    let s = builtin::schemas();
    let names: Vec<_> = s.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["grep", "list_dir", "read_file"]);
    assert_eq!(
        s[2].parameters.to_string(),
        r#"{"type":"object","properties":{"path":{"type":"string","description":"File to read, relative to the workspace root."},"offset":{"type":"integer","minimum":1,"description":"First line to return (1-based)."},"limit":{"type":"integer","minimum":1,"description":"Maximum number of lines to return."}},"required":["path"]}"#
    );
}
