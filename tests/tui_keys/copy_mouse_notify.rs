//! Issue 13 scenarios: copy_mouse_notify.

#[allow(unused_imports)]
use crate::common;
