//! The simulation the page steps through on its own thread (one policy, one step at a
//! time), shared by the App, which steps it, and the stepping panel, which shows it.

use crate::experiment::Resolved;
use crate::metrics::Recorder;
use crate::sim::elastic::ElasticSimulator;
use crate::sim::pooled::PooledSimulator;
use crate::sim::preemptive::PreemptiveSimulator;
use crate::sim::slots::SlotSimulator;
use crate::sim::{Mechanism, RoundReport, SimEvent, Simulation, Simulator};
use std::cell::{Ref, RefCell};
use std::rc::Rc;

/// The simulator being stepped, in its mechanism.
pub enum StepSim {
    /// Rounds of the round-based simulator.
    Rounds(Box<Simulator>),
    /// Ticks of the elastic simulator.
    Elastic(Box<ElasticSimulator>),
    /// Ticks of the pooled (Aryl) simulator, with the experiment and the ticks done.
    Pooled(Box<PooledSimulator>, Rc<Resolved>, u64),
    /// Events of the preemptive (PickyMan) simulator, with the experiment and the events
    /// done.
    Preemptive(Box<PreemptiveSimulator>, Rc<Resolved>, u64),
    /// Slots of the slot (DL2) simulator, with the experiment and the slots done.
    Slots(Box<SlotSimulator>, Rc<Resolved>, u64),
}

impl StepSim {
    /// The simulation of one policy of the experiment `r`, in the simulator that runs it.
    fn new(sim: Simulation, r: &Rc<Resolved>) -> Self {
        match sim {
            Simulation::Rounds(s) => StepSim::Rounds(s),
            Simulation::Elastic(s) => StepSim::Elastic(s),
            Simulation::Pooled(s) => StepSim::Pooled(s, Rc::clone(r), 0),
            Simulation::Preemptive(s) => StepSim::Preemptive(s, Rc::clone(r), 0),
            Simulation::Slots(s) => StepSim::Slots(s, Rc::clone(r), 0),
        }
    }

    /// The simulation behind the one stepping interface.
    fn sim(&self) -> &dyn crate::sim::Stepper {
        match self {
            StepSim::Rounds(s) => s.as_ref(),
            StepSim::Elastic(s) => s.as_ref(),
            StepSim::Pooled(s, _, _) => s.as_ref(),
            StepSim::Preemptive(s, _, _) => s.as_ref(),
            StepSim::Slots(s, _, _) => s.as_ref(),
        }
    }

    fn step_round(&mut self) -> Option<RoundReport> {
        let (sim, count): (&mut dyn crate::sim::Stepper, Option<&mut u64>) = match self {
            StepSim::Rounds(s) => (s.as_mut(), None),
            StepSim::Elastic(s) => (s.as_mut(), None),
            StepSim::Pooled(s, _, n) => (s.as_mut(), Some(n)),
            StepSim::Preemptive(s, _, n) => (s.as_mut(), Some(n)),
            StepSim::Slots(s, _, n) => (s.as_mut(), Some(n)),
        };
        let r = sim.step();
        if let Some(n) = count {
            *n += u64::from(r.is_some());
        }
        r
    }

    /// Simulated seconds so far.
    pub fn now(&self) -> f64 {
        self.sim().now()
    }

    /// Steps done: rounds, ticks, events or slots.
    pub fn round(&self) -> u64 {
        match self {
            StepSim::Rounds(s) => s.round(),
            StepSim::Elastic(s) => s.round(),
            StepSim::Pooled(_, _, ticks) => *ticks,
            StepSim::Preemptive(_, _, steps) => *steps,
            StepSim::Slots(_, _, slots) => *slots,
        }
    }

    /// Whether every job is done.
    pub fn is_done(&self) -> bool {
        self.sim().is_done()
    }

    /// The mechanism of the simulation (PickyMan steps from event to event in a round-based
    /// experiment too).
    pub fn mechanism(&self) -> Mechanism {
        self.sim().mechanism()
    }
}

/// A stepping simulation on the page's thread, with what it recorded.
pub struct Stepper {
    /// The simulation.
    pub sim: StepSim,
    /// Its events so far.
    pub rec: Recorder,
    /// The events of the last step.
    pub last_events: Vec<SimEvent>,
}

/// The stepping run, shared by the App (which steps it) and the stepping panel (which shows
/// it). Two handles are equal when they are the same run after the same number of steps.
#[derive(Clone)]
pub struct StepRun {
    run: Rc<RefCell<Stepper>>,
    steps: u64,
}

impl PartialEq for StepRun {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.run, &other.run) && self.steps == other.steps
    }
}

impl StepRun {
    /// A run of the simulation `sim` of the experiment `r`, at its start.
    pub fn new(sim: Simulation, r: &Rc<Resolved>) -> Self {
        let mut rec = Recorder::new(&r.trace.jobs, r.cluster.num_types());
        rec.preemption.enabled = r.preemption.is_some();
        StepRun {
            run: Rc::new(RefCell::new(Stepper {
                sim: StepSim::new(sim, r),
                rec,
                last_events: Vec::new(),
            })),
            steps: 0,
        }
    }

    /// One step; false when the simulation is over.
    pub fn step(&mut self) -> bool {
        self.steps += 1;
        let Ok(mut st) = self.run.try_borrow_mut() else {
            return false;
        };
        match st.sim.step_round() {
            Some(report) => {
                for e in &report.events {
                    st.rec.observe(e);
                }
                st.last_events = report.events;
                true
            }
            None => false,
        }
    }

    /// The run as it is now (None only while it is being stepped).
    pub fn get(&self) -> Option<Ref<'_, Stepper>> {
        self.run.try_borrow().ok()
    }
}
