//! What the bounded walk for nested version-control directories costs before every
//! sandboxed command (SPEC §15.5, decision 0110): a workspace of 20,000 directories (a
//! large monorepo with its `node_modules`), five nested clones, and the cap-sized walk.
//! See docs/benchmarks.md.

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use deepterm::sandbox::vcs::{WALK_CAP, discover};

const TOP: usize = 200;
const PER_TOP: usize = 100;

fn make_tree(ws: &std::path::Path) {
    for t in 0..TOP {
        for d in 0..PER_TOP {
            std::fs::create_dir_all(ws.join(format!("pkg{t:03}/dir{d:03}"))).unwrap();
        }
        // A file per top directory (the walk reads entries, not contents).
        std::fs::write(ws.join(format!("pkg{t:03}/index.js")), "x").unwrap();
    }
    for i in 0..5 {
        std::fs::create_dir_all(ws.join(format!("pkg{:03}/dir001/.git/hooks", i * 40))).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    make_tree(&ws);
    let roots: Vec<PathBuf> = vec![ws.clone()];
    let found = discover(&roots, WALK_CAP);
    assert_eq!(found.paths.len(), 5);
    let small = ws.join("pkg000");
    let mut g = c.benchmark_group("vcs_walk");
    g.sample_size(10);
    g.bench_function("20k directories (cap reached)", |b| {
        b.iter(|| discover(&roots, WALK_CAP))
    });
    g.bench_function("100 directories", |b| {
        b.iter(|| discover(std::slice::from_ref(&small), WALK_CAP))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
