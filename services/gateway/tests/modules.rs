//! The gateway's modules form no cycle (issue 14 §7): what several routes
//! share lives in `app.rs`, not in one of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules of `src/` and the ones each names as `crate::…`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name == "bin" {
                continue;
            }
            for f in std::fs::read_dir(&path).unwrap() {
                files.push((name.clone(), f.unwrap().path()));
            }
        } else if name != "lib" && name != "main" {
            files.push((name, path));
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // Unit tests may use what they like; the product may not.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        // Doc links are no dependency.
        let text: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let uses = graph.entry(module.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != module {
                uses.insert(name);
            }
        }
    }
    graph
}

#[test]
fn no_two_modules_import_each_other_even_through_others() {
    let graph = imports();
    assert!(graph.contains_key("server") && graph.contains_key("app"));
    // Depth-first search for a back edge.
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(i) = path.iter().position(|p| *p == m) {
            panic!("module cycle: {} -> {m}", path[i..].join(" -> "));
        }
        path.push(m);
        for next in graph.get(m).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(m);
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        visit(m, &graph, &mut Vec::new(), &mut done);
    }
}
