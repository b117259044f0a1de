//! A remote MCP server's OAuth tokens on disk (SPEC §15.2): one file per server,
//! `$XDG_DATA_HOME/deepterm/mcp-auth/NAME.json`, mode 0600 in a 0700 directory, written
//! whole (a temporary file renamed over the old one) so a crash never leaves half a token.
//!
//! The file is hostile until checked: only a regular file is read, at most
//! [`MAX_TOKEN_FILE_BYTES`], and one that does not parse counts as no login (the user
//! is told to log in again) rather than an error that blocks the server for good. Every
//! token read or written is added to the session's [`Secrets`], so it is redacted from
//! tool results, the log and every request even if a server echoes it back.

use std::io::Write;
use std::path::{Path, PathBuf};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

use crate::secret::Secrets;

/// Largest token file read (a real one is a few KiB).
pub const MAX_TOKEN_FILE_BYTES: u64 = 256 * 1024;

/// The default directory of token files: `mcp-auth` in deepterm's data directory.
pub fn default_auth_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "deepterm")
        .map(|d| d.data_dir().join("mcp-auth"))
        .unwrap_or_else(|| PathBuf::from(".deepterm/mcp-auth"))
}

/// The token file of one server.
#[derive(Clone)]
pub struct TokenFile {
    path: PathBuf,
    secrets: Secrets,
}

impl std::fmt::Debug for TokenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl TokenFile {
    /// The file of server `name` in `dir`; tokens it sees are added to `secrets`.
    pub fn new(dir: &Path, name: &str, secrets: Secrets) -> TokenFile {
        TokenFile {
            path: dir.join(format!("{name}.json")),
            secrets,
        }
    }

    /// Where the tokens live.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a login is stored (a file with an access token that parses).
    pub fn has_login(&self) -> bool {
        matches!(self.read(), Ok(Some(c)) if c.token_response.is_some())
    }

    /// Deletes the tokens; returns whether there were any.
    pub fn remove(&self) -> std::io::Result<bool> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn remember(&self, c: &StoredCredentials) {
        if let Some(t) = &c.token_response {
            use oauth2::TokenResponse;
            self.secrets.add(t.access_token().secret());
            if let Some(r) = t.refresh_token() {
                self.secrets.add(r.secret());
            }
        }
    }

    fn read(&self) -> std::io::Result<Option<StoredCredentials>> {
        let file = match crate::fs_guard::open_regular(&self.path) {
            Ok(f) => f,
            Err(crate::fs_guard::OpenError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(crate::fs_guard::OpenError::Io(e)) => return Err(e),
            Err(crate::fs_guard::OpenError::NotRegular(_)) => return Ok(None),
        };
        let capped = crate::fs_guard::read_capped(file, MAX_TOKEN_FILE_BYTES)?;
        if capped.truncated {
            return Ok(None);
        }
        let stored: Option<StoredCredentials> = serde_json::from_slice(&capped.bytes).ok();
        if let Some(c) = &stored {
            self.remember(c);
        }
        Ok(stored)
    }

    fn write(&self, c: &StoredCredentials) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let json = serde_json::to_vec_pretty(c).map_err(std::io::Error::other)?;
        // tempfile creates the file 0600; it is renamed over the old one only when whole.
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&json)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Creates `dir` (and its parents) with mode 0700 for the new directories.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

fn store_error(e: std::io::Error) -> AuthError {
    AuthError::CredentialStoreError(format!("the token file could not be used: {e}"))
}

#[async_trait::async_trait]
impl CredentialStore for TokenFile {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.read())
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
            .map_err(store_error)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.remember(&credentials);
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.write(&credentials))
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.remove().map(|_| ()).map_err(store_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(access: &str, refresh: &str) -> StoredCredentials {
        let json = serde_json::json!({
            "access_token": access,
            "token_type": "bearer",
            "expires_in": 3600,
            "refresh_token": refresh,
        });
        StoredCredentials::new(
            "client-1".into(),
            Some(serde_json::from_value(json).unwrap()),
            vec![],
            Some(1),
        )
    }

    #[tokio::test]
    async fn tokens_are_saved_private_and_read_back_and_every_token_is_redacted() {
        let d = tempfile::tempdir().unwrap();
        let secrets = Secrets::new();
        let f = TokenFile::new(&d.path().join("mcp-auth"), "tracker", secrets.clone());
        assert!(!f.has_login());
        f.save(credentials("access-token-one", "refresh-token-one"))
            .await
            .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(f.path()), 0o600);
            assert_eq!(mode(&d.path().join("mcp-auth")), 0o700);
        }
        assert!(f.has_login());
        let back = f.load().await.unwrap().unwrap();
        assert_eq!(back.client_id, "client-1");
        assert_eq!(
            secrets.redact("a access-token-one b refresh-token-one"),
            "a [REDACTED] b [REDACTED]"
        );
        assert!(f.remove().unwrap());
        assert!(!f.remove().unwrap());
        assert!(f.load().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_torn_or_oversized_or_special_token_file_counts_as_no_login() {
        let d = tempfile::tempdir().unwrap();
        let f = TokenFile::new(d.path(), "t", Secrets::new());
        std::fs::write(f.path(), b"{\"client_id\": \"x\", \"token_resp").unwrap();
        assert!(f.load().await.unwrap().is_none());
        let big = vec![b' '; MAX_TOKEN_FILE_BYTES as usize + 10];
        std::fs::write(f.path(), big).unwrap();
        assert!(f.load().await.unwrap().is_none());
        std::fs::remove_file(f.path()).unwrap();
        std::fs::create_dir(f.path()).unwrap();
        assert!(!f.has_login());
    }
}
