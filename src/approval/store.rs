//! Writing the user's `rules.toml`: appending the allow rule an "always" answer saves, and
//! removing a rule `/permissions` revokes. Every other line, comment and rule is kept
//! (`toml_edit`), and the file is replaced atomically (a temporary file in the same
//! directory, synced, renamed), keeping its mode; a symlinked file is written through.

use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value, value};

use super::error::{Expected, RulesError};
use super::rules::{RuleDecision, RuleOrigin, parse_rules, read_rules_text};

fn io_err(file: &Path) -> impl Fn(std::io::Error) -> RulesError + '_ {
    move |e| RulesError::Io {
        file: file.to_path_buf(),
        detail: e.to_string(),
    }
}

/// The file's text and its parsed document, after checking that it is a valid rules file
/// (a broken file is reported, never overwritten).
fn open_doc(path: &Path) -> Result<(DocumentMut, std::path::PathBuf), RulesError> {
    let target = crate::config::resolve_symlinks(path).map_err(io_err(path))?;
    let text = read_rules_text(&target, None)?.unwrap_or_default();
    parse_rules(&text, path, RuleOrigin::User)?;
    let doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| RulesError::Syntax {
            file: path.to_path_buf(),
            detail: e.message().trim().to_string(),
        })?;
    Ok((doc, target))
}

fn write_doc(path: &Path, target: &Path, doc: &DocumentMut) -> Result<(), RulesError> {
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_err(path))?;
    }
    crate::config::replace_file(target, doc.to_string().as_bytes()).map_err(io_err(path))
}

fn prefix_array(prefix: &[String]) -> Array {
    prefix.iter().map(String::as_str).collect()
}

/// The words and decision of a `[[rule]]` entry, if it has that shape.
fn entry_words(prefix: Option<&Item>, decision: Option<&Item>) -> Option<(Vec<String>, String)> {
    let words = prefix?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<Vec<_>>>()?;
    Some((words, decision?.as_str()?.to_string()))
}

/// Appends `[[rule]] prefix = […] decision = "allow"` to the user's rules file at `path`
/// (created with its directory when absent) and returns the rule's index. An identical
/// allow rule already there is not added again; its index is returned.
pub fn save_allow_rule(path: &Path, prefix: &[String]) -> Result<usize, RulesError> {
    if prefix.is_empty() || prefix.iter().any(String::is_empty) {
        return Err(RulesError::Invalid {
            file: path.to_path_buf(),
            key: "rule.prefix".into(),
            expected: Expected::Prefix,
        });
    }
    let (mut doc, target) = open_doc(path)?;
    let (rules, _) = parse_rules(&doc.to_string(), path, RuleOrigin::User)?;
    if let Some(r) = rules
        .iter()
        .find(|r| r.decision == RuleDecision::Allow && r.prefix == prefix)
    {
        return Ok(r.index);
    }
    let index = match doc.get_mut("rule") {
        None => {
            let mut aot = ArrayOfTables::new();
            aot.push(rule_table(prefix));
            doc.insert("rule", Item::ArrayOfTables(aot));
            0
        }
        Some(Item::ArrayOfTables(aot)) => {
            aot.push(rule_table(prefix));
            aot.len() - 1
        }
        Some(Item::Value(Value::Array(arr))) => {
            // `rule = [{ … }]` written inline: keep that style.
            let mut t = InlineTable::new();
            t.insert("prefix", Value::Array(prefix_array(prefix)));
            t.insert("decision", Value::from("allow"));
            arr.push(Value::InlineTable(t));
            arr.len() - 1
        }
        Some(_) => {
            return Err(RulesError::Invalid {
                file: path.to_path_buf(),
                key: "rule".into(),
                expected: Expected::RuleArray,
            });
        }
    };
    write_doc(path, &target, &doc)?;
    Ok(index)
}

fn rule_table(prefix: &[String]) -> Table {
    let mut t = Table::new();
    t.insert("prefix", value(prefix_array(prefix)));
    t.insert("decision", value("allow"));
    t
}

/// Removes the rule at `index` of the user's rules file, but only if it still has
/// `prefix` and `decision` (the file may have been edited since it was listed): otherwise
/// [`RulesError::Changed`] and nothing is written. A comment block separated from the
/// rule by a blank line (a file header, say) stays; the comment right above it goes.
pub fn revoke_rule(
    path: &Path,
    index: usize,
    prefix: &[String],
    decision: RuleDecision,
) -> Result<(), RulesError> {
    let (mut doc, target) = open_doc(path)?;
    let changed = || RulesError::Changed {
        file: path.to_path_buf(),
        index,
    };
    let expected = (prefix.to_vec(), decision.as_str().to_string());
    match doc.get_mut("rule") {
        Some(Item::ArrayOfTables(aot)) => {
            let t = aot.get(index).ok_or_else(changed)?;
            if entry_words(t.get("prefix"), t.get("decision")) != Some(expected) {
                return Err(changed());
            }
            let removed = aot.remove(index);
            let kept = kept_comments(removed.decor().prefix().and_then(|p| p.as_str()));
            if !kept.is_empty() {
                if let Some(next) = aot.get_mut(index) {
                    let own = next
                        .decor()
                        .prefix()
                        .and_then(|p| p.as_str())
                        .unwrap_or("")
                        .to_string();
                    next.decor_mut()
                        .set_prefix(format!("{kept}{}", own.trim_start_matches('\n')));
                } else {
                    let trailing = doc.trailing().as_str().unwrap_or("").to_string();
                    doc.set_trailing(format!("{kept}{trailing}"));
                }
            }
        }
        Some(Item::Value(Value::Array(arr))) => {
            let t = arr
                .get(index)
                .and_then(Value::as_inline_table)
                .ok_or_else(changed)?;
            let words = t.get("prefix").and_then(|p| {
                p.as_array()?
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            });
            let d = t
                .get("decision")
                .and_then(|d| d.as_str())
                .map(str::to_string);
            if words.zip(d) != Some(expected) {
                return Err(changed());
            }
            arr.remove(index);
        }
        _ => return Err(changed()),
    }
    write_doc(path, &target, &doc)
}

/// The part of a removed table's leading comments that belongs to what is above it: up
/// up to and including the last blank line, when there is a comment in it.
fn kept_comments(prefix: Option<&str>) -> String {
    let p = prefix.unwrap_or("");
    match p.rfind("\n\n") {
        // Only a comment is worth keeping; blank lines alone are the layout around the
        // removed rule.
        Some(i) if !p[..i].trim().is_empty() => p[..i + 2].to_string(),
        _ => String::new(),
    }
}
