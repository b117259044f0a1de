//! `rules.toml` (§14.2): prefix rules that allow, prompt or forbid commands, read from the
//! user config directory and from a project's `.deepterm/`, and matched against each simple
//! command of a call (decision 0050).
//!
//! Matching is word by word on the words after quote removal ([`super::split`]). Because
//! an unknown word (`$X`, a glob) may stand for any words at run time:
//! - a `forbidden` or `prompt` rule that the known words match up to an unknown word
//!   *might* match, and the command asks (it cannot be refused on a guess, nor allowed);
//! - an `allow` rule allows only a command whose every word is known;
//! - for `forbidden` and `prompt`, a program written as a path (`/bin/rm`) matches a rule
//!   for its file name (`rm`); for `allow` it must be written as in the rule, so `./git`
//!   is not allowed by a rule for `git`.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::error::{Expected, RulesError, RulesWarning};
use super::split::{SimpleCommand, Split};
use crate::fs_guard::{self, OpenError, Refusal};

/// Largest rules file read (1 MiB): a real one is a few hundred bytes.
pub const MAX_RULES_BYTES: u64 = 1 << 20;

/// The file name, in the user config directory and in a project's `.deepterm/`.
pub const RULES_FILE: &str = "rules.toml";

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleDecision {
    /// Run without asking (where the policy would ask only because of `untrusted`).
    Allow,
    /// Always ask, even under `on-request`.
    Prompt,
    /// Refuse under every policy, `--approve all` included.
    Forbidden,
}

impl RuleDecision {
    /// The file's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::Allow => "allow",
            RuleDecision::Prompt => "prompt",
            RuleDecision::Forbidden => "forbidden",
        }
    }

    /// Parses the file's spelling.
    pub fn parse(s: &str) -> Option<RuleDecision> {
        match s {
            "allow" => Some(RuleDecision::Allow),
            "prompt" => Some(RuleDecision::Prompt),
            "forbidden" => Some(RuleDecision::Forbidden),
            _ => None,
        }
    }
}

/// Which file a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleOrigin {
    /// The user config directory's `rules.toml`: the user's own, revocable.
    User,
    /// A project's `.deepterm/rules.toml`: `prompt` and `forbidden` only.
    Project,
}

/// One `[[rule]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The words a command starts with.
    pub prefix: Vec<String>,
    /// What it decides.
    pub decision: RuleDecision,
    /// Which file.
    pub origin: RuleOrigin,
    /// The file.
    pub file: PathBuf,
    /// Its index among the file's `[[rule]]` entries.
    pub index: usize,
}

/// How a prefix matches one simple command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    Yes,
    /// The known words match up to an unknown one, which might complete the match.
    Maybe,
    No,
}

fn file_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Word-by-word prefix match. `by_file_name`: the program may be written as a path.
fn match_prefix(prefix: &[String], cmd: &SimpleCommand, by_file_name: bool) -> Match {
    for (i, p) in prefix.iter().enumerate() {
        let Some(w) = cmd.words.get(i) else {
            return Match::No;
        };
        if !w.known {
            return Match::Maybe;
        }
        let same =
            w.text == *p || (i == 0 && by_file_name && !p.contains('/') && file_name(&w.text) == p);
        if !same {
            return Match::No;
        }
    }
    Match::Yes
}

/// Whether `prefix` allows `cmd`: every word known and the prefix matching exactly.
pub(crate) fn allows(prefix: &[String], cmd: &SimpleCommand) -> bool {
    cmd.is_static() && match_prefix(prefix, cmd, false) == Match::Yes
}

/// Why a call must ask because of the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptCause {
    /// A `prompt` rule matches (or might match) a simple command.
    Rule(Rule),
    /// A `forbidden` rule might match: a word it depends on is only known at run time.
    MaybeForbidden(Rule),
    /// The string could not be parsed.
    Unparseable,
}

/// What the rules say about a whole call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A `forbidden` rule matches a simple command.
    Forbidden {
        /// The rule.
        rule: Rule,
        /// The command it matched, as words.
        command: Vec<String>,
    },
    /// Ask, whatever the policy (except that `never` refuses).
    Prompt(PromptCause),
    /// Every simple command (at least one) is allowed by a rule or a session grant.
    Allowed,
    /// The rules say nothing: the policy decides.
    Unmatched,
}

/// The rules in force: the user's and the project's (its `allow` rules already dropped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// Every rule, the user's first.
    pub rules: Vec<Rule>,
}

impl RuleSet {
    /// What the rules say about `split`; `granted` are extra allow prefixes (this
    /// session's grants), which allow like a rule and never outweigh `prompt`.
    pub fn evaluate(&self, split: &Split, granted: &[&[String]]) -> Verdict {
        let Split::Commands(cmds) = split else {
            return Verdict::Prompt(PromptCause::Unparseable);
        };
        let mut prompt: Option<PromptCause> = None;
        let mut all_allowed = !cmds.is_empty();
        for cmd in cmds {
            let mut allowed = false;
            for rule in &self.rules {
                match (rule.decision, match_prefix(&rule.prefix, cmd, true)) {
                    (RuleDecision::Forbidden, Match::Yes) => {
                        return Verdict::Forbidden {
                            rule: rule.clone(),
                            command: cmd.texts(),
                        };
                    }
                    (RuleDecision::Forbidden, Match::Maybe) => {
                        prompt.get_or_insert_with(|| PromptCause::MaybeForbidden(rule.clone()));
                    }
                    // A prompt rule is the better reason to show than a possible forbid.
                    (RuleDecision::Prompt, Match::Yes | Match::Maybe)
                        if !matches!(prompt, Some(PromptCause::Rule(_))) =>
                    {
                        prompt = Some(PromptCause::Rule(rule.clone()));
                    }
                    (RuleDecision::Allow, _) => allowed |= allows(&rule.prefix, cmd),
                    _ => {}
                }
            }
            allowed |= granted.iter().any(|g| allows(g, cmd));
            // A wrapped command (`rm` in `sudo rm`) can refuse or ask, but needs no allow:
            // the wrapper itself must be allowed.
            all_allowed &= allowed || cmd.wrapped;
        }
        match prompt {
            Some(p) => Verdict::Prompt(p),
            None if all_allowed => Verdict::Allowed,
            None => Verdict::Unmatched,
        }
    }

    /// The user's rules.
    pub fn user_rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(|r| r.origin == RuleOrigin::User)
    }
}

/// The user's rules file: `rules.toml` in the user config directory
/// (`$XDG_CONFIG_HOME/deepterm`, default `~/.config/deepterm`), whichever file `--config`
/// names (§14 intro). `None` without a home directory.
pub fn user_rules_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "deepterm").map(|d| d.config_dir().join(RULES_FILE))
}

/// A project's rules file: `.deepterm/rules.toml` in the workspace.
pub fn project_rules_path(workspace: &Path) -> PathBuf {
    workspace.join(".deepterm").join(RULES_FILE)
}

/// The text of a rules file, `None` when it does not exist. Only a regular file of at most
/// [`MAX_RULES_BYTES`] is read, without blocking. `confine`: the canonical directories
/// the file must lie in after resolving symlinks (a project's file must stay inside its
/// workspace; the user's may be a symlink anywhere, like the config file).
pub fn read_rules_text(
    path: &Path,
    confine: Option<&[PathBuf]>,
) -> Result<Option<String>, RulesError> {
    let file = path.to_path_buf();
    let io = |e: std::io::Error| RulesError::Io {
        file: path.to_path_buf(),
        detail: e.to_string(),
    };
    if let Some(roots) = confine {
        return match fs_guard::read_confined(path, roots, MAX_RULES_BYTES) {
            Ok(t) if t.truncated => Err(RulesError::TooLarge {
                file,
                limit: MAX_RULES_BYTES,
            }),
            Ok(t) => Ok(Some(t.text)),
            Err(Refusal::Missing) => Ok(None),
            Err(Refusal::NotRegular(kind)) => Err(RulesError::NotRegular { file, kind }),
            Err(Refusal::Outside { target }) => Err(RulesError::Io {
                file,
                detail: format!("it leads outside the workspace, to {}", target.display()),
            }),
            Err(Refusal::NotText) => Err(RulesError::Syntax {
                file,
                detail: "not UTF-8 text".into(),
            }),
            Err(Refusal::Unreadable { detail }) => Err(RulesError::Io { file, detail }),
        };
    }
    let f = match fs_guard::open_regular(path) {
        Ok(f) => f,
        Err(OpenError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(OpenError::Io(e)) => return Err(io(e)),
        Err(OpenError::NotRegular(kind)) => return Err(RulesError::NotRegular { file, kind }),
    };
    let capped = fs_guard::read_capped(f, MAX_RULES_BYTES).map_err(io)?;
    if capped.truncated {
        return Err(RulesError::TooLarge {
            file,
            limit: MAX_RULES_BYTES,
        });
    }
    String::from_utf8(capped.bytes)
        .map(Some)
        .map_err(|_| RulesError::Syntax {
            file,
            detail: "not UTF-8 text".into(),
        })
}

/// Parses a rules file's text. A project's `allow` rules are dropped with a warning.
pub fn parse_rules(
    text: &str,
    file: &Path,
    origin: RuleOrigin,
) -> Result<(Vec<Rule>, Vec<RulesWarning>), RulesError> {
    let mut root: Table = text.parse().map_err(|e: toml::de::Error| {
        let at = e
            .span()
            .map(|s| {
                let before = &text[..s.start.min(text.len())];
                format!("line {}: ", before.matches('\n').count() + 1)
            })
            .unwrap_or_default();
        RulesError::Syntax {
            file: file.to_path_buf(),
            detail: format!("{at}{}", e.message().trim()),
        }
    })?;
    let invalid = |key: String, expected: Expected| RulesError::Invalid {
        file: file.to_path_buf(),
        key,
        expected,
    };
    let mut rules = vec![];
    let mut warnings = vec![];
    let entries = match root.remove("rule") {
        None => vec![],
        Some(Value::Array(a)) => a,
        Some(_) => return Err(invalid("rule".into(), Expected::RuleArray)),
    };
    for key in root.keys() {
        warnings.push(RulesWarning::UnknownKey {
            file: file.to_path_buf(),
            key: key.clone(),
        });
    }
    for (index, entry) in entries.into_iter().enumerate() {
        let at = |k: &str| format!("rule[{index}].{k}");
        let Value::Table(mut t) = entry else {
            return Err(invalid(format!("rule[{index}]"), Expected::RuleArray));
        };
        let prefix = match t.remove("prefix") {
            None => return Err(invalid(at("prefix"), Expected::Required)),
            Some(Value::Array(words)) if !words.is_empty() => words
                .into_iter()
                .map(|w| match w {
                    Value::String(s) if !s.is_empty() => Ok(s),
                    _ => Err(invalid(at("prefix"), Expected::Prefix)),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err(invalid(at("prefix"), Expected::Prefix)),
        };
        let decision = match t.remove("decision") {
            None => return Err(invalid(at("decision"), Expected::Required)),
            Some(Value::String(s)) => RuleDecision::parse(&s)
                .ok_or_else(|| invalid(at("decision"), Expected::Decision))?,
            Some(_) => return Err(invalid(at("decision"), Expected::Decision)),
        };
        for key in t.keys() {
            warnings.push(RulesWarning::UnknownKey {
                file: file.to_path_buf(),
                key: at(key),
            });
        }
        if origin == RuleOrigin::Project && decision == RuleDecision::Allow {
            // §14.2: a project may only tighten; an allow there would let a cloned
            // repository approve its own commands.
            warnings.push(RulesWarning::ProjectAllowIgnored {
                file: file.to_path_buf(),
                index,
                prefix,
            });
            continue;
        }
        rules.push(Rule {
            prefix,
            decision,
            origin,
            file: file.to_path_buf(),
            index,
        });
    }
    Ok((rules, warnings))
}

/// Reads and parses one rules file; a missing file has no rules.
pub fn load_file(
    path: &Path,
    origin: RuleOrigin,
    confine: Option<&[PathBuf]>,
) -> Result<(Vec<Rule>, Vec<RulesWarning>), RulesError> {
    match read_rules_text(path, confine)? {
        Some(text) => parse_rules(&text, path, origin),
        None => Ok((vec![], vec![])),
    }
}

/// Loads the user's rules file (`user`, see [`user_rules_path`]) and the project's
/// (`workspace`'s `.deepterm/rules.toml`, which must stay inside the workspace). A file
/// that cannot be used is an error naming it, as a bad config is: the caller shows it and
/// does not start, rather than run without rules someone wrote down.
pub fn load_rules(
    user: Option<&Path>,
    workspace: Option<&Path>,
) -> Result<(RuleSet, Vec<RulesWarning>), RulesError> {
    let mut set = RuleSet::default();
    let mut warnings = vec![];
    if let Some(path) = user {
        let (r, w) = load_file(path, RuleOrigin::User, None)?;
        set.rules.extend(r);
        warnings.extend(w);
    }
    if let Some(ws) = workspace {
        let roots = fs_guard::canonical_roots(&[ws.to_path_buf()]);
        let (r, w) = load_file(&project_rules_path(ws), RuleOrigin::Project, Some(&roots))?;
        set.rules.extend(r);
        warnings.extend(w);
    }
    Ok((set, warnings))
}
