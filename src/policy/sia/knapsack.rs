//! The dynamic program that closes the gap of Sia's integer program ([`super::mip`]): the
//! open jobs' best choices within the GPUs left, over the GPUs used on each type.

/// An option of a free job: (type, GPUs, value = none_cost - cost, index among the job's).
pub(super) type Opt = (usize, u32, f64, usize);

/// Most states (combinations of GPUs used per type) the dynamic program takes on.
pub const EXACT_STATES: usize = 1 << 22;

/// What lets [`knapsack`] drop states that cannot lead to the optimum: prices `mu` per GPU
/// of each type and a saving `floor` the optimum of the open jobs is known to reach. A
/// state's bound (see [`Bounds`]) is at least the saving of every completion of it, so a
/// state whose bound is below `floor` lies on no optimal path, and no state it leads to
/// ties with one (the same completion would make it optimal): dropping it changes
/// neither the optimum nor which of equal optima the program returns.
pub(super) struct Prune<'a> {
    pub(super) mu: &'a [f64],
    pub(super) floor: f64,
}

/// The best choices of the jobs `open` (each a free job, the options it may take, and
/// whether it may take nothing) within `capacity`, by dynamic programming over the GPUs
/// used on each type, and their saving; None when the states exceed [`EXACT_STATES`] or
/// the states times the options exceed `budget`, or when no choice fits. `slots` is
/// scratch space, reused across calls.
pub(super) fn knapsack(
    jobs: &[(usize, Vec<Opt>)],
    open: &[(usize, Vec<usize>, bool)],
    capacity: &[f64],
    budget: usize,
    prune: Option<&Prune>,
    slots: &mut Slots,
) -> Option<(Vec<Option<usize>>, f64)> {
    let dims: Vec<usize> = capacity.iter().map(|&c| c.max(0.0) as usize + 1).collect();
    let states = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&s| s <= EXACT_STATES)?;
    let work: usize = open.iter().map(|o| o.1.len() + 1).sum();
    if states.checked_mul(work)? > budget {
        return None;
    }
    let mut stride = vec![1usize; dims.len()];
    for t in 1..dims.len() {
        stride[t] = stride[t - 1] * dims[t - 1];
    }
    let nt = dims.len();
    let bounds = prune.map(|p| Bounds::new(jobs, open, &dims, p));
    let mut terms = vec![0.0f64; nt];
    slots.reset(states);
    // Layer by layer (one per open job), the states reached, each with the largest saving
    // using exactly its GPUs. Which of equal savings a state keeps does not depend on the
    // order the states are visited in: nothing first, then the lowest predecessor state,
    // then the lowest option.
    let mut cur = Layer::start(nt);
    let mut layers: Vec<Layer> = Vec::with_capacity(open.len());
    for (o, (x, keep, none_ok)) in open.iter().enumerate() {
        let opts = &jobs[*x].1;
        let stamp = slots.next_stamp()?;
        let mut next = Layer::with_capacity(cur.live.len() * 2, nt);
        for (k, &s) in cur.live.iter().enumerate() {
            let s = s as usize;
            let v0 = cur.value[k];
            let u = &cur.used[k * nt..(k + 1) * nt];
            let from = u32::try_from(k).ok()?;
            let priced = bounds.as_ref().map(|b| (b, b.terms(o + 1, u, &mut terms)));
            let below = |v: f64, add: Option<(usize, u32)>| {
                priced.is_some_and(|(b, priced)| b.below(o + 1, v, priced, &terms, u, add))
            };
            if *none_ok && !below(v0, None) {
                let before = |held: u8, _| held != 0;
                next.offer(&mut slots.slot, stamp, (s, v0, from, 0), u, None, before);
            }
            for &i in keep {
                let (ty, g, v, _) = opts[i];
                if u[ty] as usize + g as usize >= dims[ty] {
                    continue;
                }
                let v2 = v0 + v;
                if below(v2, Some((ty, g))) {
                    continue;
                }
                let s2 = s + g as usize * stride[ty];
                let c = u8::try_from(i + 1).unwrap_or(0);
                // Ties: nothing beats an option; else the lower (predecessor, option).
                let before = |held: u8, pred: u32| {
                    held != 0 && (cur.live[pred as usize] as usize, usize::from(held)) > (s, i + 1)
                };
                next.offer(
                    &mut slots.slot,
                    stamp,
                    (s2, v2, from, c),
                    u,
                    Some((ty, g)),
                    before,
                );
            }
        }
        layers.push(std::mem::replace(&mut cur, next));
    }
    // The largest saving, the lowest state among equals; then back through the layers.
    let mut end: Option<(usize, f64)> = None;
    for (k, &s) in cur.live.iter().enumerate() {
        let v = cur.value[k];
        if end.is_none_or(|(e, b)| v > b || (v == b && s < cur.live[e])) {
            end = Some((k, v));
        }
    }
    let (mut k, best) = end?;
    let mut out = vec![None; open.len()];
    layers.push(cur);
    for o in (0..open.len()).rev() {
        let layer = &layers[o + 1];
        out[o] = usize::from(layer.code[k]).checked_sub(1);
        k = layer.from[k] as usize;
    }
    Some((out, best))
}

/// Dense scratch for [`knapsack`]: per state, the stamp of the layer that last reached it
/// and its place in that layer.
#[derive(Default)]
pub(super) struct Slots {
    slot: Vec<(u32, u32)>,
    stamp: u32,
}

impl Slots {
    /// Room for `states`, every slot free.
    fn reset(&mut self, states: usize) {
        if self.slot.len() < states {
            self.slot = vec![(0, 0); states];
            self.stamp = 0;
        }
    }

    /// A stamp no slot holds yet (None once they run out).
    fn next_stamp(&mut self) -> Option<u32> {
        self.stamp = self.stamp.checked_add(1)?;
        Some(self.stamp)
    }
}

/// The states one layer of [`knapsack`] reached, in the order first reached.
struct Layer {
    /// The states.
    live: Vec<u32>,
    /// Each one's largest saving.
    value: Vec<f64>,
    /// Each one's GPUs used of every type.
    used: Vec<u32>,
    /// Each one's predecessor (its place in the layer before).
    from: Vec<u32>,
    /// Each one's option (index + 1; 0 for nothing).
    code: Vec<u8>,
}

impl Layer {
    /// The layer before any job: nothing used, nothing saved.
    fn start(nt: usize) -> Self {
        Layer {
            live: vec![0],
            value: vec![0.0],
            used: vec![0; nt],
            from: vec![0],
            code: vec![0],
        }
    }

    fn with_capacity(n: usize, nt: usize) -> Self {
        Layer {
            live: Vec::with_capacity(n),
            value: Vec::with_capacity(n),
            used: Vec::with_capacity(n * nt),
            from: Vec::with_capacity(n),
            code: Vec::with_capacity(n),
        }
    }

    /// Offer state `s` the saving `v` from place `from` by option code `c`, the GPUs used
    /// being `u` plus `add` (type, GPUs); on a tie, it replaces the held one when
    /// `before(held code, held predecessor)` says that one comes later.
    #[inline]
    fn offer(
        &mut self,
        slot: &mut [(u32, u32)],
        stamp: u32,
        (s, v, from, c): (usize, f64, u32, u8),
        u: &[u32],
        add: Option<(usize, u32)>,
        before: impl Fn(u8, u32) -> bool,
    ) {
        let (seen, at) = slot[s];
        if seen == stamp {
            let at = at as usize;
            let held = self.value[at];
            if v > held || (v == held && before(self.code[at], self.from[at])) {
                self.value[at] = v;
                self.from[at] = from;
                self.code[at] = c;
            }
            return;
        }
        slot[s] = (stamp, self.live.len() as u32);
        self.live.push(s as u32);
        self.value.push(v);
        self.from.push(from);
        self.code.push(c);
        let at = self.used.len();
        self.used.extend_from_slice(u);
        if let Some((ty, g)) = add {
            self.used[at + ty] += g;
        }
    }
}

/// Upper bounds on what a state can still save. For each GPU type `t` on its own: the
/// jobs left may take options on `t` within the GPUs of `t` the state leaves (a knapsack
/// over that one type, solved exactly) or their best option elsewhere at its reduced
/// saving under the prices `mu`, and the GPUs left of the other types count at their
/// prices. Each is a Lagrangian relaxation of the other types' capacities only, so it is
/// at least every completion's saving and at most the relaxation of them all; the bound
/// is the least over the types.
struct Bounds {
    /// Per layer (after each open job, and before the first), per type, per GPUs of it
    /// left: the most the jobs still to come save on that type and reduced elsewhere.
    table: Vec<f64>,
    /// Where each type's entries start within a layer's.
    base: Vec<usize>,
    /// Entries per layer.
    width: usize,
    /// GPUs of each type in all.
    cap: Vec<u32>,
    mu: Vec<f64>,
    floor: f64,
}

impl Bounds {
    fn new(
        jobs: &[(usize, Vec<Opt>)],
        open: &[(usize, Vec<usize>, bool)],
        dims: &[usize],
        p: &Prune,
    ) -> Self {
        let nt = dims.len();
        let mut base = vec![0; nt];
        for t in 1..nt {
            base[t] = base[t - 1] + dims[t - 1];
        }
        let width: usize = dims.iter().sum();
        let mut table = vec![0.0; width * (open.len() + 1)];
        for (o, (x, keep, none_ok)) in open.iter().enumerate().rev() {
            let opts = &jobs[*x].1;
            let (done, rest) = table.split_at_mut((o + 1) * width);
            let (row, next) = (&mut done[o * width..], &rest[..width]);
            for t in 0..nt {
                let elsewhere = keep
                    .iter()
                    .map(|&i| opts[i])
                    .filter(|o| o.0 != t)
                    .map(|(ty, g, v, _)| v - p.mu[ty] * f64::from(g))
                    .fold(if *none_ok { 0.0 } else { f64::NEG_INFINITY }, f64::max);
                let next = &next[base[t]..base[t] + dims[t]];
                for (c, cell) in row[base[t]..base[t] + dims[t]].iter_mut().enumerate() {
                    let mut b = elsewhere + next[c];
                    for &i in keep {
                        let (ty, g, v, _) = opts[i];
                        if ty == t && g as usize <= c {
                            b = b.max(v + next[c - g as usize]);
                        }
                    }
                    *cell = b;
                }
            }
        }
        Bounds {
            table,
            base,
            width,
            cap: dims.iter().map(|&d| (d - 1) as u32).collect(),
            mu: p.mu.to_vec(),
            floor: p.floor,
        }
    }

    /// For a state of layer `o` using the GPUs `used`: per type, its bound less the
    /// saving and the prices of the GPUs left (into `terms`); returns those prices.
    #[inline]
    fn terms(&self, o: usize, used: &[u32], terms: &mut [f64]) -> f64 {
        let row = &self.table[o * self.width..(o + 1) * self.width];
        let mut priced = 0.0;
        for (t, term) in terms.iter_mut().enumerate() {
            let l = self.cap[t] - used[t];
            priced += self.mu[t] * f64::from(l);
            *term = row[self.base[t] + l as usize] - self.mu[t] * f64::from(l);
        }
        priced
    }

    /// Whether a state of layer `o` with saving `v` is bound to fall short of the floor,
    /// given the `priced` GPUs and `terms` of the state `used` it comes from (see
    /// [`Bounds::terms`]) and the GPUs it takes beyond that, `add` (type, GPUs).
    #[inline]
    fn below(
        &self,
        o: usize,
        v: f64,
        priced: f64,
        terms: &[f64],
        used: &[u32],
        add: Option<(usize, u32)>,
    ) -> bool {
        let Some((ty, g)) = add else {
            let least = terms.iter().copied().fold(f64::INFINITY, f64::min);
            return v + priced + least < self.floor;
        };
        let l = self.cap[ty] - used[ty] - g;
        let own =
            self.table[o * self.width + self.base[ty] + l as usize] - self.mu[ty] * f64::from(l);
        let least = terms
            .iter()
            .enumerate()
            .filter(|&(t, _)| t != ty)
            .fold(own, |a, (_, &x)| a.min(x));
        v + (priced - self.mu[ty] * f64::from(g)) + least < self.floor
    }
}

/// The Lagrangian bound on the saving of `jobs` within `capacity` at prices `mu`.
#[cfg(test)]
pub(super) fn lagrangian(jobs: &[(usize, Vec<Opt>)], capacity: &[f64], mu: &[f64]) -> f64 {
    let best = |o: &Vec<Opt>| {
        o.iter()
            .map(|&(ty, g, v, _)| v - mu[ty] * f64::from(g))
            .fold(0.0, f64::max)
    };
    capacity.iter().zip(mu).map(|(c, m)| c * m).sum::<f64>()
        + jobs.iter().map(|(_, o)| best(o)).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// On random jobs, the bound of the empty state lies between the optimum and the
    /// Lagrangian bound at the same prices, and is below the latter on some of them.
    #[test]
    fn the_bound_lies_between_the_optimum_and_the_relaxation() {
        let mut rng = Rng::new(3);
        let mut tighter = 0;
        for case in 0..200 {
            let capacity: Vec<f64> = (0..3).map(|_| rng.below(12) as f64).collect();
            let jobs: Vec<(usize, Vec<Opt>)> = (0..1 + rng.below(12) as usize)
                .map(|j| {
                    let mut o = Vec::new();
                    for ty in 0..3 {
                        for g in [1u32, 2, 4, 8] {
                            if rng.uniform() < 0.4 {
                                o.push((ty, g, rng.uniform(), o.len()));
                            }
                        }
                    }
                    (j, o)
                })
                .collect();
            let open: Vec<(usize, Vec<usize>, bool)> = jobs
                .iter()
                .enumerate()
                .map(|(x, (_, o))| (x, (0..o.len()).collect(), true))
                .collect();
            let mut slots = Slots::default();
            let (_, best) =
                knapsack(&jobs, &open, &capacity, usize::MAX, None, &mut slots).expect("fits");
            let mu: Vec<f64> = (0..3).map(|_| rng.uniform() * 0.3).collect();
            let relaxed = lagrangian(&jobs, &capacity, &mu);
            let dims: Vec<usize> = capacity.iter().map(|&c| c as usize + 1).collect();
            let p = Prune {
                mu: &mu,
                floor: 0.0,
            };
            let bounds = Bounds::new(&jobs, &open, &dims, &p);
            let mut terms = vec![0.0; 3];
            let priced = bounds.terms(0, &[0, 0, 0], &mut terms);
            let bound = priced + terms.iter().copied().fold(f64::INFINITY, f64::min);
            assert!(best <= bound + 1e-9, "case {case}: {best} > {bound}");
            assert!(bound <= relaxed + 1e-9, "case {case}: {bound} > {relaxed}");
            if bound < relaxed - 1e-6 {
                tighter += 1;
            }
        }
        assert!(tighter > 50, "{tighter}");
    }
}
