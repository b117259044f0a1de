//! Fluent bundles for `en-US` and `zh-CN`, compiled into the binary, locale negotiation
//! and the runtime switch.
//!
//! Strings are looked up through a [`Localizer`], a cheap `Copy` value naming the
//! locale, so two renders in different locales can run side by side (tests do) and a
//! runtime switch is just a new value. The bundles themselves are built once.

use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

/// The Fluent files of every locale, in load order. Each locale has the same files.
macro_rules! locale_files {
    ($loc:literal) => {
        [
            include_str!(concat!("../locales/", $loc, "/app.ftl")),
            include_str!(concat!("../locales/", $loc, "/cli.ftl")),
            include_str!(concat!("../locales/", $loc, "/config.ftl")),
            include_str!(concat!("../locales/", $loc, "/approval.ftl")),
            include_str!(concat!("../locales/", $loc, "/approval-why.ftl")),
            include_str!(concat!("../locales/", $loc, "/session.ftl")),
            include_str!(concat!("../locales/", $loc, "/llm.ftl")),
            include_str!(concat!("../locales/", $loc, "/tools.ftl")),
            include_str!(concat!("../locales/", $loc, "/tui.ftl")),
            include_str!(concat!("../locales/", $loc, "/sandbox.ftl")),
            include_str!(concat!("../locales/", $loc, "/controls.ftl")),
            include_str!(concat!("../locales/", $loc, "/inspector_view.ftl")),
            include_str!(concat!("../locales/", $loc, "/checkpoint.ftl")),
            include_str!(concat!("../locales/", $loc, "/checkpoint-ui.ftl")),
            include_str!(concat!("../locales/", $loc, "/hooks.ftl")),
            include_str!(concat!("../locales/", $loc, "/mcp.ftl")),
            include_str!(concat!("../locales/", $loc, "/cache-cost.ftl")),
            include_str!(concat!("../locales/", $loc, "/cache-first.ftl")),
            include_str!(concat!("../locales/", $loc, "/demo.ftl")),
            include_str!(concat!("../locales/", $loc, "/first-run.ftl")),
            include_str!(concat!("../locales/", $loc, "/labels.ftl")),
            include_str!(concat!("../locales/", $loc, "/sandbox-hardening.ftl")),
            include_str!(concat!("../locales/", $loc, "/day-two.ftl")),
            include_str!(concat!("../locales/", $loc, "/mcp-client.ftl")),
            include_str!(concat!("../locales/", $loc, "/plan.ftl")),
            include_str!(concat!("../locales/", $loc, "/mcp-elicit.ftl")),
        ]
    };
}

/// A supported interface language (serialized as its BCP 47 tag).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Locale {
    /// English (United States).
    #[default]
    #[serde(rename = "en-US")]
    EnUs,
    /// Simplified Chinese.
    #[serde(rename = "zh-CN")]
    ZhCn,
}

impl Locale {
    /// All supported locales.
    pub const ALL: [Locale; 2] = [Locale::EnUs, Locale::ZhCn];

    /// BCP 47 tag.
    pub fn tag(&self) -> &'static str {
        match self {
            Locale::EnUs => "en-US",
            Locale::ZhCn => "zh-CN",
        }
    }

    /// Parses `en`, `en-US`, `en_US.UTF-8`, `zh`, `zh-CN`, `zh_CN.UTF-8`, `zh-Hans`, ….
    /// Returns `None` for anything else.
    pub fn parse(s: &str) -> Option<Locale> {
        let base = s.split(['.', '@']).next().unwrap_or("").replace('_', "-");
        let id: LanguageIdentifier = base.parse().ok()?;
        match id.language.as_str() {
            "en" => Some(Locale::EnUs),
            "zh" => Some(Locale::ZhCn),
            _ => None,
        }
    }

    /// Locale from the environment: `LC_ALL`, then `LC_MESSAGES`, then `LANG`.
    /// Unset, `C`/`POSIX` or unsupported values give `None`.
    pub fn from_env() -> Option<Locale> {
        for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let Ok(v) = std::env::var(var)
                && !v.is_empty()
            {
                // The first non-empty variable decides, as POSIX does.
                return Locale::parse(&v);
            }
        }
        None
    }

    /// The other locale (for `F2`).
    pub fn toggled(&self) -> Locale {
        match self {
            Locale::EnUs => Locale::ZhCn,
            Locale::ZhCn => Locale::EnUs,
        }
    }

    fn index(&self) -> usize {
        match self {
            Locale::EnUs => 0,
            Locale::ZhCn => 1,
        }
    }
}

/// Negotiates the interface locale: `--locale`, then config, then the environment, else en-US.
pub fn negotiate(cli: Option<Locale>, config: Option<Locale>) -> Locale {
    cli.or(config).or_else(Locale::from_env).unwrap_or_default()
}

/// An argument value for a message (in JSON: a string, a number, or a nested message).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Arg {
    /// A string (inserted verbatim).
    Str(String),
    /// A number (selects plural variants).
    Num(f64),
    /// A message of its own, rendered in the same locale as the one it is inserted into
    /// (so a label inside a line follows a language switch too).
    Text(Box<Text>),
    /// A list of items, joined when rendered with the locale's separator (`, ` in English,
    /// `、` in Chinese).
    List(Vec<String>),
}

/// A Fluent message id with its arguments: text rendered when it is shown, not when it
/// is produced.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Text {
    /// Fluent message id.
    pub key: String,
    /// Arguments (verbatim strings, numbers, nested messages).
    pub args: Vec<(String, Arg)>,
}

impl Text {
    /// A message with arguments.
    pub fn new(key: &str, args: Vec<(&str, Arg)>) -> Self {
        Text {
            key: key.to_string(),
            args: args.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

impl From<Text> for Arg {
    fn from(t: Text) -> Self {
        Arg::Text(Box::new(t))
    }
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Arg::Str(s.to_string())
    }
}
impl From<String> for Arg {
    fn from(s: String) -> Self {
        Arg::Str(s)
    }
}
impl From<&String> for Arg {
    fn from(s: &String) -> Self {
        Arg::Str(s.clone())
    }
}
impl From<usize> for Arg {
    fn from(n: usize) -> Self {
        Arg::Num(n as f64)
    }
}
impl From<u64> for Arg {
    fn from(n: u64) -> Self {
        Arg::Num(n as f64)
    }
}
impl From<u32> for Arg {
    fn from(n: u32) -> Self {
        Arg::Num(n as f64)
    }
}
impl From<i64> for Arg {
    fn from(n: i64) -> Self {
        Arg::Num(n as f64)
    }
}

type Bundle = FluentBundle<FluentResource>;

fn bundles() -> &'static [Bundle; 2] {
    static BUNDLES: OnceLock<[Bundle; 2]> = OnceLock::new();
    BUNDLES.get_or_init(|| {
        [
            build(Locale::EnUs, &locale_files!("en-US")),
            build(Locale::ZhCn, &locale_files!("zh-CN")),
        ]
    })
}

fn build(locale: Locale, files: &[&str]) -> Bundle {
    let lang: LanguageIdentifier = locale.tag().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![lang]);
    // No Unicode isolation marks: they show up as junk in many terminals.
    bundle.set_use_isolating(false);
    for src in files {
        // The files are compiled in and checked by tests; a parse error here is a build bug,
        // so keep whatever parsed rather than failing at run time.
        let res = match FluentResource::try_new((*src).to_string()) {
            Ok(r) => r,
            Err((r, _)) => r,
        };
        let _ = bundle.add_resource(res);
    }
    bundle
}

/// Looks up localized strings for one locale. Cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Localizer {
    /// The locale strings come from.
    pub locale: Locale,
}

impl Localizer {
    /// A localizer for `locale`.
    pub fn new(locale: Locale) -> Self {
        Localizer { locale }
    }

    /// The message `key` with no arguments. An unknown key returns the key itself.
    pub fn tr(&self, key: &str) -> String {
        self.tra(key, &[])
    }

    /// The message `key` with arguments. An unknown key returns the key itself.
    pub fn tra(&self, key: &str, args: &[(&str, Arg)]) -> String {
        let bundle = &bundles()[self.locale.index()];
        let Some(msg) = bundle.get_message(key) else {
            return key.to_string();
        };
        let Some(pattern) = msg.value() else {
            return key.to_string();
        };
        let mut fargs = FluentArgs::new();
        for (name, value) in args {
            match value {
                Arg::Str(s) => fargs.set(*name, FluentValue::from(s.clone())),
                Arg::Num(n) => fargs.set(*name, FluentValue::from(*n)),
                Arg::Text(t) => fargs.set(*name, FluentValue::from(self.text(t))),
                Arg::List(items) => fargs.set(*name, FluentValue::from(self.join(items))),
            }
        }
        let mut errors = vec![];
        bundle
            .format_pattern(pattern, Some(&fargs), &mut errors)
            .into_owned()
    }

    /// The locale's list separator: `, ` in English, `、` in Chinese.
    pub fn list_separator(&self) -> &'static str {
        match self.locale {
            Locale::ZhCn => "、",
            _ => ", ",
        }
    }

    /// `items` joined with the locale's list separator.
    pub fn join<S: AsRef<str>>(&self, items: &[S]) -> String {
        let mut out = String::new();
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(self.list_separator());
            }
            out.push_str(item.as_ref());
        }
        out
    }

    /// A [`Text`] in this locale (nested messages too).
    pub fn text(&self, t: &Text) -> String {
        self.tra_owned(&t.key, &t.args)
    }

    /// The message `key` with owned argument names (as stored in notices and output).
    pub fn tra_owned(&self, key: &str, args: &[(String, Arg)]) -> String {
        let args: Vec<(&str, Arg)> = args.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        self.tra(key, &args)
    }

    /// Whether `key` exists in this locale.
    pub fn has(&self, key: &str) -> bool {
        bundles()[self.locale.index()].has_message(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_args_use_the_locale_separator() {
        let names = Arg::List(vec!["grep".into(), "list_dir".into()]);
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        assert_eq!(en.join(&["a", "b", "c"]), "a, b, c");
        assert_eq!(zh.join(&["a", "b", "c"]), "a、b、c");
        let args = [("candidates", names)];
        assert!(
            en.tra(
                "store-ambiguous",
                &[("query", Arg::from("x")), args[0].clone()]
            )
            .contains("grep, list_dir")
        );
        assert!(
            zh.tra(
                "store-ambiguous",
                &[("query", Arg::from("x")), args[0].clone()]
            )
            .contains("grep、list_dir")
        );
        // In JSON (exec --json, the session file) a list is an array of strings.
        let json = serde_json::to_string(&args[0].1).unwrap();
        assert_eq!(json, r#"["grep","list_dir"]"#);
        assert_eq!(serde_json::from_str::<Arg>(&json).unwrap(), args[0].1);
    }

    #[test]
    fn parses_posix_and_bcp47_locales() {
        assert_eq!(Locale::parse("zh_CN.UTF-8"), Some(Locale::ZhCn));
        assert_eq!(Locale::parse("zh-CN"), Some(Locale::ZhCn));
        assert_eq!(Locale::parse("zh"), Some(Locale::ZhCn));
        assert_eq!(Locale::parse("en_GB.UTF-8"), Some(Locale::EnUs));
        assert_eq!(Locale::parse("C"), None);
        assert_eq!(Locale::parse("fr_FR"), None);
    }

    #[test]
    fn cli_beats_config_beats_env() {
        assert_eq!(
            negotiate(Some(Locale::ZhCn), Some(Locale::EnUs)),
            Locale::ZhCn
        );
        assert_eq!(negotiate(None, Some(Locale::ZhCn)), Locale::ZhCn);
    }

    #[test]
    fn tool_notice_texts_exist_in_both_locales() {
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        assert_eq!(
            en.tra("tool-added", &[("name", "last_tool".into())]),
            "Tool added: last_tool"
        );
        assert_eq!(
            zh.tra("tool-added", &[("name", "last_tool".into())]),
            "已添加工具：last_tool"
        );
        assert_eq!(
            en.tra("tool-removed", &[("name", "x".into())]),
            "Tool removed: x"
        );
        assert_eq!(
            zh.tra("tool-removed", &[("name", "x".into())]),
            "已移除工具：x"
        );
        assert_eq!(en.tr("tools-updated"), "Tools updated");
        assert_eq!(zh.tr("tools-updated"), "工具已更新");
        let changed = [("added", Arg::from(2usize)), ("removed", Arg::from(1usize))];
        assert_eq!(en.tra("tools-changed", &changed), "2 added, 1 removed");
        assert_eq!(zh.tra("tools-changed", &changed), "新增 2 个，移除 1 个");
        assert_eq!(
            en.tra("tools-added-count", &[("count", 3usize.into())]),
            "3 added"
        );
        assert_eq!(
            zh.tra("tools-added-count", &[("count", 3usize.into())]),
            "新增 3 个"
        );
        assert_eq!(
            en.tra("tools-removed-count", &[("count", 2usize.into())]),
            "2 removed"
        );
        assert_eq!(
            zh.tra("tools-removed-count", &[("count", 2usize.into())]),
            "移除 2 个"
        );
        let names = [("names", Arg::from("search, read_file"))];
        assert_eq!(
            en.tra("tools-added-list", &names),
            "Added: search, read_file"
        );
        assert_eq!(
            zh.tra("tools-added-list", &names),
            "新增：search, read_file"
        );
        assert_eq!(
            en.tra("tools-removed-list", &[("names", "old_search".into())]),
            "Removed: old_search"
        );
        assert_eq!(
            zh.tra("tools-removed-list", &[("names", "old_search".into())]),
            "移除：old_search"
        );
    }

    /// Message ids and `{ $var }` placeholders of one locale, from its Fluent files.
    fn ids_and_vars(files: &[&str]) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut out = std::collections::BTreeMap::new();
        let mut cur: Option<String> = None;
        for f in files {
            for line in f.lines() {
                if line.starts_with('#') || line.trim().is_empty() {
                    continue;
                }
                if !line.starts_with(' ')
                    && let Some((id, _)) = line.split_once('=')
                {
                    cur = Some(id.trim().to_string());
                    out.entry(id.trim().to_string()).or_insert_with(Vec::new);
                }
                if let Some(c) = &cur {
                    let vars = out.entry(c.clone()).or_insert_with(Vec::new);
                    for part in line.split("{ $").skip(1).chain(line.split("{$").skip(1)) {
                        let name: String = part
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                            .collect();
                        if !vars.contains(&name) {
                            vars.push(name);
                        }
                    }
                    vars.sort();
                }
            }
        }
        out
    }

    #[test]
    fn every_locale_has_the_same_ids_and_placeholders() {
        let en = ids_and_vars(&locale_files!("en-US"));
        let zh = ids_and_vars(&locale_files!("zh-CN"));
        assert!(en.len() > 100, "the bundles are loaded");
        assert_eq!(
            en.keys().collect::<Vec<_>>(),
            zh.keys().collect::<Vec<_>>(),
            "same message ids"
        );
        for (id, vars) in &en {
            assert_eq!(Some(vars), zh.get(id), "placeholders of {id}");
        }
        // Every message formats in both locales (no Fluent syntax errors dropped an entry).
        for id in en.keys() {
            for loc in Locale::ALL {
                assert!(
                    Localizer::new(loc).has(id),
                    "{id} missing from the {loc:?} bundle"
                );
            }
        }
    }

    #[test]
    fn unknown_key_is_visible_not_a_panic() {
        assert_eq!(
            Localizer::new(Locale::ZhCn).tr("no-such-key"),
            "no-such-key"
        );
    }
}
