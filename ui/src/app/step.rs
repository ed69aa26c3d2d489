//! Stepping through one policy's run in a worker: one step, play and pause, run to the end,
//! back to the start. The worker sets the run up and steps it; the page shows the board it
//! sends back after each request, so neither a huge workload's set-up nor its steps hold the
//! page's thread.

use super::{App, Msg, StepMsg};
use crate::stepper::StepSession;
use crate::worker::FromWorker;
use std::rc::Rc;
use yew::prelude::*;

/// Milliseconds of steps per request when playing as fast as possible.
const PLAY_BUDGET_MS: f64 = 40.0;

impl App {
    /// A message of the stepping panel (or of the keys); returns whether to render.
    pub(super) fn step_update(&mut self, ctx: &Context<Self>, msg: StepMsg) -> bool {
        let starts = matches!(msg, StepMsg::Step | StepMsg::TogglePlay | StepMsg::RunToEnd);
        // A step of a parameter-server experiment waits for DL2's bundled network.
        if starts && self.step.run.is_none() && crate::network::missing(&self.exp, self.mech) {
            return self.wait_for_network(ctx, super::AfterNetwork::Step(msg));
        }
        let step = &mut self.step;
        match msg {
            StepMsg::Policy(p) => {
                step.policy = p;
                self.stop_stepping();
            }
            StepMsg::Step => {
                step.playing = false;
                step.play_gen += 1;
                self.request_steps(ctx, 1, 0.0);
            }
            StepMsg::TogglePlay => {
                step.playing = !step.playing;
                step.play_gen += 1;
                if step.playing {
                    self.play_next(ctx);
                }
            }
            StepMsg::Tick(generation) => {
                if !step.playing || generation != step.play_gen {
                    return false;
                }
                self.play_next(ctx);
            }
            StepMsg::Speed(v) => step.speed_ms = v.parse().unwrap_or(200),
            StepMsg::RunToEnd => {
                step.speed_ms = 0;
                if !step.playing {
                    return self.step_update(ctx, StepMsg::TogglePlay);
                }
            }
            StepMsg::Reset => self.stop_stepping(),
            StepMsg::AllRows(all) => {
                step.all = all;
                if let Some(s) = step.run.as_mut() {
                    s.ask(0, 0.0, all);
                }
            }
            StepMsg::Answer(session, m) => {
                if session != step.session {
                    return false;
                }
                self.step_answer(ctx, *m);
            }
        }
        true
    }

    /// Drop the stepping run (its worker ends) and stop playing.
    pub(super) fn stop_stepping(&mut self) {
        self.step.run = None;
        self.step.playing = false;
        self.step.play_gen += 1;
    }

    /// The next request of play: a time budget of steps at full speed, else one step.
    fn play_next(&mut self, ctx: &Context<Self>) {
        let budget = if self.step.speed_ms == 0 {
            PLAY_BUDGET_MS
        } else {
            0.0
        };
        self.request_steps(ctx, 1, budget);
    }

    /// Ask the worker for `steps` steps (or steps during `budget_ms`), setting the run up
    /// first when there is none.
    fn request_steps(&mut self, ctx: &Context<Self>, steps: u32, budget_ms: f64) {
        if let Some(s) = self.step.run.as_mut() {
            if s.done() {
                self.step.playing = false;
            } else {
                s.ask(steps, budget_ms, self.step.all);
            }
            return;
        }
        let spec = self.step_spec();
        if spec.is_empty() {
            self.step.error = Some("select a policy first".into());
            self.step.playing = false;
            return;
        }
        self.step.session += 1;
        let session = self.step.session;
        let link = ctx.link().clone();
        let started = StepSession::start(
            &self.exp,
            &spec,
            steps,
            budget_ms,
            self.step.all,
            move |m| link.send_message(Msg::Step(StepMsg::Answer(session, Box::new(m)))),
        );
        match started {
            Ok(s) => {
                self.step.run = Some(s);
                self.step.error = None;
            }
            Err(e) => {
                self.step.error = Some(e);
                self.step.playing = false;
            }
        }
    }

    /// The worker's answer: show the board, then send the steps asked for meanwhile or the
    /// next request of play.
    fn step_answer(&mut self, ctx: &Context<Self>, m: FromWorker) {
        match m {
            FromWorker::Stepped(board, marks) => {
                let Some(s) = self.step.run.as_mut() else {
                    return;
                };
                s.busy = false;
                s.board = Some(Rc::new(*board));
                s.marks = marks.map(|m| Rc::new(*m));
                self.step.error = None;
                let rows_changed = std::mem::take(&mut s.rows_changed);
                if (s.queued > 0 && !s.done()) || rows_changed {
                    let n = if s.done() { 0 } else { s.queued };
                    s.queued = 0;
                    s.ask(n, 0.0, self.step.all);
                } else if s.done() {
                    s.queued = 0;
                    self.step.playing = false;
                } else if self.step.playing {
                    self.schedule_tick(ctx);
                }
            }
            FromWorker::Failed(e) => {
                self.stop_stepping();
                self.step.error = Some(e);
            }
            _ => {}
        }
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
