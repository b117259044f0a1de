//! `/effort off|low|high|max` (SPEC §14.4): the reasoning effort of the next requests.
//! It is a request parameter logged in `request/context`, never part of the messages, so
//! a switch keeps the cached prefix.

use crate::agent::command_spec::CommandId;
use crate::agent::commands::CommandContext;
use crate::agent::protocol::AgentEvent;
use crate::agent::turn::LineOutcome;
use crate::i18n::Arg;
use crate::session::effort::Effort;

impl CommandContext<'_> {
    /// `/effort` alone shows the effort in use; `/effort LEVEL` sets it for this session.
    pub(crate) fn effort_command(&mut self, effort: Option<Effort>) -> LineOutcome {
        let Some(effort) = effort else {
            let shown = match self.effort() {
                Some(e) => Arg::from(e.as_str()),
                None => Arg::from(crate::i18n::Text::new("cmd-effort-default", vec![])),
            };
            return self.info(
                "cmd-effort-current",
                vec![("effort", shown), ("choices", Arg::from(Effort::choices()))],
            );
        };
        self.state_mut().effort = Some(effort);
        // The footer shows the effort: the route info carries it.
        self.events.emit(AgentEvent::Route(self.route_info()));
        self.info(
            "cmd-effort-set",
            vec![("effort", Arg::from(effort.as_str()))],
        )
    }

    /// `/effort WORD` where WORD is no effort: says so, with the usage.
    pub(crate) fn effort_unknown(&mut self, given: &str) -> LineOutcome {
        self.warn(
            "cmd-effort-unknown",
            vec![
                ("effort", Arg::from(given)),
                (
                    "usage",
                    Arg::from(super::context::usage_text(CommandId::Effort.spec())),
                ),
            ],
        )
    }
}
