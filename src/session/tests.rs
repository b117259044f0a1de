//! Session tests.
