//! The App's messages: one kind per panel (each panel reports its edits as its own kind),
//! and the page's own (the header, keys, the comparison, stepping and training).

use web_sys::KeyboardEvent;

pub use crate::events::{
    ClusterMsg, Dl2Msg, Export, FaultsMsg, PaiMsg, PaiTable, PolicyMsg, PoolMsg, PreemptMsg,
    RunMsg, SettingsMsg, SortBy, StepMsg, TrainMsg, ViewMsg, WorkloadMsg,
};
pub use crate::panels::import::form::ImportMsg;

/// Messages of the App.
pub enum Msg {
    /// Load a bundled scenario (the whole experiment) and run it.
    Scenario(String),
    /// Copy the share link.
    CopyLink,
    /// A key was pressed.
    Key(KeyboardEvent),
    /// Show or fold the settings panels (on a narrow screen).
    ToggleControls,
    /// An edit of the Workload panel.
    Workload(WorkloadMsg),
    /// The Alibaba PAI import block of the Import panel.
    Pai(PaiMsg),
    /// An edit of the Import panel (Alibaba's spot GPU trace, Acme's job tables).
    Import(ImportMsg),
    /// An edit of the Cluster panel.
    Cluster(ClusterMsg),
    /// An edit of the Policies panel.
    Policies(PolicyMsg),
    /// An edit of the Run settings panel.
    Settings(SettingsMsg),
    /// An edit of the Inference pool panel.
    Pool(PoolMsg),
    /// An edit of the Preemption panel.
    Preempt(PreemptMsg),
    /// An edit of the DL2 panel.
    Dl2(Dl2Msg),
    /// An edit of the Failures & spot panel.
    Faults(FaultsMsg),
    /// DL2's training.
    Train(TrainMsg),
    /// The comparison in the worker.
    Run(RunMsg),
    /// What the result panels show.
    View(ViewMsg),
    /// Stepping through one policy's run.
    Step(StepMsg),
    /// Compute the trace's shape, deferred until the page's first comparison ended.
    Shape,
    /// DL2's bundled network was fetched (or could not be).
    Network(Result<(), String>),
}

/// What waits for DL2's bundled network to arrive.
pub enum AfterNetwork {
    /// The comparison.
    Compare,
    /// A step (or play) of the stepping run.
    Step(StepMsg),
}
