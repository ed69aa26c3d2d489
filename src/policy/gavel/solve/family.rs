//! A family of LPs of one structure solved by one Clarabel solver, its data replaced
//! between them.
//!
//! A search over one decision (finish-time fairness's scaling LPs at successive trials of
//! rho) solves LPs with the same variables and the same rows that differ only in their
//! coefficients. Building a Clarabel solver orders the KKT matrix (AMD), factors it
//! symbolically and equilibrates the data, about a third of such an LP's time; the ordering
//! and the symbolic factorisation depend only on where the nonzeros are. A [`Family`] keeps
//! the solver of its last LP and, when the next LP has the same sparsity pattern and cones,
//! replaces its data (Clarabel's `update_A`, `update_b`, `update_q`) and solves again from
//! the same cold start. The data are then scaled by the first LP's equilibration rather
//! than their own, so the answer is another point within the same tolerances (1e-8) than
//! a solver built for that LP would give; the first LP of a family gives exactly the same
//! bits as [`super::lp::Lp`]'s ordinary solve (tested).
//!
//! The matrices are laid out as `good_lp`'s Clarabel backend lays them out (the variables'
//! bounds as rows first, then the constraints in order, `>=` rows negated, cones merged),
//! which is what makes that first solve identical.

use clarabel::algebra::CscMatrix;
use clarabel::solver::implementations::default::{DefaultSettings, DefaultSettingsBuilder};
use clarabel::solver::{DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use good_lp::{Constraint, Expression, IntoAffineExpression, Variable};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a variable (an index) by one multiplication: `good_lp` keeps its variables'
/// indices private, so the matrices find each variable's column through a map.
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).rotate_left(5);
        }
    }

    fn write_usize(&mut self, i: usize) {
        self.0 = self.0.rotate_left(17) ^ i as u64;
    }
}

/// Each variable's column: its position among the LP's variables.
pub(super) struct Index(HashMap<Variable, usize, BuildHasherDefault<IndexHasher>>);

impl Index {
    /// The variables in column order.
    pub(super) fn new(vars: impl Iterator<Item = Variable>) -> Index {
        let mut m = HashMap::default();
        for (i, v) in vars.enumerate() {
            m.insert(v, i);
        }
        Index(m)
    }

    /// The column of `v`.
    pub(super) fn of(&self, v: Variable) -> Option<usize> {
        self.0.get(&v).copied()
    }
}

/// The solver of a family's last LP, with its structure.
struct Kept {
    solver: DefaultSolver<f64>,
    colptr: Vec<usize>,
    rowval: Vec<usize>,
    cones: Vec<SupportedConeT<f64>>,
    refine: bool,
}

/// LPs solved one after another by one solver while their structure stays the same (see
/// the module's documentation). Interior mutability lets the closures of a search share it.
#[derive(Default)]
pub struct Family {
    kept: RefCell<Option<Kept>>,
    /// How many LPs reused the kept solver, and how many built one.
    counts: RefCell<(usize, usize)>,
}

/// An LP as Clarabel takes it: minimise `q . x` subject to `A x + s = b`, `s` in `cones`.
pub(super) struct Data {
    q: Vec<f64>,
    a: CscMatrix<f64>,
    b: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
}

/// What a solve gives: the primal point, the duals of every row and Clarabel's status.
pub(super) struct Solved {
    pub(super) x: Vec<f64>,
    pub(super) z: Vec<f64>,
    pub(super) status: SolverStatus,
}

impl Data {
    /// Maximise `objective` over the variables of `bounds` (in `index`'s column order) with
    /// those bounds (each as a row where finite, lower first) and `constraints`, laid out as
    /// `good_lp` lays them out.
    pub(super) fn new(
        index: &Index,
        bounds: &[(Variable, f64, f64)],
        objective: &Expression,
        constraints: &[Constraint],
    ) -> Data {
        let n = bounds.len();
        let mut q = vec![0.0; n];
        for (v, c) in objective.linear_coefficients() {
            if let Some(slot) = index.of(v).and_then(|i| q.get_mut(i)) {
                *slot = -c;
            }
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut vals: Vec<Vec<f64>> = vec![Vec::new(); n];
        let mut b = Vec::with_capacity(2 * n + constraints.len());
        let mut cones: Vec<SupportedConeT<f64>> = Vec::new();
        let mut push_cone = |eq: bool| {
            match (cones.last_mut(), eq) {
                (Some(SupportedConeT::ZeroConeT(k)), true)
                | (Some(SupportedConeT::NonnegativeConeT(k)), false) => *k += 1,
                (_, true) => cones.push(SupportedConeT::ZeroConeT(1)),
                (_, false) => cones.push(SupportedConeT::NonnegativeConeT(1)),
            };
        };
        for (i, &(_, lo, hi)) in bounds.iter().enumerate() {
            // `x >= lo` is the row `lo - x <= 0`: -x <= -lo; `x <= hi` is x <= hi.
            if lo != f64::NEG_INFINITY {
                rows[i].push(b.len());
                vals[i].push(-1.0);
                b.push(-lo);
                push_cone(false);
            }
            if hi != f64::INFINITY {
                rows[i].push(b.len());
                vals[i].push(1.0);
                b.push(hi);
                push_cone(false);
            }
        }
        for c in constraints {
            let e = c.expression();
            let r = b.len();
            for (v, coef) in e.linear_coefficients() {
                if let Some(i) = index.of(v).filter(|&i| i < n) {
                    rows[i].push(r);
                    vals[i].push(coef);
                }
            }
            b.push(-e.constant());
            push_cone(c.is_equality());
        }
        let mut colptr = Vec::with_capacity(n + 1);
        colptr.push(0);
        for col in &rows {
            colptr.push(colptr.last().copied().unwrap_or(0) + col.len());
        }
        let m = b.len();
        let a = CscMatrix::new(m, n, colptr, rows.concat(), vals.concat());
        Data { q, a, b, cones }
    }
}

/// Clarabel's settings for the LPs: `good_lp`'s start (quiet) tuned as every LP's solver
/// is ([`super::lp::tune`]).
fn settings(refine: bool) -> DefaultSettings<f64> {
    let mut s = DefaultSettingsBuilder::default();
    s.verbose(false).tol_feas(1e-9);
    super::lp::tune(&mut s, refine);
    // Every field is set and valid, so the builder cannot fail; should it, the defaults.
    s.build().unwrap_or_default()
}

impl Family {
    /// An empty family.
    pub fn new() -> Family {
        Family::default()
    }

    /// (LPs that reused the kept solver, LPs that built one).
    pub fn counts(&self) -> (usize, usize) {
        *self.counts.borrow()
    }

    /// Solve `data`, by the kept solver when the structure matches (its data replaced),
    /// otherwise by a new one, which is kept when it solves.
    pub(super) fn solve(&self, data: Data, refine: bool) -> Result<Solved, String> {
        let mut kept = self.kept.borrow_mut();
        let same = kept.as_ref().is_some_and(|k| {
            k.refine == refine
                && k.cones == data.cones
                && k.colptr == data.a.colptr
                && k.rowval == data.a.rowval
        });
        let reused = same
            && kept.as_mut().is_some_and(|k| {
                k.solver.update_A(&data.a).is_ok()
                    && k.solver.update_q(&data.q).is_ok()
                    && k.solver.update_b(&data.b).is_ok()
            });
        if !reused {
            *kept = None;
            let p = CscMatrix::zeros((data.a.n, data.a.n));
            let solver =
                DefaultSolver::new(&p, &data.q, &data.a, &data.b, &data.cones, settings(refine))
                    .map_err(|e| e.to_string())?;
            *kept = Some(Kept {
                solver,
                colptr: data.a.colptr.clone(),
                rowval: data.a.rowval.clone(),
                cones: data.cones.clone(),
                refine,
            });
        }
        {
            let mut c = self.counts.borrow_mut();
            if reused {
                c.0 += 1;
            } else {
                c.1 += 1;
            }
        }
        let Some(k) = kept.as_mut() else {
            return Err("no solver".into());
        };
        k.solver.solve();
        let s = &k.solver.solution;
        let out = Solved {
            x: s.x.clone(),
            z: s.z.clone(),
            status: s.status,
        };
        if out.status != SolverStatus::Solved {
            // Start the next LP from a fresh solver.
            *kept = None;
        }
        Ok(out)
    }
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Family")
            .field("kept", &self.kept.borrow().is_some())
            .field("counts", &self.counts())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::lp::Lp;
    use super::*;
    use std::rc::Rc;

    /// `max t` subject to `c[j] . x[j] >= t` on two types (1 and 2 GPUs), as max-min
    /// fairness writes it, through `family` if given: the allocation and the duals.
    fn solve(coef: &[[f64; 2]], family: Option<&Rc<Family>>) -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut lp = Lp::base(&vec![1.0; coef.len()], &[1.0, 2.0]).without_refinement();
        if let Some(f) = family {
            lp.reuse(Rc::clone(f));
        }
        let t = lp.add_free();
        for (j, c) in coef.iter().enumerate() {
            lp.push_at_least(j, c, t);
        }
        lp.maximise_with_duals(t.into()).expect("solves")
    }

    #[test]
    fn a_familys_first_lp_is_the_ordinary_solve_and_later_ones_reuse_its_solver() {
        let first = [[1.0, 3.0], [2.0, 2.5], [0.5, 4.0]];
        let family = Rc::new(Family::new());
        // The first LP builds the solver: the same bits as the ordinary path.
        assert_eq!(solve(&first, Some(&family)), solve(&first, None));
        assert_eq!(family.counts(), (0, 1));
        // LPs with other coefficients reuse it and reach the optimum a solver built for
        // them reaches (at another point of the optimal face where it is not a point).
        let value = |c: &[[f64; 2]], x: &[Vec<f64>]| {
            c.iter()
                .zip(x)
                .map(|(c, x)| c[0] * x[0] + c[1] * x[1])
                .fold(f64::INFINITY, f64::min)
        };
        for scale in [0.5, 2.0, 7.0] {
            let c: Vec<[f64; 2]> = first.iter().map(|r| [r[0] * scale, r[1]]).collect();
            let (x, _) = solve(&c, Some(&family));
            let (x0, _) = solve(&c, None);
            assert!(
                (value(&c, &x) - value(&c, &x0)).abs() < 1e-7,
                "{x:?} {x0:?}"
            );
            let ones = vec![1.0; c.len()];
            assert!(super::super::lp::satisfies_base(
                &x,
                &ones,
                &[1.0, 2.0],
                1e-7
            ));
        }
        assert_eq!(family.counts(), (3, 1));
        let (x, _) = solve(&first[..2], Some(&family));
        assert_eq!(family.counts(), (3, 2));
        assert_eq!(x, solve(&first[..2], None).0);
    }
}
