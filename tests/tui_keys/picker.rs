//! Issue 13 scenarios: picker.

#[allow(unused_imports)]
use crate::common;
