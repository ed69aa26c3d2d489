//! [`Rows`]: a matrix of `f64` stored flat, row after row, every row as long. An
//! allocation's fractions live in one: a round with thousands of jobs builds (and the
//! mechanism reads) one buffer instead of one per job.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::{Index, IndexMut};

/// Rows of `f64`, all of the same length, stored flat.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// Values per row.
    cols: usize,
    /// Number of rows (kept apart: rows of length 0 hold no values).
    rows: usize,
    /// The values, row after row.
    data: Vec<f64>,
}

impl Rows {
    /// No rows, of `cols` values each when pushed.
    pub fn new(cols: usize) -> Rows {
        Rows {
            cols,
            rows: 0,
            data: Vec::new(),
        }
    }

    /// `rows` rows of `cols` zeros.
    pub fn zeros(rows: usize, cols: usize) -> Rows {
        Rows {
            cols,
            rows,
            data: vec![0.0; rows * cols],
        }
    }

    /// The rows of `rows`, in order.
    ///
    /// # Panics
    /// When the rows are not all of the same length.
    pub fn from_rows<R: AsRef<[f64]>>(rows: impl IntoIterator<Item = R>) -> Rows {
        let mut out: Option<Rows> = None;
        for r in rows {
            let r = r.as_ref();
            out.get_or_insert_with(|| Rows::new(r.len())).push(r);
        }
        out.unwrap_or_default()
    }

    /// Appends a row.
    ///
    /// # Panics
    /// When `row` is not [`Rows::cols`] long.
    pub fn push(&mut self, row: &[f64]) {
        assert_eq!(row.len(), self.cols, "a row of {} values", self.cols);
        self.data.extend_from_slice(row);
        self.rows += 1;
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Values per row.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&[f64]> {
        (i < self.rows).then(|| &self.data[i * self.cols..(i + 1) * self.cols])
    }

    /// The rows, in order.
    pub fn iter(&self) -> RowIter<'_> {
        RowIter {
            rows: self,
            next: 0,
        }
    }

    /// The rows as vectors.
    pub fn to_vecs(&self) -> Vec<Vec<f64>> {
        self.iter().map(<[f64]>::to_vec).collect()
    }
}

impl Index<usize> for Rows {
    type Output = [f64];
    fn index(&self, i: usize) -> &[f64] {
        assert!(i < self.rows, "row {i} of {}", self.rows);
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
}

impl IndexMut<usize> for Rows {
    fn index_mut(&mut self, i: usize) -> &mut [f64] {
        assert!(i < self.rows, "row {i} of {}", self.rows);
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }
}

/// The rows of a [`Rows`], in order.
#[derive(Debug, Clone)]
pub struct RowIter<'a> {
    rows: &'a Rows,
    next: usize,
}

impl<'a> Iterator for RowIter<'a> {
    type Item = &'a [f64];
    fn next(&mut self) -> Option<&'a [f64]> {
        let row = self.rows.get(self.next)?;
        self.next += 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.rows.rows - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for RowIter<'_> {}

impl<'a> IntoIterator for &'a Rows {
    type Item = &'a [f64];
    type IntoIter = RowIter<'a>;
    fn into_iter(self) -> RowIter<'a> {
        self.iter()
    }
}

/// Equal rows: no rows equal no rows, whatever their length would be.
impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        self.rows == other.rows
            && (self.rows == 0 || self.cols == other.cols)
            && self.data == other.data
    }
}

impl From<Vec<Vec<f64>>> for Rows {
    /// # Panics
    /// When the rows are not all of the same length.
    fn from(rows: Vec<Vec<f64>>) -> Rows {
        Rows::from_rows(rows)
    }
}

impl<R: AsRef<[f64]>> FromIterator<R> for Rows {
    /// # Panics
    /// When the rows are not all of the same length.
    fn from_iter<I: IntoIterator<Item = R>>(rows: I) -> Rows {
        Rows::from_rows(rows)
    }
}

impl PartialEq<Vec<Vec<f64>>> for Rows {
    fn eq(&self, other: &Vec<Vec<f64>>) -> bool {
        self.rows == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_slice())
    }
}

/// Serialised as a list of rows, each a list of numbers.
impl Serialize for Rows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Rows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rows, D::Error> {
        let rows = Vec::<Vec<f64>>::deserialize(d)?;
        if rows.windows(2).any(|w| w[0].len() != w[1].len()) {
            return Err(serde::de::Error::custom("rows of different lengths"));
        }
        Ok(Rows::from_rows(rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_as_pushed_and_serialise_as_lists() {
        let mut r = Rows::new(2);
        r.push(&[1.0, 2.0]);
        r.push(&[3.0, 4.0]);
        assert_eq!(r.len(), 2);
        assert_eq!(&r[1], &[3.0, 4.0]);
        assert_eq!(r, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert_eq!(r.iter().flatten().sum::<f64>(), 10.0);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, "[[1.0,2.0],[3.0,4.0]]");
        assert_eq!(serde_json::from_str::<Rows>(&json).unwrap(), r);
        assert!(serde_json::from_str::<Rows>("[[1.0],[2.0,3.0]]").is_err());
        // Rows of no values still count.
        let empty = Rows::zeros(3, 0);
        assert_eq!(empty.len(), 3);
        assert_eq!(empty.iter().count(), 3);
        assert_eq!(Rows::from_rows(Vec::<Vec<f64>>::new()), Rows::default());
    }
}
