//! The shared LP skeleton of Gavel's policies: variables `x[job][type]`, the base
//! constraints, and a solve that returns the fractions clipped to [0, 1].

use good_lp::{
    clarabel, variable, Constraint, Expression, ProblemVariables, Solution, SolverModel, Variable,
};

/// An LP under construction over `x[job][type]`.
pub struct Lp {
    vars: ProblemVariables,
    /// `x[job][type]`.
    pub x: Vec<Vec<Variable>>,
    constraints: Vec<Constraint>,
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
        }
    }

    /// Add a free variable (an epigraph variable, say).
    pub fn add_free(&mut self) -> Variable {
        self.vars.add(variable())
    }

    /// Add a constraint.
    pub fn push(&mut self, c: Constraint) {
        self.constraints.push(c);
    }

    /// `sum_t coef[t] * x[job][t]`.
    pub fn row_expr(&self, job: usize, coef: &[f64]) -> Expression {
        let mut e = Expression::with_capacity(coef.len());
        for (t, &c) in coef.iter().enumerate() {
            if c != 0.0 {
                e.add_mul(c, self.x[job][t]);
            }
        }
        e
    }

    /// Maximise `objective`; the fractions clipped to [0, 1], or the solver's complaint.
    pub fn maximise(self, objective: Expression) -> Result<Vec<Vec<f64>>, String> {
        let Lp {
            vars,
            x,
            constraints,
        } = self;
        let mut model = vars.maximise(objective).using(clarabel);
        model
            .settings()
            .tol_gap_abs(1e-8)
            .tol_gap_rel(1e-8)
            .tol_feas(1e-8)
            .max_iter(400);
        let solution = model
            .with_all(constraints)
            .solve()
            .map_err(|e| e.to_string())?;
        Ok(x.iter()
            .map(|row| {
                row.iter()
                    .map(|&v| solution.value(v).clamp(0.0, 1.0))
                    .collect()
            })
            .collect())
    }

    /// Find any feasible point (zero objective): the interior-point solver returns one near
    /// the centre of the feasible set. `None` if infeasible, or if the solver cannot settle
    /// the question (a feasible set squeezed to a point); callers bisect, so treating
    /// that case as infeasible only keeps them on the safe side.
    pub fn feasible(self) -> Option<Vec<Vec<f64>>> {
        self.maximise(Expression::from(0.0)).ok()
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
