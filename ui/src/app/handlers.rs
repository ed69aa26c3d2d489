//! The panels' message handlers, made once with the App: a Yew callback equals only
//! itself, so handlers made anew in every render would make every panel's properties
//! differ from the last render's and every panel render again after each message (a
//! stepped interval would redraw the results, the settings and the intro).

use super::msg::*;
use super::App;
use yew::html::Scope;
use yew::Callback;

/// One handler per panel message.
pub struct Handlers {
    pub workload: Callback<WorkloadMsg>,
    pub pai: Callback<PaiMsg>,
    pub import: Callback<ImportMsg>,
    pub cluster: Callback<ClusterMsg>,
    pub policies: Callback<PolicyMsg>,
    pub settings: Callback<SettingsMsg>,
    pub pool: Callback<PoolMsg>,
    pub preempt: Callback<PreemptMsg>,
    pub dl2: Callback<Dl2Msg>,
    pub faults: Callback<FaultsMsg>,
    pub train: Callback<TrainMsg>,
    pub run: Callback<RunMsg>,
    pub view: Callback<ViewMsg>,
    pub step: Callback<StepMsg>,
}

impl Handlers {
    /// The handlers sending to `link`'s App.
    pub fn new(link: &Scope<App>) -> Self {
        Handlers {
            workload: link.callback(Msg::Workload),
            pai: link.callback(Msg::Pai),
            import: link.callback(Msg::Import),
            cluster: link.callback(Msg::Cluster),
            policies: link.callback(Msg::Policies),
            settings: link.callback(Msg::Settings),
            pool: link.callback(Msg::Pool),
            preempt: link.callback(Msg::Preempt),
            dl2: link.callback(Msg::Dl2),
            faults: link.callback(Msg::Faults),
            train: link.callback(Msg::Train),
            run: link.callback(Msg::Run),
            view: link.callback(Msg::View),
            step: link.callback(Msg::Step),
        }
    }
}
