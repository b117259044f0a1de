//! The loop's handle on the checkpoint store: the store, the walk of the workspace, the
//! latest snapshot (the base of the next incremental one) and a few loaded ones.

use std::sync::Arc;

use super::store::Store;
use super::walk::{WalkSpec, snapshot};
use super::{CheckpointError, Manifest};

/// How many loaded snapshots are kept in memory (the latest ones are reused most).
const CACHED_MANIFESTS: usize = 4;

/// The loop's checkpoint store and workspace, and the latest snapshot (the base of the
/// next incremental one).
#[derive(Debug, Default)]
pub struct Checkpointer {
    inner: Option<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Arc<Store>,
    spec: WalkSpec,
    last: Option<Manifest>,
    cache: Vec<(String, Manifest)>,
}

impl Checkpointer {
    /// Checkpoints of `spec.workspace` kept in the store at `root`.
    pub fn new(root: std::path::PathBuf, mut spec: WalkSpec) -> Checkpointer {
        // The store (and the session directory) may lie inside the workspace: never walked.
        spec.exclude.push(root.clone());
        Checkpointer {
            inner: Some(Inner {
                store: Arc::new(Store::new(root)),
                spec,
                last: None,
                cache: Vec::new(),
            }),
        }
    }

    /// Whether checkpoints are on.
    pub fn enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The store and walk, for restores and diffs.
    pub fn parts(&self) -> Option<(&Store, &WalkSpec)> {
        self.inner.as_ref().map(|i| (i.store.as_ref(), &i.spec))
    }

    /// Takes a snapshot (incremental over the latest one, or over `base` when this
    /// process has none yet) and saves it.
    pub fn take(&mut self, base: Option<&str>) -> Result<(String, Manifest), CheckpointError> {
        let Some(i) = self.inner.as_mut() else {
            return Err(CheckpointError::Store {
                path: String::new(),
                error: "checkpoints are off".into(),
            });
        };
        if i.last.is_none()
            && let Some(id) = base
        {
            i.last = i.store.load_manifest(id).ok();
        }
        let m = snapshot(&i.spec, &i.store, i.last.as_ref())?;
        let id = i.store.save_manifest(&m)?;
        i.last = Some(m.clone());
        remember(&mut i.cache, &id, &m);
        Ok((id, m))
    }

    /// Loads snapshot `id` (cached).
    pub fn load(&mut self, id: &str) -> Result<Manifest, CheckpointError> {
        let Some(i) = self.inner.as_mut() else {
            return Err(CheckpointError::Store {
                path: String::new(),
                error: "checkpoints are off".into(),
            });
        };
        if let Some((_, m)) = i.cache.iter().find(|(k, _)| k == id) {
            return Ok(m.clone());
        }
        let m = i.store.load_manifest(id)?;
        remember(&mut i.cache, id, &m);
        Ok(m)
    }
}

fn remember(cache: &mut Vec<(String, Manifest)>, id: &str, m: &Manifest) {
    cache.retain(|(k, _)| k != id);
    cache.push((id.to_string(), m.clone()));
    if cache.len() > CACHED_MANIFESTS {
        cache.remove(0);
    }
}
