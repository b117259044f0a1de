//! The UI components: the Chat and Trajectory panes, the bottom pane
//! (composer, approval prompt, slash popup) and the overlays (help, inspector) on a small
//! stack. Each renders into an area from the shared [`UiState`] and handles the actions the
//! keymap table resolves for its context; `App` only routes events and owns the components.

pub mod bottom_pane;
pub mod chat_pane;
pub mod component;
pub mod help_overlay;
pub mod inspector_overlay;
pub mod resume_picker;
pub mod stack;
pub mod state;
pub mod trajectory_pane;

pub use bottom_pane::BottomPane;
pub use chat_pane::ChatPane;
pub use component::{Component, Handled};
pub use help_overlay::HelpOverlay;
pub use inspector_overlay::InspectorOverlay;
pub use resume_picker::ResumePicker;
pub use stack::{Overlay, OverlayStack};
pub use state::{Focus, UiState};
pub use trajectory_pane::TrajectoryPane;
