//! Waiting for DL2's bundled network: a comparison or a step of a parameter-server
//! experiment asked for before the page has fetched the network waits for it
//! ([`crate::network`]) and goes on when it arrives.

use super::{AfterNetwork, App, Msg};
use crate::network;
use yew::prelude::*;

impl App {
    /// Whether `then` must wait for the bundled network; if so it is kept, the network is
    /// fetched (unless a fetch is under way) and a notice says so.
    pub(super) fn wait_for_network(&mut self, ctx: &Context<Self>, then: AfterNetwork) -> bool {
        if !network::missing(&self.exp, self.mech) {
            return false;
        }
        self.after_network.push(then);
        self.notice = Some((true, "Loading DL2's bundled network…".into()));
        let link = ctx.link().clone();
        network::fetch(move |outcome| link.send_message(Msg::Network(outcome)));
        true
    }

    /// The network arrived (or could not): what waited for it goes on (or says why not).
    pub(super) fn network_arrived(
        &mut self,
        ctx: &Context<Self>,
        outcome: Result<(), String>,
    ) -> bool {
        let waiting = std::mem::take(&mut self.after_network);
        if !waiting.is_empty() {
            self.notice = None;
        }
        match outcome {
            Ok(()) => {
                for then in waiting {
                    match then {
                        AfterNetwork::Compare => self.start_compare(ctx),
                        AfterNetwork::Step(m) => {
                            self.step_update(ctx, m);
                        }
                    }
                }
            }
            Err(e) => {
                for then in waiting {
                    match then {
                        AfterNetwork::Compare => self.errors.run = Some(e.clone()),
                        AfterNetwork::Step(_) => self.step.error = Some(e.clone()),
                    }
                }
                if self.errors.run.is_none() {
                    self.errors.run = Some(e);
                }
            }
        }
        true
    }
}
