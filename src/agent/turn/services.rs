//! What a turn calls, as one owned value: the provider route and its client, the retry
//! policy, the surroundings, the hooks, the checkpointer and the sandbox. The agent owns
//! it (built whole by the agent's builder) and lends it to a
//! [`super::TurnRunner`] as one borrow, so a new service is one field here, not one more
//! borrowed field on the runner.

use crate::agent::environment::Environment;
use crate::agent::hooks::Hooks;
use crate::checkpoint::Checkpointer;
use crate::llm::client::ProviderClient;
use crate::llm::retry::RetryPolicy;
use crate::llm::types::Route;
use crate::sandbox::handle::SandboxHandle;
use crate::session::effort::Effort;

/// The services a turn calls; `/model` replaces the route and client together.
pub struct TurnServices {
    /// The route requests go to.
    pub(crate) route: Route,
    /// The provider client for [`TurnServices::route`].
    pub(crate) client: ProviderClient,
    /// How failed attempts are retried (E-16).
    pub(crate) retry: RetryPolicy,
    /// The surroundings: instructions, configured effort, sessions, routes. Boxed and only
    /// `Send`: a turn's future holds it across awaits.
    pub(crate) env: Box<dyn Environment>,
    /// The configured hooks (SPEC §14.4).
    pub(crate) hooks: Hooks,
    /// Checkpoints of the workspace (SPEC §14.3); off unless the app turns them on.
    pub(crate) checkpoints: Checkpointer,
    /// The sandbox mode and write scope the acting tools read (SPEC §14.2).
    pub(crate) sandbox: SandboxHandle,
    /// How many subagents of one step run at once (`[tools] max_subagents`, SPEC §15.3).
    pub(crate) max_subagents: usize,
}

impl TurnServices {
    /// The effort of the next request: the session's `/effort` (`chosen`), else the
    /// config's for the route, else none (SPEC §14.4).
    pub(crate) fn effort(&self, chosen: Option<Effort>) -> Option<Effort> {
        self.env.effort(chosen, &self.route)
    }
}
