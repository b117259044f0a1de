//! Issue 13 scenarios: history_editor.

#[allow(unused_imports)]
use crate::common;
