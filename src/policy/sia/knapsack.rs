//! The dynamic program that closes the gap of Sia's integer program ([`super::mip`]): the
//! open jobs' best choices within the GPUs left, over the GPUs used on each type.

/// An option of a free job: (type, GPUs, value = none_cost - cost, index among the job's).
pub(super) type Opt = (usize, u32, f64, usize);

/// Most states (combinations of GPUs used per type) the dynamic program takes on.
pub const EXACT_STATES: usize = 1 << 22;

/// What lets [`knapsack`] drop states that cannot lead to the optimum: prices `mu` per GPU
/// of each type and a saving `floor` the optimum of the open jobs is known to reach. A
/// state's Lagrangian bound (its saving, each remaining job's best reduced saving, the
/// prices of the GPUs it leaves) is an upper bound on every completion of it and only
/// falls along a path, so a state whose bound is below `floor` lies on no optimal path
/// and cannot tie with one: dropping it changes neither the optimum nor which of equal
/// optima the program returns.
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
    let floors = prune.map_or_else(Vec::new, |p| floors(jobs, open, capacity, p));
    slots.reset(states);
    // Layer by layer (one per open job), the states reached, each with the largest saving
    // using exactly its GPUs. Which of equal savings a state keeps does not depend on the
    // order the states are visited in: nothing first, then the lowest predecessor state,
    // then the lowest option.
    let mut cur = Layer::start(nt);
    let mut layers: Vec<Layer> = Vec::with_capacity(open.len());
    let mut price = vec![0.0f64; nt];
    for (o, (x, keep, none_ok)) in open.iter().enumerate() {
        let opts = &jobs[*x].1;
        let floor = floors.get(o + 1).copied().unwrap_or(f64::NEG_INFINITY);
        let stamp = slots.next_stamp()?;
        let mut next = Layer::with_capacity(cur.live.len() * 2, nt);
        for (k, &s) in cur.live.iter().enumerate() {
            let s = s as usize;
            let v0 = cur.value[k];
            let u = &cur.used[k * nt..(k + 1) * nt];
            let mut paid = 0.0;
            if let Some(p) = prune {
                for t in 0..nt {
                    price[t] = p.mu[t] * f64::from(u[t]);
                    paid += price[t];
                }
            }
            let from = u32::try_from(k).ok()?;
            if *none_ok && v0 - paid >= floor {
                let before = |held: u8, _| held != 0;
                next.offer(&mut slots.slot, stamp, (s, v0, from, 0), u, None, before);
            }
            for &i in keep {
                let (ty, g, v, _) = opts[i];
                if u[ty] as usize + g as usize >= dims[ty] {
                    continue;
                }
                let v2 = v0 + v;
                if let Some(p) = prune {
                    if v2 - (paid + p.mu[ty] * f64::from(g)) < floor {
                        continue;
                    }
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

/// [`knapsack`]'s floors under `p`: for each open job and after the last, the floor below
/// which a state's saving less the prices of its GPUs is dropped once that job's layer
/// is reached (`p.floor` less the best reduced savings of the jobs left and the prices of
/// all the capacity).
fn floors(
    jobs: &[(usize, Vec<Opt>)],
    open: &[(usize, Vec<usize>, bool)],
    capacity: &[f64],
    p: &Prune,
) -> Vec<f64> {
    let all: f64 = p.mu.iter().zip(capacity).map(|(m, c)| m * c).sum();
    let mut floors = vec![0.0; open.len() + 1];
    let mut rest = 0.0;
    floors[open.len()] = p.floor - all;
    for (o, (x, keep, none_ok)) in open.iter().enumerate().rev() {
        let opts = &jobs[*x].1;
        let best = keep
            .iter()
            .map(|&i| {
                let (ty, g, v, _) = opts[i];
                v - p.mu[ty] * f64::from(g)
            })
            .fold(if *none_ok { 0.0 } else { f64::NEG_INFINITY }, f64::max);
        rest += best;
        floors[o] = p.floor - rest - all;
    }
    floors
}
