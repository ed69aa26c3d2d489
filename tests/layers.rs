//! The code's layers: modules depend one way. Reads every source file under `src/` and the
//! page's crate under `ui/src/` (as the module `ui`), follows each `use` tree and every
//! `crate::`, `super::` and `orrery::` path in code (comments and strings are skipped), and
//! checks that
//! - the top-level modules, and the modules one level below each of them, form no import
//!   cycle;
//! - every top-level module depends only on modules of its layer or below (the small
//!   utilities, model, then workload, sim, policy, metrics, experiment, what only the page
//!   shows, and the CLI and the page on top): in particular nothing in `sim` imports
//!   `policy`;
//! - a mechanism is named (`Mechanism::`) in at most [`MAX_MECHANISM_FILES`] files outside
//!   `src/sim`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files outside `src/sim` that may name a mechanism (`Mechanism::`): the bound only goes
/// down.
const MAX_MECHANISM_FILES: usize = 3;

/// The layers, lowest first; a module may depend on its own layer and the layers below.
const LAYERS: &[&[&str]] = &[
    &["math", "rng", "order"],
    &["model", "nn"],
    &["workload"],
    &["sim"],
    &["policy"],
    &["metrics"],
    &["experiment"],
    &["view"],
    &["cli", "ui"],
];

type Module = Vec<String>;

/// One source file: its module path, the module its crate's root is (`crate::` there: the
/// core's root, or `ui` for the page's crate), and its text with comments and strings
/// blanked.
struct Source {
    file: String,
    module: Module,
    krate: Module,
    code: String,
}

/// The crates read: their source folder (under the repository), and the module their root
/// is.
const CRATES: &[(&str, &[&str])] = &[("src", &[]), ("ui/src", &["ui"])];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort_unstable();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file defines: `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `lib.rs` is
/// the root; the binaries' entry points are none of the library's modules.
fn module_of(rel: &Path) -> Option<Module> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if parts.len() == 1 && (parts[0] == "main" || parts[0] == "compute") {
        return None;
    }
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    Some(parts)
}

/// `text` with comments, string and character literals replaced by spaces (line breaks
/// kept, so that offsets still give line numbers).
fn blank_non_code(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let mut j = i;
                while j < b.len() {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j.min(b.len()));
                i = j;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"') | Some(b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let start = i + 2 + hashes;
                let end = b[start..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |p| start + p + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, (j + 1).min(b.len()));
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
                let end = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..]
                        .iter()
                        .position(|&c| c == b'\'')
                        .map(|p| i + 2 + p)
                } else if b.get(i + 2) == Some(&b'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                match end {
                    Some(e) => {
                        blank(&mut out, i, e + 1);
                        i = e + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8")
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The paths of a `use` tree (`a::{b, c::{d, e as f}, *}`), each as its segments.
fn expand_use_tree(tree: &str) -> Vec<Vec<String>> {
    fn parse(s: &[u8], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path: Vec<String> = prefix.to_vec();
        loop {
            while *i < s.len() && (s[*i].is_ascii_whitespace() || s[*i] == b':') {
                *i += 1;
            }
            if *i >= s.len() {
                out.push(path);
                return;
            }
            match s[*i] {
                b'{' => {
                    *i += 1;
                    loop {
                        parse(s, i, &path, out);
                        while *i < s.len() && s[*i].is_ascii_whitespace() {
                            *i += 1;
                        }
                        match s.get(*i) {
                            Some(b',') => *i += 1,
                            Some(b'}') => {
                                *i += 1;
                                return;
                            }
                            _ => return,
                        }
                        while *i < s.len() && s[*i].is_ascii_whitespace() {
                            *i += 1;
                        }
                        if s.get(*i) == Some(&b'}') {
                            *i += 1;
                            return;
                        }
                    }
                }
                b'*' => {
                    *i += 1;
                    out.push(path);
                    return;
                }
                c if is_ident(c) => {
                    let start = *i;
                    while *i < s.len() && is_ident(s[*i]) {
                        *i += 1;
                    }
                    let word = String::from_utf8_lossy(&s[start..*i]).into_owned();
                    if word == "as" {
                        // `x as y`: the name bound is not a path.
                        while *i < s.len() && s[*i].is_ascii_whitespace() {
                            *i += 1;
                        }
                        while *i < s.len() && is_ident(s[*i]) {
                            *i += 1;
                        }
                        out.push(path);
                        return;
                    }
                    if word != "self" || path.is_empty() {
                        path.push(word);
                    }
                }
                _ => {
                    out.push(path);
                    return;
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    parse(tree.as_bytes(), &mut i, &[], &mut out);
    out
}

/// Every path a file names: `use` trees expanded, and paths in code that start with
/// `crate`, `super` or `orrery`, each with the line it is on.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    let b = code.as_bytes();
    let line_of = |at: usize| code[..at].bytes().filter(|&c| c == b'\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_ident(b[i]) || (i > 0 && (is_ident(b[i - 1]) || b[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let word = &code[start..i];
        if word == "use" {
            let end = code[i..].find(';').map_or(b.len(), |p| i + p);
            for p in expand_use_tree(&code[i..end]) {
                out.push((line_of(start), p));
            }
            i = end;
        } else if matches!(word, "crate" | "super" | "orrery") && code[i..].starts_with("::") {
            let mut segs = vec![word.to_string()];
            let mut j = i;
            while code[j..].starts_with("::") {
                let s = j + 2;
                let mut e = s;
                while e < b.len() && is_ident(b[e]) {
                    e += 1;
                }
                if e == s {
                    break;
                }
                segs.push(code[s..e].to_string());
                j = e;
            }
            out.push((line_of(start), segs));
            i = j;
        }
    }
    out
}

/// The module `path` (as named in module `from`, of the crate whose root is `krate`) points
/// into, if it is one of the modules read: the longest known module its absolute form starts
/// with.
fn resolve(
    from: &Module,
    krate: &Module,
    path: &[String],
    modules: &BTreeSet<Module>,
) -> Option<Module> {
    let first = path.first()?;
    let mut abs: Vec<String> = match first.as_str() {
        "crate" => krate.clone(),
        "orrery" => Vec::new(),
        "super" => from.clone(),
        _ => return None,
    };
    let mut rest = &path[1..];
    if first == "super" {
        abs.pop();
        while rest.first().is_some_and(|s| s == "super") {
            abs.pop();
            rest = &rest[1..];
        }
    }
    abs.extend(rest.iter().cloned());
    (1..=abs.len())
        .rev()
        .map(|n| abs[..n].to_vec())
        .find(|m| modules.contains(m))
}

fn sources() -> Vec<Source> {
    let mut out = Vec::new();
    for &(dir, krate) in CRATES {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let krate: Module = krate.iter().map(|s| s.to_string()).collect();
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        out.extend(files.iter().filter_map(|f| {
            let rel = f.strip_prefix(&root).expect("under the crate's folder");
            let module: Module = krate.iter().cloned().chain(module_of(rel)?).collect();
            let text =
                std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            Some(Source {
                file: format!("{dir}/{}", rel.display()),
                module,
                krate: krate.clone(),
                code: blank_non_code(&text),
            })
        }));
    }
    out
}

/// Dependencies between modules cut at `depth` segments (top-level modules at 1; at 2, the
/// modules one level below a top-level module, among themselves), each with an example.
fn graph(sources: &[Source], depth: usize) -> BTreeMap<(Module, Module), String> {
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let mut edges = BTreeMap::new();
    for s in sources {
        if s.module.len() < depth {
            continue;
        }
        for (line, path) in paths_in(&s.code) {
            let Some(to) = resolve(&s.module, &s.krate, &path, &modules) else {
                continue;
            };
            if to.len() < depth || to[..depth - 1] != s.module[..depth - 1] {
                continue;
            }
            let (a, b) = (s.module[..depth].to_vec(), to[..depth].to_vec());
            if a != b {
                edges
                    .entry((a, b))
                    .or_insert_with(|| format!("{}:{line} names {}", s.file, path.join("::")));
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<(Module, Module), String>) -> Vec<Vec<Module>> {
    struct T<'a> {
        next: BTreeMap<&'a Module, Vec<&'a Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a Module) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.next.get(v).cloned().unwrap_or_default() {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort_unstable();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        next: BTreeMap::new(),
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for (a, b) in edges.keys() {
        t.next.entry(a).or_default().push(b);
    }
    let nodes: Vec<&Module> = t.next.keys().copied().collect();
    for v in nodes {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn describe(cycles: &[Vec<Module>], edges: &BTreeMap<(Module, Module), String>) -> String {
    let mut s = String::new();
    for c in cycles {
        s.push_str(&format!(
            "cycle: {}\n",
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for ((a, b), why) in edges {
            if c.contains(a) && c.contains(b) {
                s.push_str(&format!("  {} -> {}: {why}\n", a.join("::"), b.join("::")));
            }
        }
    }
    s
}

fn layer_of(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&m))
}

#[test]
fn the_top_level_modules_form_no_cycle_and_depend_downward_only() {
    let sources = sources();
    assert!(sources.len() > 100, "read {} files", sources.len());
    let edges = graph(&sources, 1);
    let found = cycles(&edges);
    assert!(found.is_empty(), "{}", describe(&found, &edges));
    let mut upward = Vec::new();
    for ((a, b), why) in &edges {
        let (la, lb) = (layer_of(&a[0]), layer_of(&b[0]));
        assert!(la.is_some(), "module {} is in no layer of LAYERS", a[0]);
        assert!(lb.is_some(), "module {} is in no layer of LAYERS", b[0]);
        if lb > la {
            upward.push(format!("{} -> {}: {why}", a[0], b[0]));
        }
    }
    assert!(
        upward.is_empty(),
        "dependencies upward:\n{}",
        upward.join("\n")
    );
    assert!(
        !edges.keys().any(|(a, b)| a[0] == "sim" && b[0] == "policy"),
        "the simulator imports a policy"
    );
}

#[test]
fn the_modules_one_level_down_form_no_cycle() {
    let sources = sources();
    let edges = graph(&sources, 2);
    assert!(
        edges.keys().any(|(a, _)| a[0] == "policy"),
        "no dependency found among policy's modules: the reader is broken"
    );
    let found = cycles(&edges);
    assert!(found.is_empty(), "{}", describe(&found, &edges));
}

#[test]
fn few_files_outside_the_simulator_name_a_mechanism() {
    let files: Vec<String> = sources()
        .into_iter()
        .filter(|s| s.module.first().is_none_or(|m| m != "sim"))
        .filter(|s| s.code.contains("Mechanism::"))
        .map(|s| s.file)
        .collect();
    assert!(
        files.len() <= MAX_MECHANISM_FILES,
        "{} files outside src/sim name a mechanism (at most {MAX_MECHANISM_FILES}): {files:?}",
        files.len()
    );
}

#[test]
fn the_reader_finds_paths_in_use_trees_and_code_only() {
    let code = blank_non_code(
        "use crate::a::{b::{c, d as e}, f, self};\n// crate::x::y\nlet s = \"crate::q\";\nlet v = super::super::g::h(1);\nuse super::*;\n",
    );
    let paths: Vec<String> = paths_in(&code)
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "crate::a::b::c",
            "crate::a::b::d",
            "crate::a::f",
            "crate::a",
            "super::super::g::h",
            "super"
        ]
    );
    let modules: BTreeSet<Module> = [
        vec!["a".to_string()],
        vec!["a".into(), "b".into()],
        vec!["g".into()],
    ]
    .into_iter()
    .collect();
    let from: Module = vec!["a".into(), "b".into(), "c".into()];
    let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let core: Module = Vec::new();
    assert_eq!(
        resolve(&from, &core, &p("super::super::g::h"), &modules),
        Some(vec!["a".into()])
    );
    assert_eq!(
        resolve(&from, &core, &p("crate::g::h"), &modules),
        Some(vec!["g".into()])
    );
    assert_eq!(resolve(&from, &core, &p("std::x"), &modules), None);
    // In a crate whose root is the module `a`, `crate::` is `a` and `orrery::` the core.
    let a: Module = vec!["a".into()];
    assert_eq!(
        resolve(&from, &a, &p("crate::b::x"), &modules),
        Some(vec!["a".into(), "b".into()])
    );
    assert_eq!(
        resolve(&from, &a, &p("orrery::g::h"), &modules),
        Some(vec!["g".into()])
    );
}
