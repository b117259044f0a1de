//! The request-body writers of both routes as they were before decision 0100, kept (test
//! builds only) as the oracle for `llm::wire_equivalence_proptests`: the one-pass writers
//! must write the same bytes, because the provider's prefix cache depends on them.

pub(crate) mod deepseek;
pub(crate) mod openai;
