//! The policy's decision on the servers not away: while servers are away (for repair, or
//! spot instances taken back), the policy sees the cluster without them, as a smaller
//! cluster of the servers left (their virtual servers renumbered in order, the jobs'
//! allocations with them), and its answer is read back onto the whole cluster. With every
//! server up it sees the cluster as it is.

use super::{build_view, ElasticJobState, ElasticSimulator};
use crate::model::job::JobId;

/// The ids of the jobs a policy saw and its answer (virtual servers of the whole cluster
/// per job), or why it failed.
pub(super) type Decision = (Vec<JobId>, Result<Vec<Vec<u32>>, String>);

impl ElasticSimulator {
    /// The policy's decision at the current time, on the servers not away; None when no
    /// job is active or every server is away.
    pub(super) fn decide(&mut self) -> Option<Decision> {
        let now = self.now;
        let Some(away) = self.servers_away(now).map(<[bool]>::to_vec) else {
            let view = build_view(
                (now, self.config.restart.delay_s),
                (self.num_nodes, self.gpus_per_node),
                (&self.vnode_types, &self.vnode_servers, &self.type_names),
                &self.specs,
                &self.apps,
                &self.states,
            );
            if view.jobs.is_empty() {
                return None;
            }
            let ids: Vec<JobId> = view.jobs.iter().map(|j| j.id).collect();
            let decision = self.policy.decide(&view, &mut self.rng);
            drop(view);
            let decision = decision.map_err(|e| e.to_string()).and_then(|d| {
                self.valid(&d, ids.len(), self.num_nodes as usize)
                    .map(|()| d)
            });
            return Some((ids, decision));
        };
        // The virtual servers up, in order: the view's servers.
        let up: Vec<u32> = (0..self.vnodes.len())
            .filter(|&v| !away.get(v).copied().unwrap_or(false))
            .map(|v| v as u32)
            .collect();
        if up.is_empty() {
            return None;
        }
        let mut to_view = vec![None; self.vnodes.len()];
        for (k, &v) in up.iter().enumerate() {
            to_view[v as usize] = Some(k as u32);
        }
        let states: Vec<ElasticJobState> = self
            .states
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.allocation = s
                    .allocation
                    .iter()
                    .filter_map(|&v| to_view.get(v as usize).copied().flatten())
                    .collect();
                s
            })
            .collect();
        let types: Vec<usize> = up.iter().map(|&v| self.vnode_types[v as usize]).collect();
        let servers: Vec<u32> = up.iter().map(|&v| self.vnode_servers[v as usize]).collect();
        let view = build_view(
            (now, self.config.restart.delay_s),
            (up.len() as u32, self.gpus_per_node),
            (&types, &servers, &self.type_names),
            &self.specs,
            &self.apps,
            &states,
        );
        if view.jobs.is_empty() {
            return None;
        }
        let ids: Vec<JobId> = view.jobs.iter().map(|j| j.id).collect();
        let decision = self.policy.decide(&view, &mut self.rng);
        drop(view);
        let decision = decision
            .map_err(|e| e.to_string())
            .and_then(|d| self.valid(&d, ids.len(), up.len()).map(|()| d))
            .map(|d| {
                d.into_iter()
                    .map(|a| a.into_iter().map(|v| up[v as usize]).collect())
                    .collect()
            });
        Some((ids, decision))
    }
}
