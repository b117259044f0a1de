//! Prefetching the history ahead of the body writers (decision 0100).
//!
//! A session's messages are separate heap allocations made one at a time over the whole
//! session, between log events and everything else, so they lie scattered: writing one
//! message follows the `Arc` to the message, then to its blocks, then to each block's
//! text, and each of those is a cache miss once the history is larger than the CPU cache
//! (a few MB, about 10,000 messages). The instruction count per byte does not grow with
//! the history; those dependent misses are what made a 20,000-message body cost 3–4 times
//! more per byte than a 200-message one. Asking for each level a few messages ahead,
//! staged so every stage reads only what an earlier one already fetched, keeps the misses
//! in flight while the writer escapes text instead of one after another.

use std::mem::size_of;
use std::sync::Arc;

use crate::session::event::{Block, Message};

/// Messages ahead whose `Message` itself is fetched.
const MESSAGE_AHEAD: usize = 12;
/// Messages ahead whose blocks (and tool-call id) are fetched; the message is in cache.
const BLOCKS_AHEAD: usize = 6;
/// Messages ahead whose strings are fetched; the blocks are in cache.
const TEXT_AHEAD: usize = 3;
/// The start of a string that is fetched; the hardware prefetcher follows longer runs.
const TEXT_BYTES: usize = 256;
/// Blocks of one message whose strings are fetched.
const BLOCKS: usize = 4;

const LINE: usize = 64;

/// Hints that the cache line holding `p` will be read soon. Never reads `p` itself.
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it does not dereference the address and cannot fault,
    // whatever the address (SSE is part of the x86_64 baseline).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetches every cache line that `len` bytes from `p` touch (none for an empty
/// allocation), from the line `p` lies in, so an unaligned range's last line is fetched too.
#[inline(always)]
fn lines(p: *const u8, len: usize) {
    if len == 0 {
        return;
    }
    let skew = p as usize % LINE;
    let first = p.wrapping_sub(skew);
    let mut offset = 0;
    while offset < skew + len {
        prefetch(first.wrapping_add(offset));
        offset += LINE;
    }
}

fn text(s: &str) {
    lines(s.as_ptr(), s.len().min(TEXT_BYTES));
}

/// Called by a writer before its pass: fetches the first messages themselves.
pub(crate) fn start(messages: &[Arc<Message>]) {
    for m in messages.iter().take(MESSAGE_AHEAD) {
        lines(Arc::as_ptr(m).cast(), size_of::<Message>());
    }
}

/// Called by a writer as it starts on `messages[i]`: fetches what it will read a few
/// messages on. Past the first few messages it reads only what an earlier call fetched.
#[inline]
pub(crate) fn ahead(messages: &[Arc<Message>], i: usize) {
    if let Some(m) = messages.get(i + MESSAGE_AHEAD) {
        lines(Arc::as_ptr(m).cast(), size_of::<Message>());
    }
    if let Some(m) = messages.get(i + BLOCKS_AHEAD) {
        lines(
            m.content.as_ptr().cast(),
            m.content.len().min(BLOCKS) * size_of::<Block>(),
        );
        if let Some(id) = &m.tool_call_id {
            text(id);
        }
    }
    if let Some(m) = messages.get(i + TEXT_AHEAD) {
        for block in m.content.iter().take(BLOCKS) {
            match block {
                Block::Text { text: t } | Block::Reasoning { text: t, .. } => text(t),
                Block::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    text(id);
                    text(name);
                    text(arguments);
                }
                Block::ToolAddition { tool_name, .. } | Block::ToolRemoval { tool_name } => {
                    text(tool_name)
                }
            }
        }
    }
}
