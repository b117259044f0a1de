//! The command table's ranking and the one parse of a command line.

use super::*;

fn names(typed: &str) -> Vec<&'static str> {
    ranked(typed, &[])
        .iter()
        .filter_map(|c| match &c.name {
            Cow::Borrowed(n) => Some(*n),
            Cow::Owned(_) => None,
        })
        .collect()
}

#[test]
fn exact_name_ranks_first_then_prefixes_then_fuzzy() {
    // `/tools` comes before `/tool` in the table; typing `tool` still puts `/tool` first.
    assert_eq!(names("tool"), vec!["/tool", "/tools"]);
    assert_eq!(names("TOOLS")[0], "/tools");
    // An alias typed exactly offers its command first.
    assert_eq!(names("exit")[0], "/quit");
    // Prefixes before subsequences: `m` starts /model and /mcp, and is inside /compact.
    let m = names("m");
    assert_eq!(&m[..2], &["/model", "/mcp"]);
    assert!(m.contains(&"/compact"));
    assert!(m.iter().position(|n| *n == "/compact") > Some(1));
    assert_eq!(names("").len(), COMMANDS.len());
    assert!(names("zzz").is_empty());
}

#[test]
fn a_command_line_parses_into_its_typed_command() {
    let ok = |l: &str| Command::parse(l).unwrap();
    assert_eq!(
        ok("  /resume  abc  "),
        Command::Resume {
            id: Some("abc".into())
        }
    );
    assert_eq!(ok("/resume"), Command::Resume { id: None });
    assert_eq!(
        ok("/mcp connect github"),
        Command::Mcp {
            action: McpAction::Connect {
                server: "github".into()
            }
        }
    );
    assert_eq!(ok("/exit now"), Command::Quit);
    assert_eq!(ok("/copy"), Command::Copy { n: 1 });
    assert_eq!(ok("/inspect 3"), Command::Inspect { request: Some(3) });
    assert_eq!(
        ok("/system  be brief "),
        Command::System {
            action: SystemAction::Set {
                text: "be brief".into()
            }
        }
    );
    assert_eq!(ok("/lang zh").id(), CommandId::Lang);
    assert_eq!(
        Command::parse("/nope x"),
        Err(ParseError::Unknown {
            name: "/nope".into()
        })
    );
    for bad in [
        "/tool enable",
        "/mcp connect",
        "/mcp connect a b",
        "/lang fr",
        "/inspect 0",
        "/copy last",
        "/mode sideways",
        "/permissions revoke x",
    ] {
        assert!(
            matches!(Command::parse(bad), Err(ParseError::BadArgs { .. })),
            "{bad}"
        );
    }
}

#[test]
fn every_table_entry_parses_to_a_command_of_its_own_id() {
    for c in COMMANDS {
        let line = match c.args {
            ArgSpec::Required if c.id == CommandId::Lang => format!("{} en", c.name),
            ArgSpec::Required => format!("{} enable x", c.name),
            _ => c.name.to_string(),
        };
        assert_eq!(Command::parse(&line).unwrap().id(), c.id, "{line}");
        assert_eq!(c.id.spec().name, c.name);
    }
}

#[test]
fn usage_keys_match_argument_specs() {
    for c in COMMANDS {
        assert_eq!(c.usage_key.is_some(), c.args != ArgSpec::None, "{}", c.name);
        assert_eq!(c.complete_with_args, c.args != ArgSpec::None, "{}", c.name);
    }
}
