//! What the next request would be, without writing anything: the rendered system prompt
//! (and the instruction files' warnings), the preview and the inspector's data.

use std::sync::Arc;

use crate::agent::commands::CommandContext;
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::agent::turn::AgentError;
use crate::llm::types::GenerateOptions;
use crate::session::Session;
use crate::session::event::Event;

/// Why `/inspect` has no data to show (the text goes inside a localized frame).
#[derive(Debug, thiserror::Error)]
pub enum InspectFailure {
    /// A logged request could not be rebuilt, or there is no such request.
    #[error(transparent)]
    Rebuild(#[from] crate::agent::inspect::InspectError),
    /// The next request could not be previewed.
    #[error(transparent)]
    Preview(#[from] AgentError),
}

impl InspectFailure {
    /// The failure in the interface language.
    pub fn text(&self) -> crate::i18n::Text {
        match self {
            InspectFailure::Rebuild(e) => e.text(),
            InspectFailure::Preview(e) => e.text(),
        }
    }
}

impl CommandContext<'_> {
    /// The next request as it would be sent now (no new user message), computed on a
    /// replayed copy of the session and series: nothing is written (`/inspect`).
    /// Also returns the copy's events (the real log plus what the attempt would append).
    pub(crate) fn preview_next_request(
        &self,
    ) -> Result<(GenerateOptions, Vec<Arc<Event>>), AgentError> {
        let mut session = Session::from_events(
            self.state
                .session
                .events()
                .iter()
                .map(|e| (**e).clone())
                .collect(),
        )?;
        // The preview redacts as the real attempt would, so it shows what would be sent.
        session.set_secrets(self.tools.secrets().clone());
        let mut series = self.state.series;
        let rendered = self.render_prompt();
        let turn = self.state.turn.max(1);
        let plan = self
            .tools
            .registry()
            .plan_after(self.state.session.latest_header().map(|(_, h)| &h.header));
        let input = AttemptInput {
            rendered: &rendered,
            tools: plan.declared,
            deferred: plan.deferred,
            pending_user: self.state.pending_user.clone(),
            turn,
            step: 1,
            explicit_series_start: false,
            effort: self.effort(),
        };
        let plan = plan_attempt(
            &mut session,
            &mut series,
            &self.services.route,
            input,
            &mut |_| {},
        )?;
        Ok((plan.opts, session.events().to_vec()))
    }

    /// Inspector data: past request `n` next to `n - 1`, or (`None`) the next request
    /// next to the last one sent. Nothing is written to the log.
    pub(crate) fn inspect(
        &self,
        request: Option<usize>,
    ) -> Result<crate::agent::inspect::InspectorData, InspectFailure> {
        use crate::agent::inspect;
        let kind_of = self.kind_of();
        match request {
            Some(n) => Ok(inspect::inspect_past(
                self.state.session.events(),
                n,
                &kind_of,
            )?),
            None => {
                let (opts, events) = self.preview_next_request()?;
                Ok(inspect::inspect_next(&events, &opts, &kind_of)?)
            }
        }
    }

    /// Inspector data for step `step` of subagent `agent` (the Trajectory's `T3.S2·a1.S1`
    /// row), rebuilt from its log inside this session's (SPEC §15.3).
    pub(crate) fn inspect_subagent(
        &self,
        agent: &str,
        step: u64,
    ) -> Result<crate::agent::inspect::InspectorData, InspectFailure> {
        let kind_of = self.kind_of();
        Ok(crate::agent::inspect::subagent::inspect_subagent(
            &self.state.session,
            agent,
            step,
            &kind_of,
        )?)
    }

    /// The protocol of a logged provider: the current route's, else the environment's.
    fn kind_of(&self) -> impl Fn(&str) -> Option<crate::llm::types::ProviderKind> + '_ {
        let current = (
            self.services.route.provider.clone(),
            self.services.route.kind,
        );
        let env = &self.services.env;
        move |provider: &str| {
            if provider == current.0 {
                return Some(current.1);
            }
            env.provider_kind(provider)
        }
    }

    /// The rendered system prompt: the configured base plus `/system` instructions.
    pub(crate) fn render_prompt(&self) -> String {
        crate::agent::environment::render_prompt(
            self.services.env.as_ref(),
            self.state.extra_instructions.as_deref(),
        )
    }
}
