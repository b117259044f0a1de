//! Issue 12 scenarios: cache.

#[allow(unused_imports)]
use crate::common;
