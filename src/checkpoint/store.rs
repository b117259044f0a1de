//! The checkpoint store on disk (decision 0080):
//!
//! ```text
//! <root>/objects/ab/cdef…      file contents and tree records, named by their SHA-256
//! <root>/snapshots/<id>.json   one snapshot: its directories' tree hashes, skipped files
//! ```
//!
//! Everything is written once (a temporary file renamed into place, by `tempfile`) and never
//! changed, so two sessions (a fork and its parent) share objects safely. Records are read back as
//! hostile input: capped, parsed strictly, every path checked.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{CheckpointError, FileEntry, Manifest, Skipped, is_safe_relative, is_valid_id};

/// The largest tree or snapshot record read back (a directory of ~100,000 files).
const MAX_RECORD_BYTES: u64 = 32 * 1024 * 1024;

/// The store under one root directory.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    /// Objects known to exist (written or seen by this process), so a snapshot does not
    /// stat the thousands of unchanged ones again.
    known: Mutex<HashSet<String>>,
    /// The trees of the latest saved snapshot with their hashes: a directory whose files
    /// did not change keeps its tree without serializing and hashing it again.
    trees: Mutex<HashMap<String, SavedTree>>,
}

/// A directory's files as last saved, and their tree's hash.
type SavedTree = (BTreeMap<String, FileEntry>, String);

/// One directory's files: name → entry.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TreeRecord {
    files: BTreeMap<String, FileEntry>,
}

/// A snapshot record: directory (relative, `""` for the workspace) → tree hash.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SnapshotRecord {
    started_ns: i128,
    dirs: BTreeMap<String, String>,
    #[serde(default)]
    skipped: Vec<Skipped>,
}

fn store_err(path: &Path, e: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Store {
        path: path.display().to_string(),
        error: e.to_string(),
    }
}

fn open_text(e: crate::fs_guard::OpenError) -> String {
    match e {
        crate::fs_guard::OpenError::Io(e) => e.to_string(),
        crate::fs_guard::OpenError::NotRegular(k) => {
            format!("not a regular file ({})", k.describe())
        }
    }
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn hash_bytes(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

impl Store {
    /// The store at `root` (created on the first write).
    pub fn new(root: impl Into<PathBuf>) -> Store {
        Store {
            root: root.into(),
            known: Mutex::new(HashSet::new()),
            trees: Mutex::new(HashMap::new()),
        }
    }

    /// Its root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn object_path(&self, hash: &str) -> PathBuf {
        let (a, b) = hash.split_at(2.min(hash.len()));
        self.root.join("objects").join(a).join(b)
    }

    fn snapshot_path(&self, id: &str) -> PathBuf {
        self.root.join("snapshots").join(format!("{id}.json"))
    }

    /// Writes `bytes` once under `path` (temporary file, rename; fsynced when `durable`).
    /// Objects are not fsynced one by one (20,000 fsyncs made a first snapshot take
    /// minutes): after a system crash an object may be missing or short,
    /// which `get_object` reports (its hash is checked), never restores wrongly.
    fn write_once(&self, path: &Path, bytes: &[u8], durable: bool) -> Result<(), CheckpointError> {
        if path.exists() {
            return Ok(());
        }
        let dir = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir).map_err(|e| store_err(dir, e))?;
        let written = (|| {
            let mut builder = tempfile::Builder::new();
            builder.prefix(".tmp-");
            // The usual mode of a new file (0666 minus the umask), not the crate's 0600.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(std::fs::Permissions::from_mode(0o666));
            }
            let mut tmp = builder.tempfile_in(dir)?;
            tmp.write_all(bytes)?;
            if durable {
                tmp.as_file().sync_all()?;
            }
            // A failed rename drops the temp file, which removes it.
            tmp.persist(path).map(drop).map_err(|e| e.error)
        })();
        written.map_err(|e| store_err(path, e))
    }

    /// Stores `bytes` as an object and returns its hash.
    pub fn put_object(&self, bytes: &[u8]) -> Result<String, CheckpointError> {
        let hash = hash_bytes(bytes);
        self.put_object_hashed(&hash, bytes)?;
        Ok(hash)
    }

    fn put_object_hashed(&self, hash: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
        if self.known().contains(hash) {
            return Ok(());
        }
        self.write_once(&self.object_path(hash), bytes, false)?;
        self.known().insert(hash.to_string());
        Ok(())
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An object's bytes (at most `max`), checked against its name.
    pub fn get_object(&self, hash: &str, max: u64) -> Result<Vec<u8>, CheckpointError> {
        let path = self.object_path(hash);
        if hash.len() != 64 || !is_valid_id(hash) {
            return Err(CheckpointError::Corrupt {
                path: path.display().to_string(),
                error: "not an object name".into(),
            });
        }
        let f = crate::fs_guard::open_regular(&path).map_err(|e| store_err(&path, open_text(e)))?;
        let capped = crate::fs_guard::read_capped(f, max).map_err(|e| store_err(&path, e))?;
        if capped.truncated || hash_bytes(&capped.bytes) != hash {
            return Err(CheckpointError::Corrupt {
                path: path.display().to_string(),
                error: "content does not match its name".into(),
            });
        }
        Ok(capped.bytes)
    }

    /// Saves `m` and returns its id.
    pub fn save_manifest(&self, m: &Manifest) -> Result<String, CheckpointError> {
        let mut trees: BTreeMap<String, TreeRecord> = BTreeMap::new();
        for (path, entry) in &m.files {
            let (dir, name) = match path.rsplit_once('/') {
                Some((d, n)) => (d.to_string(), n.to_string()),
                None => (String::new(), path.clone()),
            };
            trees
                .entry(dir)
                .or_default()
                .files
                .insert(name, entry.clone());
        }
        let mut record = SnapshotRecord {
            started_ns: m.started_ns,
            dirs: BTreeMap::new(),
            skipped: m.skipped.clone(),
        };
        let mut cache = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = HashMap::with_capacity(trees.len());
        for (dir, tree) in trees {
            let hash = match cache.remove(&dir) {
                Some((files, hash)) if files == tree.files => hash,
                _ => {
                    let bytes = serde_json::to_vec(&tree).map_err(|e| store_err(&self.root, e))?;
                    self.put_object(&bytes)?
                }
            };
            record.dirs.insert(dir.clone(), hash.clone());
            next.insert(dir, (tree.files, hash));
        }
        *cache = next;
        drop(cache);
        let bytes = serde_json::to_vec(&record).map_err(|e| store_err(&self.root, e))?;
        let id = hash_bytes(&bytes)[..16].to_string();
        self.write_once(&self.snapshot_path(&id), &bytes, true)?;
        Ok(id)
    }

    /// Loads the snapshot `id`, checking every path and hash in it.
    pub fn load_manifest(&self, id: &str) -> Result<Manifest, CheckpointError> {
        let path = self.snapshot_path(id);
        let corrupt = |e: String| CheckpointError::Corrupt {
            path: path.display().to_string(),
            error: e,
        };
        if !is_valid_id(id) {
            return Err(corrupt("not a checkpoint id".into()));
        }
        let f = crate::fs_guard::open_regular(&path).map_err(|e| store_err(&path, open_text(e)))?;
        let capped =
            crate::fs_guard::read_capped(f, MAX_RECORD_BYTES).map_err(|e| store_err(&path, e))?;
        if capped.truncated {
            return Err(corrupt("too large".into()));
        }
        let record: SnapshotRecord =
            serde_json::from_slice(&capped.bytes).map_err(|e| corrupt(e.to_string()))?;
        let mut m = Manifest {
            started_ns: record.started_ns,
            skipped: record.skipped,
            ..Manifest::default()
        };
        for (dir, tree_hash) in record.dirs {
            if !dir.is_empty() && !is_safe_relative(&dir) {
                return Err(corrupt(format!("unsafe directory {dir:?}")));
            }
            let bytes = self.get_object(&tree_hash, MAX_RECORD_BYTES)?;
            let tree: TreeRecord =
                serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
            for (name, entry) in tree.files {
                let p = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                if !is_safe_relative(&p) || entry.hash.len() != 64 || !is_valid_id(&entry.hash) {
                    return Err(corrupt(format!("unsafe entry {p:?}")));
                }
                m.files.insert(p, entry);
            }
        }
        m.skipped.retain(|s| is_safe_relative(&s.path));
        Ok(m)
    }

    /// Total bytes under the store (objects and snapshots), for the benchmark.
    pub fn disk_bytes(&self) -> u64 {
        fn walk(p: &Path) -> u64 {
            let Ok(rd) = std::fs::read_dir(p) else {
                return 0;
            };
            rd.flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path()),
                    Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
                    Err(_) => 0,
                })
                .sum()
        }
        walk(&self.root)
    }

    /// Stores a file's content already read, named by `hash`.
    pub(crate) fn put_read(&self, hash: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
        self.put_object_hashed(hash, bytes)
    }
}
