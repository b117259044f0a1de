mod edit;
mod limits;
mod mcp;
mod mcp_diagnostics;
mod mcp_hostile;
mod mcp_misbehaving;
mod mcp_npm;
mod mcp_remote;
