//! Snapshot cost and store growth of checkpoints (SPEC §14.3, decision 0080) on a
//! 20,000-file workspace: the first (full) snapshot, then a turn's incremental snapshot
//! with 10 files changed, against the rejected baseline of hashing every file again.
//! See docs/benchmarks.md.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use deepterm::checkpoint::store::Store;
use deepterm::checkpoint::walk::{WalkSpec, snapshot};

const DIRS: usize = 200;
const PER_DIR: usize = 100;
const CHANGED: usize = 10;

fn make_tree(ws: &Path) {
    for d in 0..DIRS {
        let dir = ws.join(format!("src/mod{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..PER_DIR {
            let body = format!(
                "// file {d}/{f}\n{}\n",
                "fn body() { let x = 1; }\n".repeat(40)
            );
            std::fs::write(dir.join(format!("f{f:03}.rs")), body).unwrap();
        }
    }
    std::fs::write(ws.join(".gitignore"), "target/\n").unwrap();
}

fn touch(ws: &Path, turn: usize) {
    for i in 0..CHANGED {
        let d = (turn * 7 + i * 13) % DIRS;
        let f = (turn * 3 + i) % PER_DIR;
        let p = ws.join(format!("src/mod{d:03}/f{f:03}.rs"));
        std::fs::write(p, format!("// turn {turn} change {i}\n")).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let ws = root.join("ws");
    make_tree(&ws);
    let store_dir = root.join("store");
    let store = Store::new(&store_dir);
    let spec = WalkSpec {
        workspace: ws.clone(),
        exclude: vec![store_dir.clone()],
        max_file_bytes: 16 * 1024 * 1024,
    };
    let t = Instant::now();
    let first = snapshot(&spec, &store, None).unwrap();
    store.save_manifest(&first).unwrap();
    let full = t.elapsed();
    let after_first = store.disk_bytes();
    // Let the racy window pass, so unchanged files are not read again.
    std::thread::sleep(Duration::from_millis(2100));
    let mut prev = snapshot(&spec, &store, Some(&first)).unwrap();
    store.save_manifest(&prev).unwrap();
    let before_turns = store.disk_bytes();
    let turns = 20;
    let mut total = Duration::ZERO;
    for turn in 0..turns {
        touch(&ws, turn);
        let t = Instant::now();
        let m = snapshot(&spec, &store, Some(&prev)).unwrap();
        store.save_manifest(&m).unwrap();
        total += t.elapsed();
        prev = m;
    }
    let growth = (store.disk_bytes() - before_turns) / turns as u64;
    eprintln!(
        "checkpoint: {} files; full snapshot {:.0} ms, store {} KiB; incremental (10 changed) {:.1} ms mean; store growth {} KiB per turn",
        first.files.len(),
        full.as_secs_f64() * 1e3,
        after_first / 1024,
        total.as_secs_f64() * 1e3 / turns as f64,
        growth / 1024
    );
    let mut g = c.benchmark_group("checkpoint_20k_files");
    g.sample_size(10);
    let mut turn = 1000;
    g.bench_function("incremental_10_changed", |b| {
        b.iter(|| {
            turn += 1;
            touch(&ws, turn);
            let m = snapshot(&spec, &store, Some(&prev)).unwrap();
            store.save_manifest(&m).unwrap();
            prev = m;
        })
    });
    // Baseline: every file read and hashed again (no size+mtime reuse).
    g.bench_function("full_rehash_baseline", |b| {
        b.iter(|| {
            let m = snapshot(&spec, &store, None).unwrap();
            store.save_manifest(&m).unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
