//! The shared LP skeleton of Gavel's policies: variables `x[job][type]`, the base
//! constraints, and a solve that returns the fractions clipped to [0, 1].

use super::family::{Data, Family};
use clarabel::solver::implementations::default::DefaultSettingsBuilder;
use clarabel::solver::SolverStatus;
use good_lp::solvers::clarabel::ClarabelSolution;
use good_lp::{
    clarabel, variable, Constraint, Expression, ProblemVariables, Solution, SolverModel, Variable,
};
use std::rc::Rc;

/// An LP under construction over `x[job][type]`.
pub struct Lp {
    vars: ProblemVariables,
    /// `x[job][type]`.
    pub x: Vec<Vec<Variable>>,
    constraints: Vec<Constraint>,
    /// Whether Clarabel refines each KKT solve iteratively (its default).
    refine: bool,
    /// The variable standing for entries left out of the LP, if any.
    zero: Option<Variable>,
    /// Each variable with its bounds, in the order they were added.
    bounds: Vec<(Variable, f64, f64)>,
    /// The family whose solver this LP may reuse ([`Lp::reuse`]).
    family: Option<Rc<Family>>,
}

impl Lp {
    /// Variables `x >= 0` for `scale.len()` jobs and `counts.len()` types, with the base
    /// constraints: per type, `sum_j scale_j x[j][t] <= counts[t]`; per job, `sum_t x[j][t] <= 1`.
    pub fn base(scale: &[f64], counts: &[f64]) -> Lp {
        let mut vars = ProblemVariables::new();
        let n = counts.len();
        let x: Vec<Vec<Variable>> = scale
            .iter()
            .map(|_| (0..n).map(|_| vars.add(variable().min(0.0))).collect())
            .collect();
        let bounds = x
            .iter()
            .flatten()
            .map(|&v| (v, 0.0, f64::INFINITY))
            .collect();
        let mut constraints = Vec::with_capacity(scale.len() + n);
        for (t, &cap) in counts.iter().enumerate() {
            let mut e = Expression::with_capacity(scale.len());
            for (j, row) in x.iter().enumerate() {
                e.add_mul(scale[j], row[t]);
            }
            constraints.push(e.leq(cap));
        }
        for row in &x {
            let mut e = Expression::with_capacity(n);
            for &v in row {
                e.add_mul(1.0, v);
            }
            constraints.push(e.leq(1.0));
        }
        Lp {
            vars,
            x,
            constraints,
            refine: true,
            zero: None,
            bounds,
            family: None,
        }
    }

    /// Variables `x >= 0` for rows that may hold one job or a pair of jobs sharing GPUs
    /// (space sharing), with the packed base constraints: per type,
    /// `sum_r scale[r] x[r][t] <= counts[t]` (a pair's row uses its GPUs once); per job, the
    /// rows of `groups[job]` (its own row and its pairs') together `sum_t x[r][t] <= 1`.
    pub fn packed(scale: &[f64], counts: &[f64], groups: &[Vec<usize>]) -> Lp {
        let weighted: Vec<Vec<(usize, f64)>> = groups
            .iter()
            .map(|g| g.iter().map(|&r| (r, 1.0)).collect())
            .collect();
        Lp::grouped(scale, counts, &weighted)
    }

    /// Variables `x >= 0` with, per type, `sum_r scale[r] x[r][t] <= counts[t]` and, per
    /// group, `sum_((r, w) in group) w sum_t x[r][t] <= 1`.
    pub fn grouped(scale: &[f64], counts: &[f64], groups: &[Vec<(usize, f64)>]) -> Lp {
        Lp::grouped_live(scale, counts, groups, |_, _| true)
    }

    /// [`Lp::grouped`] with only the entries `(row, type)` where `live` holds: the others
    /// are one variable fixed at 0 that no constraint mentions (every expression built
    /// through this type leaves it out).
    pub fn grouped_live(
        scale: &[f64],
        counts: &[f64],
        groups: &[Vec<(usize, f64)>],
        live: impl Fn(usize, usize) -> bool,
    ) -> Lp {
        let mut vars = ProblemVariables::new();
        let n = counts.len();
        let mut zero = None;
        let mut bounds = Vec::with_capacity(scale.len() * n);
        let x: Vec<Vec<Variable>> = (0..scale.len())
            .map(|r| {
                (0..n)
                    .map(|t| {
                        if live(r, t) {
                            let v = vars.add(variable().min(0.0));
                            bounds.push((v, 0.0, f64::INFINITY));
                            v
                        } else {
                            *zero.get_or_insert_with(|| {
                                let v = vars.add(variable().min(0.0).max(0.0));
                                bounds.push((v, 0.0, 0.0));
                                v
                            })
                        }
                    })
                    .collect()
            })
            .collect();
        let mut constraints = Vec::with_capacity(groups.len() + n);
        for (t, &cap) in counts.iter().enumerate() {
            let mut e = Expression::with_capacity(scale.len());
            for (r, row) in x.iter().enumerate() {
                if Some(row[t]) != zero {
                    e.add_mul(scale[r], row[t]);
                }
            }
            constraints.push(e.leq(cap));
        }
        for g in groups {
            let mut e = Expression::with_capacity(n * g.len());
            for &(r, w) in g {
                for &v in &x[r] {
                    if Some(v) != zero {
                        e.add_mul(w, v);
                    }
                }
            }
            constraints.push(e.leq(1.0));
        }
        Lp {
            vars,
            x,
            constraints,
            refine: true,
            zero,
            bounds,
            family: None,
        }
    }

    /// Whether `v` is a real variable (not the fixed zero of [`Lp::grouped_live`]).
    fn live(&self, v: Variable) -> bool {
        Some(v) != self.zero
    }

    /// Solve without Clarabel's iterative refinement of the KKT solves, with a smaller
    /// static regularisation (1e-10 instead of 1e-8) so that the unrefined Newton
    /// directions stay close to the refined ones. The termination tolerances are
    /// unchanged (1e-8), so the answer meets the same accuracy; the refinement (a KKT
    /// product and often an extra solve per linear solve) is 20-30% of a solve's work.
    /// Over the 596 max-min LPs of the continuous benchmark the allocations move by at
    /// most 1.4e-6, about what merely reordering the constraints does (1e-6 to 3e-6).
    /// When Clarabel stops short of those tolerances unrefined (its "almost solved", whose
    /// point may break a row by 1e-5 or more), the LP is solved again with refinement.
    pub fn without_refinement(mut self) -> Self {
        self.set_refinement(false);
        self
    }

    /// Whether to keep Clarabel's iterative refinement, for an LP built in place (see
    /// [`Lp::without_refinement`]).
    pub fn set_refinement(&mut self, refine: bool) {
        self.refine = refine;
    }

    /// Solve through `family`'s solver when this LP has the structure of the family's last
    /// one ([`Family`]: the answer is another point within the same tolerances).
    pub fn reuse(&mut self, family: Rc<Family>) {
        self.family = Some(family);
    }

    /// Add a free variable (an epigraph variable, say).
    pub fn add_free(&mut self) -> Variable {
        let v = self.vars.add(variable());
        self.bounds.push((v, f64::NEG_INFINITY, f64::INFINITY));
        v
    }

    /// Add a constraint.
    pub fn push(&mut self, c: Constraint) {
        self.constraints.push(c);
    }

    /// `sum_t coef[t] * x[job][t]`.
    pub fn row_expr(&self, job: usize, coef: &[f64]) -> Expression {
        let mut e = Expression::with_capacity(coef.len());
        for (t, &c) in coef.iter().enumerate() {
            if c != 0.0 && self.live(self.x[job][t]) {
                e.add_mul(c, self.x[job][t]);
            }
        }
        e
    }

    /// Add `bound <= sum_t coef[t] * x[job][t]` (an epigraph row), written directly as
    /// `bound - sum_t coef[t] * x[job][t] <= 0`: the row `row_expr(job, coef).geq(bound)`
    /// gives, coefficient for coefficient, without merging two expressions.
    pub fn push_at_least(&mut self, job: usize, coef: &[f64], bound: Variable) {
        let mut e = Expression::with_capacity(coef.len() + 1);
        e.add_mul(1.0, bound);
        for (t, &c) in coef.iter().enumerate() {
            if c != 0.0 && self.live(self.x[job][t]) {
                e.add_mul(-c, self.x[job][t]);
            }
        }
        self.constraints.push(e.leq(0.0));
    }

    /// `sum_(r, coef) sum_t coef[t] * x[r][t]` over several rows.
    pub fn rows_expr(&self, terms: &[(usize, Vec<f64>)]) -> Expression {
        let mut e = Expression::with_capacity(terms.iter().map(|(_, c)| c.len()).sum());
        for (r, coef) in terms {
            for (t, &c) in coef.iter().enumerate() {
                if c != 0.0 && self.live(self.x[*r][t]) {
                    e.add_mul(c, self.x[*r][t]);
                }
            }
        }
        e
    }

    /// Add `bound <= sum_(r, coef) sum_t coef[t] * x[r][t]` over several rows (an epigraph
    /// row), written as `bound - ... <= 0` like [`Lp::push_at_least`].
    pub fn push_at_least_rows(&mut self, terms: &[(usize, Vec<f64>)], bound: Variable) {
        let mut e =
            Expression::with_capacity(1 + terms.iter().map(|(_, c)| c.len()).sum::<usize>());
        e.add_mul(1.0, bound);
        for (r, coef) in terms {
            for (t, &c) in coef.iter().enumerate() {
                if c != 0.0 && self.live(self.x[*r][t]) {
                    e.add_mul(-c, self.x[*r][t]);
                }
            }
        }
        self.constraints.push(e.leq(0.0));
    }

    /// Number of constraints so far.
    pub fn constraints(&self) -> usize {
        self.constraints.len()
    }

    /// Maximise `objective`; the fractions clipped to [0, 1], or the solver's complaint.
    pub fn maximise(self, objective: Expression) -> Result<Vec<Vec<f64>>, String> {
        self.maximise_with_duals(objective).map(|(x, _)| x)
    }

    /// [`Lp::maximise`], with each constraint's dual value in the order they were added
    /// (Clarabel's `z` for the problem as a minimisation: at least 0 on every inequality).
    pub fn maximise_with_duals(
        self,
        objective: Expression,
    ) -> Result<(Vec<Vec<f64>>, Vec<f64>), String> {
        if self.family.is_some() {
            return self.maximise_in_family(objective);
        }
        let Lp {
            vars,
            x,
            constraints,
            refine,
            ..
        } = self;
        let count = constraints.len();
        let solution = if refine {
            solve_clarabel(vars, objective, constraints, true)?
        } else {
            let again = (vars.clone(), objective.clone(), constraints.clone());
            let first = solve_clarabel(vars, objective, constraints, false)?;
            if first.inner().status == SolverStatus::AlmostSolved {
                solve_clarabel(again.0, again.1, again.2, true)?
            } else {
                first
            }
        };
        let x = x
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&v| solution.value(v).clamp(0.0, 1.0))
                    .collect()
            })
            .collect();
        // Clarabel lists the variables' bounds before the constraints.
        let z = &solution.inner().z;
        let duals = z[z.len().saturating_sub(count)..].to_vec();
        Ok((x, duals))
    }

    /// [`Lp::maximise_with_duals`] through the LP's [`Family`]; an unrefined solve that
    /// stops short of the tolerances is solved again refined, by a solver of its own.
    fn maximise_in_family(
        self,
        objective: Expression,
    ) -> Result<(Vec<Vec<f64>>, Vec<f64>), String> {
        let Lp {
            vars,
            x,
            constraints,
            refine,
            bounds,
            family,
            ..
        } = self;
        let family = family.unwrap_or_default();
        let count = constraints.len();
        let index = super::family::Index::new(bounds.iter().map(|b| b.0));
        let data = Data::new(&index, &bounds, &objective, &constraints);
        let solved = family.solve(data, refine)?;
        let (values, z) = match solved.status {
            SolverStatus::Solved
            | SolverStatus::AlmostDualInfeasible
            | SolverStatus::DualInfeasible => (solved.x, solved.z),
            SolverStatus::AlmostSolved if refine => (solved.x, solved.z),
            SolverStatus::AlmostSolved => {
                let s = solve_clarabel(vars, objective, constraints, true)?;
                (s.inner().x.clone(), s.inner().z.clone())
            }
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                return Err("The problem is infeasible".into())
            }
            other => return Err(format!("{other:?}")),
        };
        let x = x
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&v| {
                        index
                            .of(v)
                            .and_then(|i| values.get(i))
                            .copied()
                            .unwrap_or(0.0)
                            .clamp(0.0, 1.0)
                    })
                    .collect()
            })
            .collect();
        let duals = z[z.len().saturating_sub(count)..].to_vec();
        Ok((x, duals))
    }

    /// Find any feasible point (zero objective): the interior-point solver returns one near
    /// the centre of the feasible set. `None` if infeasible, or if the solver cannot settle
    /// the question (a feasible set squeezed to a point); callers bisect, so treating
    /// that case as infeasible only keeps them on the safe side.
    pub fn feasible(self) -> Option<Vec<Vec<f64>>> {
        self.maximise(Expression::from(0.0)).ok()
    }
}

/// Maximise `objective` over `vars` subject to `constraints` with Clarabel at the LPs'
/// tolerances (1e-8), with or without its iterative refinement ([`Lp::without_refinement`]).
fn solve_clarabel(
    vars: ProblemVariables,
    objective: Expression,
    constraints: Vec<Constraint>,
    refine: bool,
) -> Result<ClarabelSolution, String> {
    let mut model = vars.maximise(objective).using(clarabel);
    tune(model.settings(), refine);
    model
        .with_all(constraints)
        .solve()
        .map_err(|e| e.to_string())
}

/// The LPs' Clarabel settings: tolerances of 1e-8, at most 400 iterations and, unrefined,
/// no iterative refinement and a static regularisation of 1e-10 ([`Lp::without_refinement`]).
/// Every solver of the LPs is built with them, through `good_lp` or a [`Family`].
pub(super) fn tune(s: &mut DefaultSettingsBuilder<f64>, refine: bool) {
    s.tol_gap_abs(1e-8)
        .tol_gap_rel(1e-8)
        .tol_feas(1e-8)
        .max_iter(400);
    if !refine {
        s.iterative_refinement_enable(false)
            .static_regularization_constant(1e-10);
    }
}

/// `max t` subject to `c[j] . x[j] >= t` for every job under the base constraints, by
/// Clarabel alone; `refine` keeps its iterative refinement (see [`Lp::without_refinement`]).
pub fn max_min_clarabel(
    scale: &[f64],
    counts: &[f64],
    coef: &[Vec<f64>],
    refine: bool,
) -> Result<Vec<Vec<f64>>, String> {
    let mut lp = Lp::base(scale, counts);
    if !refine {
        lp = lp.without_refinement();
    }
    let t = lp.add_free();
    for (j, row) in coef.iter().enumerate() {
        lp.push_at_least(j, row, t);
    }
    lp.maximise(t.into())
}

/// The same LP by the structured interior-point method ([`super::ipm`]), working per class
/// of identical jobs (the same scale factor and coefficients, to the bit; see
/// [`super::ipm::BlockLp::with_members`]) with the same result as over every job, or by
/// Clarabel if that method stalls.
pub fn max_min(
    scale: &[f64],
    counts: &[f64],
    coef: &[Vec<f64>],
    refine: bool,
) -> Result<Vec<Vec<f64>>, String> {
    let classes = super::job_classes::JobClasses::new(scale, coef);
    let solved = if classes.first.len() == scale.len() {
        super::ipm::BlockLp::max_min(scale, counts, coef).solve_lp()
    } else {
        let (c_scale, c_coef) = (classes.firsts(scale), classes.firsts(coef));
        super::ipm::BlockLp::max_min(&c_scale, counts, &c_coef)
            .with_members(&classes.of)
            .solve_lp()
            .map(|x| classes.of.iter().map(|&c| x[c].clone()).collect())
    };
    match solved {
        Some(x) => Ok(x),
        None => max_min_clarabel(scale, counts, coef, refine),
    }
}

/// Check the base constraints of a solution (for tests and debug assertions).
pub fn satisfies_base(x: &[Vec<f64>], scale: &[f64], counts: &[f64], tol: f64) -> bool {
    let rows_ok = x
        .iter()
        .all(|r| r.iter().all(|&v| v >= 0.0) && r.iter().sum::<f64>() <= 1.0 + tol);
    let cols_ok = counts
        .iter()
        .enumerate()
        .all(|(t, &c)| x.iter().zip(scale).map(|(r, s)| s * r[t]).sum::<f64>() <= c + tol);
    rows_ok && cols_ok
}

/// Check the packed base constraints of a solution: every `x` in [0, 1], per type the rows'
/// GPUs (a pair's once) within the type's count, and per job its rows (`groups[job]`, its
/// own and its pairs') summing to at most 1.
pub fn satisfies_packed(
    x: &[Vec<f64>],
    scale: &[f64],
    counts: &[f64],
    groups: &[Vec<usize>],
    tol: f64,
) -> bool {
    let range_ok = x.iter().flatten().all(|&v| (0.0..=1.0).contains(&v));
    let groups_ok = groups
        .iter()
        .all(|g| g.iter().map(|&r| x[r].iter().sum::<f64>()).sum::<f64>() <= 1.0 + tol);
    let cols_ok = counts
        .iter()
        .enumerate()
        .all(|(t, &c)| x.iter().zip(scale).map(|(r, s)| s * r[t]).sum::<f64>() <= c + tol);
    range_ok && groups_ok && cols_ok
}
