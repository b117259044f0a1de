//! [`MessageList`]: the request messages of a request, as a shared snapshot.
//!
//! The surface fold keeps one list and appends to it as messages arrive; a request takes
//! a snapshot by cloning one `Arc` (copy-on-write: the next append copies the list only
//! while a snapshot is still held). Next to the messages the list carries the positions
//! of its developer messages and whether its tool-call ids are known to need no repair,
//! so preparing a request does not walk the whole history.

use std::ops::Deref;
use std::sync::Arc;

use crate::session::event::{Message, Role};

#[derive(Debug, Clone, Default, PartialEq)]
struct Items {
    messages: Vec<Arc<Message>>,
    developer: Vec<usize>,
}

/// Request messages: derefs to `[Arc<Message>]`; cloning is O(1).
#[derive(Debug, Clone)]
pub struct MessageList {
    items: Arc<Items>,
    ids_clean: bool,
}

impl MessageList {
    /// An empty list (its ids need no repair).
    pub fn new() -> Self {
        MessageList {
            items: Arc::default(),
            ids_clean: true,
        }
    }

    /// Appends a message (copies the list first only while a snapshot shares it).
    pub fn push(&mut self, message: Arc<Message>) {
        let items = Arc::make_mut(&mut self.items);
        if message.role == Role::Developer {
            items.developer.push(items.messages.len());
        }
        items.messages.push(message);
    }

    /// Positions of the developer messages, ascending.
    pub fn developer_positions(&self) -> &[usize] {
        &self.items.developer
    }

    /// Whether the tool-call ids are known to need no dispatch-time repair: set by
    /// the surface fold, which scans each message once as it arrives. A list built any
    /// other way says `false` and is scanned when sent.
    pub fn ids_clean(&self) -> bool {
        self.ids_clean
    }

    /// Records whether the ids are known clean (the surface fold's scan).
    pub fn set_ids_clean(&mut self, clean: bool) {
        self.ids_clean = clean;
    }

    /// The messages as a plain vector.
    pub fn to_vec(&self) -> Vec<Arc<Message>> {
        self.items.messages.clone()
    }
}

impl Default for MessageList {
    fn default() -> Self {
        MessageList::new()
    }
}

impl Deref for MessageList {
    type Target = [Arc<Message>];

    fn deref(&self) -> &[Arc<Message>] {
        &self.items.messages
    }
}

impl PartialEq for MessageList {
    fn eq(&self, other: &Self) -> bool {
        self.items.messages == other.items.messages
    }
}

impl FromIterator<Arc<Message>> for MessageList {
    fn from_iter<I: IntoIterator<Item = Arc<Message>>>(iter: I) -> Self {
        let mut list = MessageList::new();
        for m in iter {
            list.push(m);
        }
        list.ids_clean = false;
        list
    }
}

impl From<Vec<Arc<Message>>> for MessageList {
    fn from(messages: Vec<Arc<Message>>) -> Self {
        messages.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a MessageList {
    type Item = &'a Arc<Message>;
    type IntoIter = std::slice::Iter<'a, Arc<Message>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.messages.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::Source;

    #[test]
    fn snapshot_is_shared_and_appends_do_not_change_it() {
        let mut list = MessageList::new();
        list.push(Arc::new(Message::text(
            Role::User,
            "a",
            Source::kind("user"),
        )));
        let snap = list.clone();
        list.push(Arc::new(Message::text(
            Role::Developer,
            "d",
            Source::kind("tool-registry"),
        )));
        assert_eq!(snap.len(), 1);
        assert_eq!(list.len(), 2);
        assert_eq!(list.developer_positions(), [1]);
        assert!(snap.developer_positions().is_empty());
        // A list built from plain messages does not claim clean ids.
        let built: MessageList = list.iter().cloned().collect();
        assert!(!built.ids_clean());
        assert_eq!(built.developer_positions(), [1]);
        assert_eq!(built, list);
    }

    #[test]
    fn derive_messages_is_one_shared_snapshot_not_a_copy_of_the_history() {
        let mut s = crate::session::Session::new("t", "/");
        for text in ["a", "b", "c"] {
            let message = Message::text(Role::User, text, Source::kind("user"));
            s.push(crate::session::event::EventKind::UserMessage(
                crate::session::event::UserMessageData { message },
            ))
            .unwrap();
        }
        let a = s.derive_messages();
        let b = s.derive_messages();
        // The same storage: a request costs no walk over the history to take it.
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()));
        assert!(a.ids_clean());
        // An append while a snapshot is held leaves the snapshot as it was.
        let message = Message::text(Role::User, "d", Source::kind("user"));
        s.push(crate::session::event::EventKind::UserMessage(
            crate::session::event::UserMessageData { message },
        ))
        .unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(s.derive_messages().len(), 4);
        assert!(Arc::ptr_eq(&a[2], &s.derive_messages()[2]));
    }
}
