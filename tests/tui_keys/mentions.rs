//! Issue 13 scenarios: mentions.

#[allow(unused_imports)]
use crate::common;
