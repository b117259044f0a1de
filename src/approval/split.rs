//! Splitting a shell command string into its simple commands with a real shell parser
//! (`tree-sitter-bash`, decision 0050), for matching against rules (§14.2).
//!
//! Every `command` node anywhere in the tree is one simple command: across pipes, `;`,
//! `&&`, `||`, subshells, `{ }` groups, command and process substitution, backticks,
//! redirection targets, here-documents, function bodies and control structures. A word is
//! unquoted and unescaped as the shell would (`'a b'` → `a b`); a word whose value depends
//! on run time (a `$VAR`, a glob, a `~`, a substitution) keeps its text but is marked not
//! statically known, and such a word never satisfies an `allow` rule. Anything the parser
//! does not accept (an `ERROR` or missing node) makes the whole string [`Split::Unparseable`],
//! which the rules treat as `prompt`.

use tree_sitter::{Node, Parser};

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word after quote removal; the literal text when not [`Word::known`].
    pub text: String,
    /// Whether `text` is what the shell will pass (no expansion, glob or substitution).
    pub known: bool,
}

impl Word {
    /// A statically known word.
    pub fn known(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            known: true,
        }
    }
}

/// One simple command: its argv words, the program first. Leading variable assignments
/// (`FOO=1 cmd`) and redirections are not words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The words; never empty.
    pub words: Vec<Word>,
    /// Found in the arguments of a program that runs another (`sudo rm …`, `bash -c
    /// 'rm …'`, `eval`): what really runs is not certain, so it is matched against
    /// `forbidden` and `prompt` rules only. It can refuse or ask; it never needs an allow.
    pub wrapped: bool,
}

impl SimpleCommand {
    /// Whether every word is statically known.
    pub fn is_static(&self) -> bool {
        self.words.iter().all(|w| w.known)
    }

    /// The words' texts.
    pub fn texts(&self) -> Vec<String> {
        self.words.iter().map(|w| w.text.clone()).collect()
    }
}

/// A command string, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// The simple commands, each before those nested in it (possibly none: `FOO=1` alone).
    Commands(Vec<SimpleCommand>),
    /// The parser did not accept the string: treated as `prompt`.
    Unparseable,
}

/// Largest command string parsed (1 MiB); a longer one is [`Split::Unparseable`]. The
/// shell tool's arguments are bounded far below this; the cap keeps a hostile argument from
/// costing unbounded parse time.
pub const MAX_SCRIPT_BYTES: usize = 1 << 20;

/// Splits a command string as `bash -c` would run it.
pub fn split_command(script: &str) -> Split {
    split_at_depth(script, 0)
}

fn split_at_depth(script: &str, depth: usize) -> Split {
    if script.len() > MAX_SCRIPT_BYTES || script.contains('\0') {
        return Split::Unparseable;
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        return Split::Unparseable;
    }
    let Some(tree) = parser.parse(script, None) else {
        return Split::Unparseable;
    };
    let root = tree.root_node();
    if root.has_error() {
        return Split::Unparseable;
    }
    let src = script.as_bytes();
    let mut out = vec![];
    collect(root, src, depth, &mut out);
    Split::Commands(out)
}

/// An argv array (the shell tool accepts one): one simple command, every word known.
/// An empty array has no command.
pub fn split_argv(argv: &[String]) -> Split {
    if argv.is_empty() {
        return Split::Commands(vec![]);
    }
    let cmd = SimpleCommand {
        words: argv.iter().map(Word::known).collect(),
        wrapped: false,
    };
    let mut out = vec![];
    unwrap_into(&cmd, 0, &mut out);
    out.insert(0, cmd);
    Split::Commands(out)
}

/// Visits every node (iteratively: a deeply nested hostile string must not overflow the
/// stack) and collects the simple commands in source order.
fn collect(root: Node<'_>, src: &[u8], depth: usize, out: &mut Vec<SimpleCommand>) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "command" => {
                if let Some(c) = command(node, src) {
                    let mut inner = vec![];
                    unwrap_into(&c, depth, &mut inner);
                    out.push(c);
                    out.extend(inner);
                }
            }
            "declaration_command" | "unset_command" => out.push(builtin(node, src)),
            // `[[ … ]]` and `(( … ))` run no program, but bash evaluates arithmetic in them
            // (array subscripts included), which can run a substitution hidden in a
            // variable's value: they are commands that no rule can allow.
            "test_command" | "arithmetic_expansion" | "c_style_for_statement" => {
                out.push(opaque(node, src))
            }
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}

/// Shells whose `-c SCRIPT` runs SCRIPT.
const SHELLS: &[&str] = &["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox"];

/// Programs that run the command their remaining arguments name, after their options.
const WRAPPERS: &[&str] = &[
    "builtin", "command", "doas", "env", "exec", "ionice", "nice", "nohup", "setsid", "stdbuf",
    "sudo", "time", "timeout", "xargs",
];

/// Options of [`WRAPPERS`] that take the next word as their value (`sudo -u root`,
/// `nice -n 5`, `xargs -I {}`). A wrapper's option this list misses makes the wrapped
/// command start at the option's value: a rule then may not match, which loses a
/// tightening but never allows anything (wrapped commands never satisfy an allow).
const OPTIONS_WITH_VALUE: &[&str] = &[
    "-C", "-D", "-E", "-I", "-L", "-P", "-S", "-T", "-a", "-c", "-d", "-g", "-h", "-i", "-k", "-n",
    "-p", "-r", "-s", "-t", "-u",
];

/// How deep `bash -c "sudo sh -c '…'"` is followed.
const MAX_WRAP_DEPTH: usize = 8;

/// The commands a wrapper command runs (see [`SimpleCommand::wrapped`]), appended to `out`.
fn unwrap_into(cmd: &SimpleCommand, depth: usize, out: &mut Vec<SimpleCommand>) {
    if depth >= MAX_WRAP_DEPTH {
        return;
    }
    let Some(program) = cmd.words.first().filter(|w| w.known) else {
        return;
    };
    let name = program.text.rsplit('/').next().unwrap_or(&program.text);
    let rest = &cmd.words[1..];
    let mark = |cs: Vec<SimpleCommand>| {
        cs.into_iter().map(|mut c| {
            c.wrapped = true;
            c
        })
    };
    if SHELLS.contains(&name) {
        // `-c`, or a cluster that contains it (`-ec`, `-lc`): the next operand is the script.
        let Some(at) = rest.iter().position(|w| {
            w.known && w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('c')
        }) else {
            return;
        };
        let Some(script) = rest.get(at + 1) else {
            return;
        };
        out.extend(mark(script_commands(script, depth)));
    } else if name == "eval" {
        let text: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
        let joined = Word {
            text: text.join(" "),
            known: rest.iter().all(|w| w.known),
        };
        out.extend(mark(script_commands(&joined, depth)));
    } else if WRAPPERS.contains(&name) {
        let mut i = 0;
        while let Some(w) = rest.get(i).filter(|w| w.known) {
            let assignment = name == "env" && w.text.contains('=') && !w.text.starts_with('=');
            if w.text == "--" {
                i += 1;
                break;
            } else if OPTIONS_WITH_VALUE.contains(&w.text.as_str()) {
                i += 2;
            } else if w.text.starts_with('-') || assignment {
                i += 1;
            } else {
                break;
            }
        }
        if name == "timeout" && rest.get(i).is_some_and(|w| w.known) {
            i += 1; // the duration
        }
        let Some(words) = rest.get(i..).filter(|w| !w.is_empty()) else {
            return;
        };
        let inner = SimpleCommand {
            words: words.to_vec(),
            wrapped: true,
        };
        let mut deeper = vec![];
        unwrap_into(&inner, depth + 1, &mut deeper);
        out.push(inner);
        out.extend(deeper);
    }
}

/// The commands of a script given as a word: parsed when known; otherwise (or when it
/// does not parse) one command whose program is unknown, which every `forbidden` rule
/// might match.
fn script_commands(script: &Word, depth: usize) -> Vec<SimpleCommand> {
    if script.known
        && let Split::Commands(cs) = split_at_depth(&script.text, depth + 1)
    {
        return cs;
    }
    vec![SimpleCommand {
        words: vec![Word {
            text: script.text.clone(),
            known: false,
        }],
        wrapped: true,
    }]
}

fn text<'a>(node: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

fn command(node: Node<'_>, src: &[u8]) -> Option<SimpleCommand> {
    let mut words = vec![];
    let mut cursor = node.walk();
    for (i, child) in node.children(&mut cursor).enumerate() {
        let field = node.field_name_for_child(i as u32);
        match field {
            Some("name") => {
                let inner = child.named_child(0).unwrap_or(child);
                words.push(word(inner, src));
            }
            Some("argument") => words.push(word(child, src)),
            _ => {}
        }
    }
    (!words.is_empty()).then_some(SimpleCommand {
        words,
        wrapped: false,
    })
}

/// `export A=1`, `local x`, `unset y`: the keyword then each part as written, known only
/// when nothing in it expands.
fn builtin(node: Node<'_>, src: &[u8]) -> SimpleCommand {
    let mut words = vec![];
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.kind() == "comment" {
            continue;
        }
        let w = match child.kind() {
            "word" | "raw_string" | "string" | "concatenation" | "number" => word(child, src),
            _ => Word {
                text: text(child, src).to_string(),
                known: !expands(child),
            },
        };
        words.push(w);
    }
    SimpleCommand {
        words,
        wrapped: false,
    }
}

fn opaque(node: Node<'_>, src: &[u8]) -> SimpleCommand {
    let t = text(node, src);
    let head = if t.starts_with("[[") {
        "[["
    } else if t.starts_with("$((") {
        "$(("
    } else {
        "(("
    };
    // The head is known, so a rule for `rm` is not a "maybe" here; the rest is not, so no
    // allow rule can cover it.
    SimpleCommand {
        words: vec![
            Word::known(head),
            Word {
                text: t.to_string(),
                known: false,
            },
        ],
        wrapped: false,
    }
}

/// Whether anything below `node` expands at run time.
fn expands(node: Node<'_>) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "simple_expansion"
                | "expansion"
                | "arithmetic_expansion"
                | "command_substitution"
                | "process_substitution"
                | "brace_expression"
                | "extglob_pattern"
                | "ansi_c_string"
                | "translated_string"
        ) {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    false
}

/// The value of one word node.
fn word(node: Node<'_>, src: &[u8]) -> Word {
    let raw = text(node, src);
    let unknown = || Word {
        text: raw.to_string(),
        known: false,
    };
    match node.kind() {
        "word" => unquoted(raw),
        "number" => Word::known(raw),
        "raw_string" => match raw.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
            Some(inner) => Word::known(inner),
            None => unknown(),
        },
        "string" => {
            let mut cursor = node.walk();
            let literal = node
                .named_children(&mut cursor)
                .all(|c| c.kind() == "string_content");
            match raw.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                Some(inner) if literal => Word::known(double_quoted(inner)),
                _ => unknown(),
            }
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let mut text_out = String::new();
            let mut known = true;
            let mut end = node.start_byte();
            for child in node.children(&mut cursor) {
                if child.start_byte() != end {
                    // Text between the parts that no node covers: do not guess its value.
                    known = false;
                }
                end = child.end_byte();
                let w = word(child, src);
                known &= w.known;
                text_out.push_str(&w.text);
            }
            if end != node.end_byte() {
                known = false;
            }
            if known {
                Word::known(text_out)
            } else {
                unknown()
            }
        }
        _ => unknown(),
    }
}

/// An unquoted word: backslashes quote the next character; an unquoted glob character,
/// a leading `~` or a `$` (expansion) makes the value unknown.
fn unquoted(raw: &str) -> Word {
    let mut out = String::with_capacity(raw.len());
    let mut known = !raw.starts_with('~');
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // A backslash-newline is a line continuation: it disappears.
                Some('\n') => {}
                Some(n) => out.push(n),
                None => known = false,
            },
            '*' | '?' | '[' | '$' | '`' | '{' => {
                known = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if known {
        Word::known(out)
    } else {
        Word {
            text: raw.to_string(),
            known: false,
        }
    }
}

/// The inside of a double-quoted string without expansions: a backslash quotes only
/// `$`, `` ` ``, `"`, `\` and a newline (which it removes).
fn double_quoted(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    out.push(chars.next().unwrap_or('\\'));
                    continue;
                }
                Some('\n') => {
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of each simple command, `?` marking a command with an unknown word.
    fn argvs(s: &str) -> Vec<String> {
        match split_command(s) {
            Split::Commands(cs) => cs
                .iter()
                .map(|c| {
                    let mut t = c.texts().join(" ");
                    if !c.is_static() {
                        t.push_str(" ?");
                    }
                    t
                })
                .collect(),
            Split::Unparseable => vec!["UNPARSEABLE".into()],
        }
    }

    #[test]
    fn lists_and_pipes_give_each_simple_command() {
        assert_eq!(
            argvs("git status && cargo test -p x | tee log; ls || echo no"),
            ["git status", "cargo test -p x", "tee log", "ls", "echo no"]
        );
    }

    #[test]
    fn quotes_and_escapes_are_removed_as_the_shell_would() {
        assert_eq!(
            argvs(r#"git commit -m 'a b' "c \"d\"" e\ f"#),
            ["git commit -m a b c \"d\" e f"]
        );
        let Split::Commands(cs) = split_command("echo 'a b' x\"y\"z") else {
            panic!()
        };
        assert_eq!(cs[0].texts(), ["echo", "a b", "xyz"]);
    }

    #[test]
    fn substitutions_subshells_and_groups_are_searched() {
        assert_eq!(
            argvs("echo $(rm -rf /) `id` <(curl x) ; (cd a && make) ; { git push; }"),
            [
                "echo $(rm -rf /) `id` <(curl x) ?",
                "rm -rf /",
                "id",
                "curl x",
                "cd a",
                "make",
                "git push"
            ]
        );
    }

    #[test]
    fn redirections_and_heredocs_are_searched() {
        assert_eq!(
            argvs("cat > out.txt <<EOF\nhello $(whoami)\nEOF"),
            ["cat", "whoami"]
        );
        assert_eq!(argvs("echo hi > \"$(mktemp)\" 2>&1"), ["echo hi", "mktemp"]);
    }

    #[test]
    fn a_quoted_heredoc_delimiter_keeps_its_body_literal() {
        assert_eq!(argvs("cat <<'EOF'\n$(whoami)\nEOF"), ["cat"]);
    }

    #[test]
    fn assignments_before_a_command_are_skipped_to_the_program() {
        assert_eq!(argvs("FOO=1 BAR=$(x) cargo test"), ["cargo test", "x"]);
        assert_eq!(argvs("FOO=1"), Vec::<String>::new());
    }

    #[test]
    fn expansions_and_globs_mark_the_command_unknown() {
        assert_eq!(argvs("rm $HOME/x"), ["rm $HOME/x ?"]);
        assert_eq!(argvs("ls *.rs"), ["ls *.rs ?"]);
        assert_eq!(argvs("cat ~/.ssh/id"), ["cat ~/.ssh/id ?"]);
        assert_eq!(argvs("$CMD push"), ["$CMD push ?"]);
        assert_eq!(argvs("echo \"$X\""), ["echo \"$X\" ?"]);
        assert_eq!(argvs("echo '$X'"), ["echo $X"]);
    }

    #[test]
    fn control_structures_and_functions_expose_their_commands() {
        assert_eq!(
            argvs("if true; then git push; fi; for f in a b; do rm $f; done; f() { curl x; }"),
            ["true", "git push", "rm $f ?", "curl x"]
        );
        assert_eq!(argvs("[[ -f x ]] && make"), ["[[ [[ -f x ]] ?", "make"]);
        assert_eq!(argvs("export A=1 B=$(id)"), ["export A=1 B=$(id) ?", "id"]);
    }

    /// The wrapped commands only, `?` marking one with an unknown word.
    fn wrapped(s: &str) -> Vec<String> {
        match split_command(s) {
            Split::Commands(cs) => cs
                .iter()
                .filter(|c| c.wrapped)
                .map(|c| {
                    let mut t = c.texts().join(" ");
                    if !c.is_static() {
                        t.push_str(" ?");
                    }
                    t
                })
                .collect(),
            Split::Unparseable => vec!["UNPARSEABLE".into()],
        }
    }

    #[test]
    fn commands_run_by_wrappers_and_shells_are_found() {
        assert_eq!(wrapped("sudo -u root rm -rf /"), ["rm -rf /"]);
        assert_eq!(
            wrapped("env -i A=1 nice -n 5 curl x"),
            ["nice -n 5 curl x", "curl x"]
        );
        assert_eq!(wrapped("timeout -s KILL 10 make"), ["make"]);
        assert_eq!(
            wrapped("bash -c 'git push && curl x'"),
            ["git push", "curl x"]
        );
        assert_eq!(
            wrapped("sh -ec \"sudo sh -c 'rm -rf /'\""),
            ["sudo sh -c rm -rf /", "sh -c rm -rf /", "rm -rf /"]
        );
        assert_eq!(wrapped("eval rm -rf /"), ["rm -rf /"]);
        assert_eq!(wrapped("bash -c \"$X\""), ["\"$X\" ?"]);
        assert_eq!(
            wrapped("bash -c 'echo \"unterminated'"),
            ["echo \"unterminated ?"]
        );
        assert_eq!(wrapped("ls -la"), Vec::<String>::new());
        let argv: Vec<String> = ["sudo", "rm", "-rf", "/"].map(String::from).into();
        let Split::Commands(cs) = split_argv(&argv) else {
            panic!()
        };
        assert_eq!(cs.len(), 2);
        assert!(cs[1].wrapped && cs[1].texts() == ["rm", "-rf", "/"]);
    }

    #[test]
    fn input_the_parser_rejects_is_unparseable() {
        for s in [
            "echo 'unterminated",
            "if then fi",
            "echo $(",
            "a && && b",
            "((",
        ] {
            assert_eq!(split_command(s), Split::Unparseable, "{s}");
        }
        assert_eq!(split_command("a\0b"), Split::Unparseable);
    }

    #[test]
    fn deeply_nested_input_does_not_overflow_the_stack() {
        let s = format!("{}echo x{}", "$(".repeat(2000), ")".repeat(2000));
        // Whatever the parser makes of it, splitting returns.
        let _ = split_command(&s);
        let s = format!("{}echo x{}", "(".repeat(5000), ")".repeat(5000));
        let _ = split_command(&s);
    }

    #[test]
    fn an_argv_array_is_one_known_command() {
        let argv: Vec<String> = ["rm", "-rf", "$HOME"].map(String::from).into();
        let Split::Commands(cs) = split_argv(&argv) else {
            panic!()
        };
        assert_eq!(cs.len(), 1);
        assert!(cs[0].is_static() && !cs[0].wrapped);
        assert_eq!(cs[0].texts(), argv);
    }
}
