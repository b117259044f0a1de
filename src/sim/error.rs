//! Simulator errors.

use std::net::SocketAddr;

/// Simulator errors.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The listen address could not be bound.
    #[error("cannot bind the simulator to {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A reply script is malformed.
    #[error("invalid reply script: {message}")]
    Script {
        /// What is wrong, naming the entry.
        message: String,
    },
    /// A reply script file could not be read.
    #[error("cannot read reply script {path}: {source}")]
    ScriptIo {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("simulator server error: {0}")]
    Serve(std::io::Error),
}
