//! Issue 12 scenarios: popup_help.

#[allow(unused_imports)]
use crate::common;
