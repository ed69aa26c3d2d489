//! The cluster as Sia sees it: real servers of each GPU type, the configurations a job may
//! be given on each, and the placement of chosen configurations onto servers.
//!
//! Configurations on a type with servers of `s` GPUs: one server with 1, 2, 4 (and 8 when
//! `s` is 8) GPUs, then `n` whole servers for `n` from 2 up to the type's servers (at most
//! 16 servers of 4 or 8 of 8, as in Sia's artifact).
//!
//! The elastic simulator shows policies *virtual servers* of the smallest server size; a
//! real server of 8 GPUs beside servers of 4 is two of them. A placement here takes GPUs of
//! real servers and names them by their virtual servers (first the first one's GPUs).

use crate::sim::elastic::contract::ElasticView;

/// One configuration: `gpus` GPUs over `nodes` servers of type `ty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// GPU type (index into the view's types).
    pub ty: usize,
    /// Servers spanned.
    pub nodes: u32,
    /// GPUs.
    pub gpus: u32,
}

/// A real server.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// Its GPU type.
    pub ty: usize,
    /// The virtual servers (ids in allocations) it is made of, in order.
    pub vnodes: Vec<u32>,
    /// GPUs.
    pub size: u32,
}

/// The servers of a view and the configurations they offer.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Real servers in view order.
    pub servers: Vec<Server>,
    /// Per type, the indices of its servers.
    pub by_type: Vec<Vec<usize>>,
    /// Per type, GPUs per server (0 for a type with none).
    pub server_size: Vec<u32>,
    /// GPUs of each type.
    pub capacity: Vec<u32>,
    /// Every configuration, type by type.
    pub configs: Vec<Config>,
    gpus_per_vnode: u32,
}

impl Layout {
    /// The layout of `view`'s servers.
    pub fn new(view: &ElasticView) -> Self {
        let types = view.gpu_types.len();
        let mut servers: Vec<Server> = Vec::new();
        for v in 0..view.num_nodes {
            let ty = view.node_types.get(v as usize).copied().unwrap_or(0);
            let real = view.node_servers.get(v as usize).copied().unwrap_or(v);
            let same = servers.last().is_some_and(|s| {
                s.ty == ty
                    && s.vnodes
                        .last()
                        .and_then(|&l| view.node_servers.get(l as usize))
                        .is_some_and(|&r| r == real)
            });
            match servers.last_mut() {
                Some(s) if same => {
                    s.vnodes.push(v);
                    s.size += view.gpus_per_node;
                }
                _ => servers.push(Server {
                    ty,
                    vnodes: vec![v],
                    size: view.gpus_per_node,
                }),
            }
        }
        let mut by_type = vec![Vec::new(); types];
        let mut server_size = vec![0; types];
        let mut capacity = vec![0; types];
        for (i, s) in servers.iter().enumerate() {
            if let Some(b) = by_type.get_mut(s.ty) {
                b.push(i);
                server_size[s.ty] = server_size[s.ty].max(s.size);
                capacity[s.ty] += s.size;
            }
        }
        let mut configs = Vec::new();
        for ty in 0..types {
            let size = server_size[ty];
            let count = by_type[ty].len() as u32;
            if size == 0 || count == 0 {
                continue;
            }
            for g in [1u32, 2, 4, 8] {
                if g <= size && (g == 1 || size.is_multiple_of(g)) {
                    configs.push(Config {
                        ty,
                        nodes: 1,
                        gpus: g,
                    });
                }
            }
            if !configs.last().is_some_and(|c| c.ty == ty && c.gpus == size) {
                configs.push(Config {
                    ty,
                    nodes: 1,
                    gpus: size,
                });
            }
            let most = if size <= 4 { 16 } else { 8 };
            for n in 2..=count.min(most) {
                configs.push(Config {
                    ty,
                    nodes: n,
                    gpus: n * size,
                });
            }
        }
        Layout {
            servers,
            by_type,
            server_size,
            capacity,
            configs,
            gpus_per_vnode: view.gpus_per_node,
        }
    }

    /// The configuration of an allocation (virtual servers, one entry per GPU), when it is
    /// one of [`Layout::configs`] on one type.
    pub fn config_of(&self, view: &ElasticView, allocation: &[u32]) -> Option<usize> {
        let &first = allocation.first()?;
        let ty = *view.node_types.get(first as usize)?;
        let mut reals: Vec<u32> = Vec::new();
        for &v in allocation {
            if view.node_types.get(v as usize) != Some(&ty) {
                return None;
            }
            let r = *view.node_servers.get(v as usize)?;
            if !reals.contains(&r) {
                reals.push(r);
            }
        }
        let c = Config {
            ty,
            nodes: reals.len() as u32,
            gpus: allocation.len() as u32,
        };
        self.configs.iter().position(|&x| x == c)
    }

    /// Free GPUs of every virtual server, all of them.
    pub fn all_free(&self) -> Vec<u32> {
        let n = self.servers.iter().map(|s| s.vnodes.len()).sum();
        vec![self.gpus_per_vnode; n]
    }

    fn server_free(&self, s: usize, free: &[u32]) -> u32 {
        self.servers[s]
            .vnodes
            .iter()
            .map(|&v| free.get(v as usize).copied().unwrap_or(0))
            .sum()
    }

    fn take(&self, s: usize, count: u32, free: &mut [u32], out: &mut Vec<u32>) -> u32 {
        let mut left = count;
        for &v in &self.servers[s].vnodes {
            let Some(f) = free.get_mut(v as usize) else {
                continue;
            };
            let k = (*f).min(left);
            *f -= k;
            left -= k;
            out.extend(std::iter::repeat_n(v, k as usize));
            if left == 0 {
                break;
            }
        }
        count - left
    }

    /// Place `gpus` GPUs on type `ty` as Sia's artifact does: scanning the type's servers
    /// cyclically from `pointer`, whole free servers first while the job needs a whole
    /// server or more, then free GPUs of any server; the pointer moves on past the last
    /// server used. None (and nothing taken) when the type has too few free GPUs.
    pub fn place(
        &self,
        ty: usize,
        gpus: u32,
        pointer: &mut usize,
        free: &mut [u32],
    ) -> Option<Vec<u32>> {
        let list = self.by_type.get(ty)?;
        let n = list.len();
        if n == 0 || list.iter().map(|&s| self.server_free(s, free)).sum::<u32>() < gpus {
            return None;
        }
        let mut out = Vec::with_capacity(gpus as usize);
        let mut need = gpus;
        let mut last = *pointer;
        for i in 0..n {
            let k = (*pointer + i) % n;
            let s = list[k];
            let size = self.servers[s].size;
            if need >= size && self.server_free(s, free) == size {
                need -= self.take(s, size, free, &mut out);
                last = k;
            }
        }
        for i in 0..n {
            if need == 0 {
                break;
            }
            let k = (*pointer + i) % n;
            let s = list[k];
            let got = self.take(s, need, free, &mut out);
            if got > 0 {
                need -= got;
                last = k;
            }
        }
        *pointer = (last + 1) % n;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sias_configurations_on_its_default_cluster() {
        // aws:24/4, dgx-ext:16/8, rtx:24/8 as virtual servers of 4: 6 + 4 + 6.
        let node_types: Vec<usize> = [vec![0; 6], vec![1; 4], vec![2; 6]].concat();
        let node_servers: Vec<u32> = (0..6)
            .chain([6, 6, 7, 7])
            .chain([8, 8, 9, 9, 10, 10])
            .collect();
        let names = ["aws".to_string(), "dgx-ext".into(), "rtx".into()];
        let view = ElasticView {
            now: 0.0,
            num_nodes: 16,
            gpus_per_node: 4,
            node_types: &node_types,
            node_servers: &node_servers,
            gpu_types: &names,
            restart_s: 30.0,
            jobs: Vec::new(),
        };
        let l = Layout::new(&view);
        assert_eq!(l.servers.len(), 11);
        assert_eq!(l.capacity, [24, 16, 24]);
        assert_eq!(l.server_size, [4, 8, 8]);
        // 8 + 5 + 6 = 19 columns, as in the artifact.
        assert_eq!(l.configs.len(), 19);
        let on = |t: usize| -> Vec<(u32, u32)> {
            l.configs
                .iter()
                .filter(|c| c.ty == t)
                .map(|c| (c.nodes, c.gpus))
                .collect()
        };
        assert_eq!(
            on(0),
            [
                (1, 1),
                (1, 2),
                (1, 4),
                (2, 8),
                (3, 12),
                (4, 16),
                (5, 20),
                (6, 24)
            ]
        );
        assert_eq!(on(1), [(1, 1), (1, 2), (1, 4), (1, 8), (2, 16)]);
        assert_eq!(on(2), [(1, 1), (1, 2), (1, 4), (1, 8), (2, 16), (3, 24)]);
        // A placement of 16 GPUs on rtx takes two whole servers; then 4 GPUs the next one.
        let mut free = l.all_free();
        let mut ptr = 0;
        let a = l.place(2, 16, &mut ptr, &mut free).unwrap();
        assert_eq!(a.len(), 16);
        assert_eq!(
            l.config_of(&view, &a),
            l.configs.iter().position(|c| *c
                == Config {
                    ty: 2,
                    nodes: 2,
                    gpus: 16
                })
        );
        let b = l.place(2, 4, &mut ptr, &mut free).unwrap();
        assert_eq!(b, [14, 14, 14, 14]);
        assert!(l.place(2, 8, &mut ptr, &mut free).is_none());
        assert_eq!(
            l.place(2, 4, &mut ptr, &mut free).unwrap(),
            [15, 15, 15, 15]
        );
    }
}
