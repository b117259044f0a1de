//! Demo mode's simulator: started in process, and the routes pointed at it.

use crate::i18n::{Arg, Localizer};
use crate::llm::types::{ProviderKind, Route};

use super::setup::StartupError;

/// Starts the in-process simulator for demo mode (it runs while the handle lives).
pub async fn start_demo_sim(
    latency: std::time::Duration,
    l: Localizer,
    demo_locale: crate::sim::DemoLocale,
) -> Result<crate::sim::SimHandle, StartupError> {
    let cfg = crate::sim::SimConfig {
        latency,
        demo_locale,
        guided_demo: true,
        ..Default::default()
    };
    crate::sim::start(cfg)
        .await
        .map_err(|e| StartupError(l.tra("app-sim-failed", &[("error", Arg::from(e.to_string()))])))
}

/// Points a route at the in-process simulator.
pub fn demo_route(mut route: Route, sim_base: &str) -> Route {
    route.base_url = match route.kind {
        ProviderKind::DeepseekMessages => format!("{sim_base}/anthropic"),
        ProviderKind::OpenaiChat => sim_base.to_string(),
    };
    route
}
