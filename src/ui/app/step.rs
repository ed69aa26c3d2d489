//! Stepping through one policy's run on the page's thread: one step, play and pause, run to
//! the end, back to the start.

use super::{App, Msg, StepMsg};
use crate::ui::now_ms;
use crate::ui::stepper::StepRun;
use yew::prelude::*;

/// Workloads from this many jobs get a note before their stepping run is set up.
const LARGE_SETUP_JOBS: usize = 100_000;

impl App {
    /// A message of the stepping panel (or of the keys); returns whether to render.
    pub(super) fn step_update(&mut self, ctx: &Context<Self>, msg: StepMsg) -> bool {
        let starts = matches!(msg, StepMsg::Step | StepMsg::TogglePlay | StepMsg::RunToEnd);
        // A step of a parameter-server experiment waits for DL2's bundled network.
        if starts && self.step.run.is_none() && crate::ui::network::missing(&self.exp, self.mech) {
            return self.wait_for_network(ctx, super::AfterNetwork::Step(msg));
        }
        if let Some(msg) = self.set_up_first(ctx, msg) {
            return self.step_update_now(ctx, msg);
        }
        true
    }

    /// Before the first step of a large workload (its setup holds the page's thread for a
    /// while), show a note and come back a frame later; the message to handle now, if any.
    fn set_up_first(&mut self, ctx: &Context<Self>, msg: StepMsg) -> Option<StepMsg> {
        let starts = matches!(msg, StepMsg::Step | StepMsg::TogglePlay | StepMsg::RunToEnd);
        if !starts || self.step.run.is_some() || self.step.playing {
            return Some(msg);
        }
        if self.step.preparing.take().is_some() {
            return Some(msg);
        }
        let exp = self.exp.clone();
        let jobs = self.resolve_cached(&exp).map_or(0, |r| r.trace.jobs.len());
        if jobs < LARGE_SETUP_JOBS {
            return Some(msg);
        }
        self.step.preparing = Some(jobs);
        let link = ctx.link().clone();
        yew::platform::spawn_local(async move {
            yew::platform::time::sleep(std::time::Duration::from_millis(50)).await;
            link.send_message(Msg::Step(msg));
        });
        None
    }

    /// A message of the stepping panel, handled now; returns whether to render.
    fn step_update_now(&mut self, ctx: &Context<Self>, msg: StepMsg) -> bool {
        let step = &mut self.step;
        match msg {
            StepMsg::Policy(p) => {
                step.policy = p;
                step.run = None;
                step.playing = false;
            }
            StepMsg::Step => {
                step.playing = false;
                self.step_once();
            }
            StepMsg::TogglePlay => {
                step.playing = !step.playing;
                step.play_gen += 1;
                if step.playing {
                    self.schedule_tick(ctx);
                }
            }
            StepMsg::Tick(generation) => {
                if !step.playing || generation != step.play_gen {
                    return false;
                }
                // At full speed, as many steps as fit in about 40 ms, then a frame.
                let budget_ms = if step.speed_ms == 0 { 40.0 } else { 0.0 };
                let started = now_ms();
                loop {
                    if !self.step_once() {
                        self.step.playing = false;
                        break;
                    }
                    if now_ms() - started >= budget_ms {
                        break;
                    }
                }
                if self.step.playing {
                    self.schedule_tick(ctx);
                }
            }
            StepMsg::Speed(v) => step.speed_ms = v.parse().unwrap_or(200),
            StepMsg::RunToEnd => {
                step.speed_ms = 0;
                if !step.playing {
                    return self.step_update_now(ctx, StepMsg::TogglePlay);
                }
            }
            StepMsg::Reset => {
                step.run = None;
                step.playing = false;
                step.play_gen += 1;
            }
        }
        true
    }

    /// Make the stepping run of the policy stepped through, unless there is one; false
    /// (with a message) when it cannot be made.
    fn ensure_stepper(&mut self) -> bool {
        if self.step.run.is_some() {
            return true;
        }
        let spec = self.step_spec();
        if spec.is_empty() {
            self.step.error = Some("select a policy first".into());
            return false;
        }
        let exp = self.exp.clone();
        let made = self.resolve_cached(&exp).and_then(|r| {
            let sim = r.simulation(&spec).map_err(|e| e.to_string())?;
            Ok(StepRun::new(sim, &r))
        });
        match made {
            Ok(run) => {
                self.step.run = Some(run);
                self.step.error = None;
                true
            }
            Err(e) => {
                self.step.error = Some(e);
                false
            }
        }
    }

    /// One step (making the run first if needed); false when there is none to take.
    fn step_once(&mut self) -> bool {
        if !self.ensure_stepper() {
            return false;
        }
        self.step.run.as_mut().is_some_and(StepRun::step)
    }

    /// The next tick of play, after the speed's delay.
    fn schedule_tick(&self, ctx: &Context<Self>) {
        let link = ctx.link().clone();
        let generation = self.step.play_gen;
        let delay = self.step.speed_ms;
        yew::platform::spawn_local(async move {
            yew::platform::time::sleep(std::time::Duration::from_millis(u64::from(delay))).await;
            link.send_message(Msg::Step(StepMsg::Tick(generation)));
        });
    }
}
