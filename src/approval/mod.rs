//! Approval policies, rules and the decision whether a `shell` call or an edit runs,
//! asks or is refused (SPEC §14.2, decision 0050).

pub mod split;
