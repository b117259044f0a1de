//! Issue 12 scenarios: approvals.

#[allow(unused_imports)]
use crate::common;
