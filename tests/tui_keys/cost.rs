//! Issue 13 scenarios: cost.

#[allow(unused_imports)]
use crate::common;
