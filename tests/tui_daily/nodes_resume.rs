//! Issue 12 scenarios: nodes_resume.

#[allow(unused_imports)]
use crate::common;
