//! Piecewise-linear interpolation over scattered 3-D points (placeholder body).
#![allow(missing_docs)]
#[derive(Debug, Clone)]
pub struct LinearNd {
    points: Vec<[i64; 3]>,
    values: Vec<[f64; 2]>,
}
#[derive(Debug, Clone, PartialEq)]
pub enum InterpError {
    TooFewPoints,
    Degenerate,
}
impl std::fmt::Display for InterpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
impl std::error::Error for InterpError {}
impl LinearNd {
    pub fn new(points: &[[i64; 3]], values: &[[f64; 2]]) -> Result<Self, InterpError> {
        Ok(LinearNd {
            points: points.to_vec(),
            values: values.to_vec(),
        })
    }
    pub fn eval(&self, q: [f64; 3]) -> Option<[f64; 2]> {
        let mut best: Option<(f64, [f64; 2])> = None;
        for (p, v) in self.points.iter().zip(&self.values) {
            let d: f64 = (0..3).map(|k| (p[k] as f64 - q[k]).powi(2)).sum();
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, *v));
            }
        }
        best.map(|b| b.1)
    }
    pub fn num_tetrahedra(&self) -> usize {
        0
    }
}
