//! Layering: no path in the crate may close a cycle, neither between the
//! crate's top-level modules (`session`, `llm`, `tools`, `config`, `agent`, `sim`, `ui`, `i18n`,
//! `startup`, `cli`) nor between source files. `docs/architecture.md` ("Layering") names the layers.
//!
//! The test reads every file under `src/` with a small lexer (comments, strings and character
//! literals are skipped) and resolves each path to the file that defines what it names:
//! - `use` trees (`use crate::a::{b, c::d as e, self}`) and paths written inline in code
//!   (`crate::a::b::f()`), rooted at `crate`, `self`, `super`, a child module declared with
//!   `mod`, or a name the same module imports with `use`;
//! - a path resolves to its longest prefix that is a module (`src/a/b.rs` or `src/a/b/mod.rs`);
//!   when the next segment is a name that module imports (a `pub use x::Y` re-export, or a private
//!   `use`, which child modules can see), the path is followed through that import, so a path
//!   through a re-export leads to the file that defines the item.
//!
//! Not dependencies:
//! - `mod x;` declarations (a parent declaring its children is wiring, not use);
//! - a module re-exporting one of its own descendants' items (`pub use child::X`, any
//!   visibility) when the re-exporting file's own code never mentions the name: that is the
//!   module's facade, and whoever uses it is charged to the defining file (a re-export of
//!   anything else, e.g. a sibling's item, is an edge);
//! - a `use` that imports a module by name (`use crate::a::b;`): the paths through it
//!   (`b::f()`) are resolved instead;
//! - `lib.rs` and `main.rs` (crate roots, wiring only) and `src/bin/*` (separate crates);
//! - test code: items under `#[cfg(test)]` (inline test modules, test-only `use`s), modules
//!   declared only under `#[cfg(test)]`, and files named `*tests*.rs` or `*_proptest*.rs`.
//!
//! Method calls are not followed (the scanner reads paths, not types): an `impl` block for a
//! type in another file counts through the paths that file writes, e.g. its `use` of the type.
//!
//! A failure lists each cycle as a path `a -> b -> a`, then the line that makes each edge.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

mod crate_layers;
mod synthetic;
mod tokens;

use tokens::*;

// ---------------------------------------------------------------------------------------------
// Scanner: what one file declares, imports and mentions.

/// One leaf of a `use` tree.
#[derive(Debug, Clone)]
struct UseLeaf {
    /// Inline-module path inside the file where the `use` stands (empty at file level).
    scope: Vec<String>,
    /// The path as written (`crate`, `super`, … included).
    path: Vec<String>,
    /// The name it binds (`None` for `*` and `as _`).
    bound: Option<String>,
    glob: bool,
    public: bool,
    line: usize,
}

/// A path written in code outside `use` (`crate::a::f`, `super::x::Y`, `child::Z`).
#[derive(Debug, Clone)]
struct PathUse {
    scope: Vec<String>,
    path: Vec<String>,
    line: usize,
}

#[derive(Debug, Default)]
struct Scan {
    /// `mod x;` declarations outside test code, as inline scope + name.
    declared: Vec<Vec<String>>,
    /// Inline `mod x { … }` modules outside test code.
    inline_mods: Vec<Vec<String>>,
    uses: Vec<UseLeaf>,
    paths: Vec<PathUse>,
    /// Every identifier outside `use` statements (to tell a used re-export from a facade).
    idents: BTreeSet<String>,
}

fn parse_use_tree(
    toks: &[Token],
    i: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, bool)>,
) {
    loop {
        let Some(t) = toks.get(*i) else { return };
        match t.text.as_str() {
            "{" => {
                *i += 1;
                while *i < toks.len() {
                    if toks[*i].text == "}" {
                        *i += 1;
                        break;
                    }
                    let before = *i;
                    parse_use_tree(toks, i, prefix.clone(), out);
                    if toks.get(*i).is_some_and(|t| t.text == ",") {
                        *i += 1;
                    } else if *i == before {
                        *i += 1; // malformed: make progress
                    }
                }
                return;
            }
            "*" => {
                *i += 1;
                out.push((prefix, None, true));
                return;
            }
            s if is_ident(s) => {
                let seg = s.to_string();
                *i += 1;
                if toks.get(*i).is_some_and(|t| t.text == "::") {
                    *i += 1;
                    prefix.push(seg);
                    continue;
                }
                let (path, mut bound) = if seg == "self" {
                    let b = prefix.last().cloned();
                    (prefix, b)
                } else {
                    prefix.push(seg.clone());
                    (prefix, Some(seg))
                };
                if toks.get(*i).is_some_and(|t| t.text == "as") {
                    bound = toks
                        .get(*i + 1)
                        .map(|t| t.text.clone())
                        .filter(|b| b != "_");
                    *i += 2;
                }
                out.push((path, bound, false));
                return;
            }
            _ => return,
        }
    }
}

/// Whether the `use` at `i` is a re-export (`pub use`, `pub(crate) use`, …).
fn is_public_use(toks: &[Token], i: usize) -> bool {
    if i == 0 {
        return false;
    }
    match toks[i - 1].text.as_str() {
        "pub" => true,
        ")" => {
            let mut j = i - 1;
            while j > 0 && toks[j].text != "(" {
                j -= 1;
            }
            j > 0 && toks[j - 1].text == "pub"
        }
        _ => false,
    }
}

fn scan(src: &str, with_tests: bool) -> Scan {
    let toks = if with_tests {
        lex(src)
    } else {
        strip_test_items(lex(src))
    };
    let mut s = Scan::default();
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let scope_of =
        |stack: &[(String, usize)]| stack.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    while i < toks.len() {
        let t = toks[i].text.as_str();
        let prev = if i > 0 { toks[i - 1].text.as_str() } else { "" };
        match t {
            "{" => depth += 1,
            "}" => {
                if stack.last().is_some_and(|(_, d)| *d == depth) {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "use" => {
                let line = toks[i].line;
                let public = is_public_use(&toks, i);
                let mut j = i + 1;
                let mut prefix = Vec::new();
                if toks.get(j).is_some_and(|t| t.text == "::") {
                    j += 1;
                    prefix.push("::".to_string()); // an external crate: never resolves
                }
                let mut leaves = Vec::new();
                parse_use_tree(&toks, &mut j, prefix, &mut leaves);
                for (path, bound, glob) in leaves {
                    s.uses.push(UseLeaf {
                        scope: scope_of(&stack),
                        path,
                        bound,
                        glob,
                        public,
                        line,
                    });
                }
                while j < toks.len() && toks[j].text != ";" {
                    j += 1;
                }
                i = j + 1;
                continue;
            }
            "mod" if toks.get(i + 1).is_some_and(|n| is_ident(&n.text)) => {
                let name = toks[i + 1].text.clone();
                let mut path = scope_of(&stack);
                path.push(name.clone());
                match toks.get(i + 2).map(|t| t.text.as_str()) {
                    Some(";") => s.declared.push(path),
                    Some("{") => {
                        s.inline_mods.push(path);
                        stack.push((name, depth + 1));
                    }
                    _ => {}
                }
                i += 2;
                continue;
            }
            _ if is_ident(t) => {
                s.idents.insert(t.to_string());
                let starts_path = prev != "::"
                    && texts_at(&toks, i + 1, &["::"])
                    && toks.get(i + 2).is_some_and(|n| is_ident(&n.text));
                if starts_path {
                    let line = toks[i].line;
                    let mut path = vec![t.to_string()];
                    let mut j = i + 1;
                    while texts_at(&toks, j, &["::"])
                        && toks.get(j + 1).is_some_and(|n| is_ident(&n.text))
                    {
                        path.push(toks[j + 1].text.clone());
                        s.idents.insert(toks[j + 1].text.clone());
                        j += 2;
                    }
                    s.paths.push(PathUse {
                        scope: scope_of(&stack),
                        path,
                        line,
                    });
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    s
}

// ---------------------------------------------------------------------------------------------
// The crate: modules, imports, resolution, graphs.

fn is_test_file_name(stem: &str) -> bool {
    stem.contains("tests") || stem.contains("_proptest")
}

/// Where one edge comes from, for the failure message.
#[derive(Debug, Clone)]
struct Evidence {
    file: String,
    line: usize,
    path: String,
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{} `{}`", self.file, self.line, self.path)
    }
}

type Graph = BTreeMap<String, BTreeMap<String, Evidence>>;

/// The dependency graphs of one source tree, and the cycles in them.
struct Analysis {
    /// File → file edges (paths shown as `src/…`).
    files: Graph,
    /// Top-level module → top-level module edges.
    modules: Graph,
}

struct Import {
    scope: Vec<String>,
    path: Vec<String>,
}

struct Tree {
    /// Module path → the file (relative display path) that holds it; inline modules included.
    module_file: BTreeMap<Vec<String>, String>,
    /// Module path → names it imports (any visibility) → where they point.
    imports: BTreeMap<Vec<String>, BTreeMap<String, Import>>,
}

impl Tree {
    /// Turns a path as written in module `ctx` into an absolute module path (without `crate`).
    fn absolutize(&self, ctx: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        let first = path.first()?.as_str();
        let mut out: Vec<String>;
        let rest: &[String];
        match first {
            "crate" | "$crate" => {
                out = Vec::new();
                rest = &path[1..];
            }
            "self" => {
                out = ctx.to_vec();
                rest = &path[1..];
            }
            "super" => {
                out = ctx.to_vec();
                let n = path.iter().take_while(|s| *s == "super").count();
                if n > out.len() {
                    return None;
                }
                out.truncate(out.len() - n);
                rest = &path[n..];
            }
            name => {
                let mut child = ctx.to_vec();
                child.push(name.to_string());
                if self.module_file.contains_key(&child) {
                    out = child;
                    rest = &path[1..];
                } else if depth < 16 {
                    let imp = self.imports.get(ctx)?.get(name)?;
                    out = self.absolutize(&imp.scope, &imp.path, depth + 1)?;
                    rest = &path[1..];
                } else {
                    return None;
                }
            }
        }
        out.extend(rest.iter().cloned());
        Some(out)
    }

    /// The file defining what an absolute path names: its longest module prefix, followed
    /// through that module's imports when the next segment is an imported name.
    fn target(&self, abs: &[String], depth: usize) -> Option<String> {
        let k = (0..=abs.len())
            .rev()
            .find(|&k| k == 0 || self.module_file.contains_key(&abs[..k]))?;
        let import = (k < abs.len() && depth < 16)
            .then(|| self.imports.get(&abs[..k])?.get(&abs[k]))
            .flatten();
        if let Some(imp) = import
            && let Some(mut next) = self.absolutize(&imp.scope, &imp.path, depth + 1)
        {
            next.extend(abs[k + 1..].iter().cloned());
            return self.target(&next, depth + 1);
        }
        if k == 0 {
            return None; // the crate root: wiring only
        }
        self.module_file.get(&abs[..k]).cloned()
    }
}

/// One path a file writes, in a `use` or in code.
struct Ref<'a> {
    /// Inline-module scope inside the file.
    scope: &'a [String],
    /// The path as written.
    path: &'a [String],
    line: usize,
    /// A `use` binding a name (not a glob): importing a module by name is not an edge.
    named_import: bool,
    /// A glob `use` (`path::*`).
    glob: bool,
    /// A `pub use` whose name the file's own code never mentions.
    unused_reexport: bool,
}

/// Reads every `.rs` file under `src` and builds the file and module graphs.
fn analyze(src: &Path) -> Analysis {
    analyze_build(src, false)
}

/// The graphs of the production build, or (`with_tests`) of the test build: test modules,
/// test files and `#[cfg(test)]` items included.
fn analyze_build(src: &Path, with_tests: bool) -> Analysis {
    // 1. Files on disk → module paths.
    let mut on_disk: BTreeMap<Vec<String>, (String, Scan)> = BTreeMap::new();
    let mut roots: Vec<Scan> = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    let mut found: Vec<PathBuf> = Vec::new();
    while let Some(dir) = stack.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
        for entry in entries {
            let p = entry.expect("directory entry").path();
            if p.is_dir() {
                if p != src.join("bin") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                found.push(p);
            }
        }
    }
    for p in found {
        let rel = p.strip_prefix(src).expect("under src");
        let mut segs: Vec<String> = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let last = segs.pop().expect("file name");
        let stem = last.trim_end_matches(".rs").to_string();
        let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
        let display = format!("src/{}", rel.to_string_lossy().replace('\\', "/"));
        if segs.is_empty() && (stem == "lib" || stem == "main") {
            roots.push(scan(&text, with_tests));
            continue;
        }
        if stem != "mod" {
            segs.push(stem);
        }
        on_disk.insert(segs, (display, scan(&text, with_tests)));
    }

    // 2. Files reachable from the roots through non-test `mod` declarations.
    let mut included: BTreeMap<Vec<String>, (String, Scan)> = BTreeMap::new();
    let mut queue: VecDeque<Vec<String>> = roots
        .iter()
        .flat_map(|r| r.declared.iter().cloned())
        .collect();
    while let Some(m) = queue.pop_front() {
        if included.contains_key(&m)
            || (!with_tests && m.last().is_some_and(|s| is_test_file_name(s)))
        {
            continue;
        }
        let Some(entry) = on_disk.remove(&m) else {
            continue;
        };
        for d in &entry.1.declared {
            let mut child = m.clone();
            child.extend(d.iter().cloned());
            queue.push_back(child);
        }
        included.insert(m, entry);
    }

    // 3. Module → file, and every module's imports.
    let mut tree = Tree {
        module_file: BTreeMap::new(),
        imports: BTreeMap::new(),
    };
    for (m, (display, s)) in &included {
        tree.module_file.insert(m.clone(), display.clone());
        for inl in &s.inline_mods {
            let mut p = m.clone();
            p.extend(inl.iter().cloned());
            tree.module_file.insert(p, display.clone());
        }
        for u in &s.uses {
            if let Some(b) = &u.bound {
                let mut ctx = m.clone();
                ctx.extend(u.scope.iter().cloned());
                tree.imports.entry(ctx.clone()).or_default().insert(
                    b.clone(),
                    Import {
                        scope: ctx,
                        path: u.path.clone(),
                    },
                );
            }
        }
    }

    // 4. Edges.
    let mut files: Graph = BTreeMap::new();
    let mut modules: Graph = BTreeMap::new();
    for (m, (display, s)) in &included {
        files.entry(display.clone()).or_default();
        modules.entry(m[0].clone()).or_default();
        let mut refs: Vec<Ref<'_>> = Vec::new();
        for u in &s.uses {
            let unused_reexport =
                u.public && !u.glob && u.bound.as_ref().is_some_and(|b| !s.idents.contains(b));
            refs.push(Ref {
                scope: &u.scope,
                path: &u.path,
                line: u.line,
                named_import: !u.glob,
                glob: u.glob,
                unused_reexport,
            });
        }
        for p in &s.paths {
            refs.push(Ref {
                scope: &p.scope,
                path: &p.path,
                line: p.line,
                named_import: false,
                glob: false,
                unused_reexport: false,
            });
        }
        for Ref {
            scope,
            path,
            line,
            named_import,
            glob,
            unused_reexport,
        } in refs
        {
            let mut ctx = m.clone();
            ctx.extend(scope.iter().cloned());
            let Some(abs) = tree.absolutize(&ctx, path, 0) else {
                continue;
            };
            if named_import && tree.module_file.contains_key(&abs) {
                continue; // importing a module only names it; the paths through it are resolved
            }
            if unused_reexport && abs.len() > m.len() && abs.starts_with(m) {
                continue; // the module's facade over its own descendants
            }
            let Some(target) = tree.target(&abs, 0) else {
                continue;
            };
            if &target == display {
                continue;
            }
            let ev = Evidence {
                file: display.clone(),
                line,
                path: if glob {
                    format!("{}::*", path.join("::"))
                } else {
                    path.join("::")
                },
            };
            files
                .entry(display.clone())
                .or_default()
                .entry(target.clone())
                .or_insert_with(|| ev.clone());
            let target_module = included
                .iter()
                .find(|(_, (d, _))| *d == target)
                .map(|(tm, _)| tm[0].clone())
                .expect("target is an included file");
            if target_module != m[0] {
                modules
                    .entry(m[0].clone())
                    .or_default()
                    .entry(target_module)
                    .or_insert(ev);
            }
        }
    }
    Analysis { files, modules }
}

/// Strongly connected components with more than one node (Tarjan).
fn components(g: &Graph) -> Vec<BTreeSet<String>> {
    struct St<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        on: BTreeSet<&'a str>,
        stack: Vec<&'a str>,
        next: usize,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(st: &mut St<'a>, v: &'a str) {
        st.index.insert(v, st.next);
        st.low.insert(v, st.next);
        st.next += 1;
        st.stack.push(v);
        st.on.insert(v);
        let g = st.g;
        for w in g.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !st.index.contains_key(w) {
                visit(st, w);
                let lw = st.low[w];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if st.on.contains(w) {
                let iw = st.index[w];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = BTreeSet::new();
            while let Some(w) = st.stack.pop() {
                st.on.remove(w);
                comp.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                st.out.push(comp);
            }
        }
    }
    let mut st = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !st.index.contains_key(v.as_str()) {
            visit(&mut st, v);
        }
    }
    st.out
}

/// For every edge inside a cycle, the shortest cycle through it, as `[a, b, …, a]`; rotated to
/// start at the smallest node, deduplicated, shortest first.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    let mut found: BTreeSet<(usize, Vec<String>)> = BTreeSet::new();
    for comp in components(g) {
        for u in &comp {
            for v in g[u].keys().filter(|v| comp.contains(*v)) {
                // Shortest path v → u inside the component.
                let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
                let mut queue = VecDeque::from([v.as_str()]);
                let mut seen = BTreeSet::from([v.as_str()]);
                while let Some(x) = queue.pop_front() {
                    if x == u {
                        break;
                    }
                    for y in g[x].keys().filter(|y| comp.contains(*y)) {
                        if seen.insert(y.as_str()) {
                            prev.insert(y.as_str(), x);
                            queue.push_back(y.as_str());
                        }
                    }
                }
                let mut back = vec![u.as_str()];
                let mut x = u.as_str();
                while x != v {
                    x = prev[x];
                    back.push(x);
                }
                back.reverse(); // v … u
                let mut ring: Vec<String> = vec![u.clone()];
                ring.extend(back.iter().take(back.len() - 1).map(|s| s.to_string()));
                let start = ring
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, s)| *s)
                    .map(|(k, _)| k)
                    .unwrap_or(0);
                ring.rotate_left(start);
                let first = ring[0].clone();
                ring.push(first);
                found.insert((ring.len(), ring));
            }
        }
    }
    found.into_iter().map(|(_, c)| c).collect()
}

impl Analysis {
    fn module_cycles(&self) -> Vec<Vec<String>> {
        cycles(&self.modules)
    }

    fn file_cycles(&self) -> Vec<Vec<String>> {
        cycles(&self.files)
    }

    /// Files reachable from `from` (not including it unless on a cycle).
    fn reachable(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut queue = VecDeque::from([from.to_string()]);
        while let Some(x) = queue.pop_front() {
            for y in self.files.get(&x).into_iter().flat_map(|e| e.keys()) {
                if seen.insert(y.clone()) {
                    queue.push_back(y.clone());
                }
            }
        }
        seen
    }

    /// Empty when there is no cycle; otherwise every cycle and the line behind each edge.
    fn report(&self) -> String {
        let mut out = String::new();
        for (title, g, cs) in [
            (
                "module cycles (between top-level modules)",
                &self.modules,
                self.module_cycles(),
            ),
            ("file cycles", &self.files, self.file_cycles()),
        ] {
            if cs.is_empty() {
                continue;
            }
            out.push_str(&format!("{title}:\n"));
            for c in &cs {
                out.push_str(&format!("  {}\n", c.join(" -> ")));
            }
            out.push_str("  where:\n");
            let edges: BTreeSet<(&String, &String)> = cs
                .iter()
                .flat_map(|c| c.windows(2).map(|w| (&w[0], &w[1])))
                .collect();
            for (a, b) in edges {
                out.push_str(&format!("    {a} -> {b}: {}\n", g[a][b]));
            }
        }
        out
    }
}
