//! The prefix an "always" answer (`a`) on a `shell` card saves as an allow rule (§14.2,
//! decision 0050): the program, and for programs whose first argument names what they do
//! (a subcommand), that argument too: `cargo test --release -p x` → `cargo test`,
//! `ls -la` → `ls`, `python -m pytest -q` → `python -m pytest`.
//!
//! No prefix is suggested (so `a` grants the exact command for this session only) when the
//! string has several simple commands or cannot be parsed, when a word of the prefix is not
//! statically known, when a subcommand program's next word is an option (`git -C dir
//! push`: options before the subcommand can change what runs, and saving `git` alone would
//! allow every git command), and for programs that run other programs from their
//! arguments (`bash`, `sudo`, `env`, `xargs`, …): allowing them would allow anything.

use super::split::{SimpleCommand, Split, split_argv, split_command};

/// Programs whose first argument is a subcommand worth keeping in the prefix.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "apt",
    "apt-get",
    "brew",
    "bun",
    "bundle",
    "cargo",
    "cmake",
    "composer",
    "conda",
    "deno",
    "dnf",
    "docker",
    "dotnet",
    "gem",
    "gh",
    "git",
    "go",
    "gradle",
    "helm",
    "just",
    "kubectl",
    "make",
    "mvn",
    "npm",
    "npx",
    "pip",
    "pip3",
    "pipx",
    "pnpm",
    "podman",
    "poetry",
    "rustup",
    "swift",
    "systemctl",
    "terraform",
    "uv",
    "yarn",
];

/// Interpreters whose `-m MODULE` names what runs (`python -m pytest`).
const MODULE_PROGRAMS: &[&str] = &["python", "python3"];

/// Programs that run code or other programs given in their arguments: a rule for them
/// alone would allow every command.
const RUNS_OTHERS: &[&str] = &[
    ".", "bash", "builtin", "busybox", "command", "dash", "doas", "env", "eval", "exec", "fish",
    "ionice", "ksh", "nice", "nohup", "node", "perl", "php", "python", "python3", "ruby", "setsid",
    "sh", "source", "stdbuf", "strace", "sudo", "su", "time", "timeout", "watch", "xargs", "zsh",
];

/// The prefix to save for `a` on the card of this command string; `None` when `a` can
/// only grant this exact command for the session (see the module docs).
pub fn suggested_prefix(command: &str) -> Option<Vec<String>> {
    prefix_of(&split_command(command))
}

/// [`suggested_prefix`] for an argv-array command.
pub fn suggested_prefix_argv(argv: &[String]) -> Option<Vec<String>> {
    prefix_of(&split_argv(argv))
}

fn prefix_of(split: &Split) -> Option<Vec<String>> {
    let Split::Commands(cmds) = split else {
        return None;
    };
    let [cmd] = cmds.as_slice() else {
        return None;
    };
    prefix_of_command(cmd)
}

fn prefix_of_command(cmd: &SimpleCommand) -> Option<Vec<String>> {
    let program = cmd.words.first().filter(|w| w.known)?;
    let name = program.text.rsplit('/').next().unwrap_or(&program.text);
    let next = cmd.words.get(1);
    if MODULE_PROGRAMS.contains(&name) {
        return match (next, cmd.words.get(2)) {
            (Some(m), Some(module)) if m.known && m.text == "-m" && module.known => Some(vec![
                program.text.clone(),
                m.text.clone(),
                module.text.clone(),
            ]),
            _ => None,
        };
    }
    if RUNS_OTHERS.contains(&name) {
        return None;
    }
    if SUBCOMMAND_PROGRAMS.contains(&name) {
        return match next {
            None => Some(vec![program.text.clone()]),
            Some(sub) if sub.known && !sub.text.starts_with(['-', '+']) => {
                Some(vec![program.text.clone(), sub.text.clone()])
            }
            Some(_) => None,
        };
    }
    Some(vec![program.text.clone()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<String> {
        suggested_prefix(s).map(|v| v.join(" "))
    }

    #[test]
    fn subcommand_programs_keep_their_subcommand() {
        assert_eq!(
            p("cargo test --release -p x").as_deref(),
            Some("cargo test")
        );
        assert_eq!(p("git push origin main").as_deref(), Some("git push"));
        assert_eq!(p("npm run build").as_deref(), Some("npm run"));
        assert_eq!(p("make").as_deref(), Some("make"));
        assert_eq!(
            p("python -m pytest -q").as_deref(),
            Some("python -m pytest")
        );
    }

    #[test]
    fn other_programs_give_the_program_alone() {
        assert_eq!(p("ls -la").as_deref(), Some("ls"));
        assert_eq!(p("FOO=1 rg 'a b' src").as_deref(), Some("rg"));
        assert_eq!(
            p("./scripts/check.sh --all").as_deref(),
            Some("./scripts/check.sh")
        );
    }

    #[test]
    fn no_prefix_when_saving_one_would_allow_more_than_was_shown() {
        for s in [
            "git status && git push",
            "cat x | sh",
            "git -C /elsewhere push",
            "cargo +nightly build",
            "$GIT push",
            "git $SUB",
            "bash -c 'rm -rf /'",
            "sudo make install",
            "xargs rm",
            "python script.py",
            "echo 'unterminated",
            "",
        ] {
            assert_eq!(p(s), None, "{s}");
        }
    }

    #[test]
    fn an_argv_command_gets_a_prefix_like_the_string() {
        let argv: Vec<String> = ["cargo", "test", "-q"].map(String::from).into();
        assert_eq!(
            suggested_prefix_argv(&argv),
            Some(vec!["cargo".to_string(), "test".to_string()])
        );
    }
}
