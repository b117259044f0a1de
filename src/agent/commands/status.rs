//! `/status` and `/cost` (SPEC §14.5): what the session runs on and what it has used,
//! as typed output lines, the same in the TUI and `exec`.

use crate::agent::commands::CommandContext;
use crate::i18n::{Arg, Text};
use crate::llm::catalog::{builtin_prices, format_usd};
use crate::session::event::{EventKind, Usage};
use crate::tools::mcp::McpReply;

/// One route's share of the session: its usage, and the requests whose usage is unknown
/// (they count neither tokens nor cost).
#[derive(Debug, Default)]
struct RouteUse {
    route: String,
    model: String,
    usage: Usage,
    unknown: usize,
}

impl CommandContext<'_> {
    /// The session's replies folded per route, in the order the routes were first used.
    fn route_uses(&self) -> Vec<RouteUse> {
        let mut out: Vec<RouteUse> = Vec::new();
        let mut current: Option<(String, String)> = None;
        for ev in self.session().events() {
            match &ev.kind {
                EventKind::RequestContext(c) => {
                    current = Some((format!("{}/{}", c.provider, c.model), c.model.clone()));
                }
                EventKind::AssistantMessage(d) => {
                    let Some((route, model)) = current.clone() else {
                        continue;
                    };
                    let i = match out.iter().position(|r| r.route == route) {
                        Some(i) => i,
                        None => {
                            out.push(RouteUse {
                                route,
                                model,
                                ..RouteUse::default()
                            });
                            out.len() - 1
                        }
                    };
                    match &d.usage {
                        Some(u) => out[i].usage.add(u),
                        None => out[i].unknown += 1,
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The cost of one route's usage: at the current route's prices when it is that
    /// route, else at the built-in prices of its model; `None` when no price is known.
    fn route_cost(&self, r: &RouteUse) -> Option<f64> {
        let prices = if r.route == self.route().id() {
            self.route().caps.prices
        } else {
            builtin_prices(&r.model)
        }?;
        Some(prices.cost(&r.usage))
    }

    /// The session's total cost: `None` unless every route that was used is priced.
    fn total_cost(&self, uses: &[RouteUse]) -> Option<f64> {
        uses.iter().map(|r| self.route_cost(r)).sum()
    }

    fn token_line(u: &Usage) -> Text {
        Text::new(
            "status-tokens",
            vec![
                ("input", Arg::from(u.input_tokens)),
                ("cached", Arg::from(u.cache_read_tokens)),
                ("output", Arg::from(u.output_tokens)),
            ],
        )
    }

    /// What the agent may do and how hard it thinks (SPEC §14.2, §14.4): the sandbox mode
    /// and network, the approval policy and the effort, as the footer shows them.
    fn controls_lines(&self) -> Vec<Text> {
        let mode = Text::new(
            "status-mode",
            vec![
                ("mode", Arg::from(self.services.sandbox.mode().as_str())),
                (
                    "network",
                    Arg::from(crate::agent::mode::network_arg(
                        self.services.sandbox.network,
                    )),
                ),
            ],
        );
        let approval = match self.tools_acting() {
            Some(acting) => {
                let policy = acting
                    .approvals
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .setup()
                    .policy;
                Text::new(
                    "status-approval",
                    vec![("policy", Arg::from(policy.as_str()))],
                )
            }
            None => Text::new("status-approval-none", vec![]),
        };
        let effort = match self.effort() {
            Some(e) => Text::new("status-effort", vec![("effort", Arg::from(e.as_str()))]),
            None => Text::new("status-effort-default", vec![]),
        };
        vec![mode, approval, effort]
    }

    /// `/status`: route, workspace, session, mode, approval policy, effort, tokens, cost,
    /// cache hit and MCP servers.
    pub(crate) async fn status_lines(&mut self) -> Vec<Text> {
        let uses = self.route_uses();
        let mut usage = Usage::default();
        for r in &uses {
            usage.add(&r.usage);
        }
        let unknown: usize = uses.iter().map(|r| r.unknown).sum();
        let root = crate::tools::walk::current_root();
        let mut lines = vec![
            Text::new("status-title", vec![]),
            Text::new(
                "status-route",
                vec![("route", Arg::from(self.route().id()))],
            ),
            Text::new(
                "status-workspace",
                vec![("path", Arg::from(root.display().to_string()))],
            ),
            Text::new(
                "status-session",
                vec![("id", Arg::from(self.session().id().to_string()))],
            ),
        ];
        lines.extend(self.controls_lines());
        lines.push(Self::token_line(&usage));
        lines.push(match self.total_cost(&uses) {
            Some(c) if !uses.is_empty() => {
                Text::new("status-cost", vec![("cost", Arg::from(format_usd(c)))])
            }
            _ if uses.is_empty() => {
                Text::new("status-cost", vec![("cost", Arg::from(format_usd(0.0)))])
            }
            _ => Text::new("status-cost-unpriced", vec![]),
        });
        lines.push(match usage.hit_percent() {
            Some(h) => Text::new("status-cache", vec![("hit", Arg::from(h))]),
            None => Text::new("status-cache-none", vec![]),
        });
        if unknown > 0 {
            lines.push(Text::new(
                "status-usage-unknown",
                vec![("count", Arg::from(unknown))],
            ));
        }
        // The servers and their states, as `/mcp` lists them.
        match self.mcp() {
            Some(m) => match m.status_reply() {
                McpReply::Output(more) => lines.extend(more),
                McpReply::Info(k, a) | McpReply::Warn(k, a) => lines.push(Text::new(k, a)),
                McpReply::Failed(a) => lines.push(Text::new(McpReply::FAILED, a)),
            },
            None => lines.push(Text::new("mcp-none-configured", vec![])),
        }
        lines
    }

    /// `/cost`: tokens and cost per route, then the total; unknown usage said as such.
    pub(crate) fn cost_lines(&self) -> Vec<Text> {
        let uses = self.route_uses();
        let mut lines = vec![Text::new("cost-title", vec![])];
        if uses.is_empty() {
            lines.push(Text::new("cost-none", vec![]));
            return lines;
        }
        for r in &uses {
            let mut args = vec![
                ("route", Arg::from(r.route.clone())),
                ("input", Arg::from(r.usage.input_tokens)),
                ("cached", Arg::from(r.usage.cache_read_tokens)),
                ("output", Arg::from(r.usage.output_tokens)),
            ];
            let key = match self.route_cost(r) {
                Some(c) => {
                    args.push(("cost", Arg::from(format_usd(c))));
                    "cost-route"
                }
                None => "cost-route-unpriced",
            };
            lines.push(Text::new(key, args));
            if r.unknown > 0 {
                lines.push(Text::new(
                    "status-usage-unknown",
                    vec![("count", Arg::from(r.unknown))],
                ));
            }
        }
        lines.push(match self.total_cost(&uses) {
            Some(c) => Text::new("cost-total", vec![("cost", Arg::from(format_usd(c)))]),
            None => Text::new("cost-total-unpriced", vec![]),
        });
        lines
    }
}
