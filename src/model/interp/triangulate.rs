//! The incremental Bowyer–Watson triangulation with a symbolic vertex at infinity (see the module docs).

use super::*;

/// A tetrahedron: `v[i]` its vertices (`INF` for the infinite vertex), `n[i]`
/// the neighbour across the face opposite `v[i]`. Finite cells satisfy
/// `orient(v0, v1, v2, v3) > 0`; a ghost cell is oriented as if the infinite
/// vertex were a point strictly beyond its hull face.
#[derive(Clone, Copy)]
pub(super) struct Cell {
    pub(super) v: [u32; 4],
    pub(super) n: [u32; 4],
}

/// The three positions other than `i`, in cyclic order.
pub(super) fn others(i: usize) -> [usize; 3] {
    [(i + 1) & 3, (i + 2) & 3, (i + 3) & 3]
}

pub(super) struct Builder<'a> {
    pub(super) pts: &'a [Pt],
    /// Integer width that keeps the predicates exact for these points.
    pub(super) width: Width,
    pub(super) cells: Vec<Cell>,
    pub(super) alive: Vec<bool>,
    /// Per-cell stamp: `2 * epoch + 1` in conflict, `2 * epoch` tested and not.
    pub(super) mark: Vec<u32>,
    pub(super) free: Vec<u32>,
    pub(super) epoch: u32,
    /// A live finite cell from which the next walk starts.
    pub(super) last: u32,
    pub(super) rng: u64,
    pub(super) stack: Vec<u32>,
    pub(super) conflict: Vec<u32>,
    pub(super) boundary: Vec<(u32, usize)>,
    /// Faces of new cells through the new point, chained per smaller edge
    /// vertex: (larger edge vertex, cell, face, next entry in the chain).
    pub(super) pending: Vec<(u32, u32, usize, u32)>,
    /// Number of matched pairs in `pending`.
    pub(super) matched: usize,
    /// Per vertex: head of its chain in `pending`, valid when the stamp equals
    /// the current epoch.
    pub(super) chain_head: Vec<u32>,
    pub(super) chain_stamp: Vec<u32>,
    pub(super) created: Vec<u32>,
}

impl<'a> Builder<'a> {
    /// Starts from the tetrahedron `init` (positively oriented) and its four
    /// ghosts.
    pub(super) fn new(pts: &'a [Pt], init: [u32; 4]) -> Result<Self, InterpError> {
        let mut b = Builder {
            pts,
            width: Width::for_points(pts),
            cells: Vec::with_capacity(8 * pts.len() + 8),
            alive: Vec::new(),
            mark: Vec::new(),
            free: Vec::new(),
            epoch: 0,
            last: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            stack: Vec::new(),
            conflict: Vec::new(),
            boundary: Vec::new(),
            pending: Vec::new(),
            matched: 0,
            chain_head: vec![0; pts.len()],
            chain_stamp: vec![0; pts.len()],
            created: Vec::new(),
        };
        b.alloc(init, [INF; 4]);
        for i in 0..4 {
            // The ghost across face i: swapping two finite vertices flips the
            // orientation so that the infinite vertex sits outside.
            let mut v = init;
            v[i] = INF;
            v.swap((i + 1) & 3, (i + 2) & 3);
            b.alloc(v, [INF; 4]);
        }
        // Pair up the faces of the five cells by their vertex sets.
        let mut faces: Vec<([u32; 3], u32, usize)> = Vec::new();
        for c in 0..5u32 {
            for i in 0..4 {
                let v = b.cells[c as usize].v;
                let mut key = others(i).map(|k| v[k]);
                key.sort_unstable();
                if let Some(pos) = faces.iter().position(|f| f.0 == key) {
                    let (_, oc, oi) = faces.swap_remove(pos);
                    b.cells[c as usize].n[i] = oc;
                    b.cells[oc as usize].n[oi] = c;
                } else {
                    faces.push((key, c, i));
                }
            }
        }
        if !faces.is_empty() {
            return Err(InterpError::Internal);
        }
        Ok(b)
    }

    pub(super) fn alloc(&mut self, v: [u32; 4], n: [u32; 4]) -> u32 {
        let cell = Cell { v, n };
        if let Some(c) = self.free.pop() {
            self.cells[c as usize] = cell;
            self.alive[c as usize] = true;
            c
        } else {
            self.cells.push(cell);
            self.alive.push(true);
            self.mark.push(0);
            (self.cells.len() - 1) as u32
        }
    }

    pub(super) fn pt(&self, i: u32) -> &Pt {
        &self.pts[i as usize]
    }

    pub(super) fn is_ghost(&self, c: u32) -> bool {
        self.cells[c as usize].v.contains(&INF)
    }

    pub(super) fn next_rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Orientation of finite cell `c` with vertex `i` replaced by point `p`:
    /// negative when `p` is strictly on the far side of face `i`.
    pub(super) fn orient_sub(&self, c: u32, i: usize, p: u32) -> i128 {
        let mut v = self.cells[c as usize].v;
        v[i] = p;
        let [a, b, cc, d] = v.map(|x| self.pt(x));
        self.width.orient(a, b, cc, d)
    }

    pub(super) fn in_conflict(&self, c: u32, p: u32) -> bool {
        let v = self.cells[c as usize].v;
        let pp = self.pt(p);
        match v.iter().position(|&x| x == INF) {
            None => {
                let [a, b, cc, d] = v.map(|x| self.pt(x));
                self.width.in_sphere(a, b, cc, d, pp) > 0
            }
            Some(k) => {
                let o = self.orient_sub(c, k, p);
                if o != 0 {
                    return o > 0;
                }
                let [i, j, l] = others(k);
                let (a, b, cc) = (self.pt(v[i]), self.pt(v[j]), self.pt(v[l]));
                self.width.in_circle_coplanar(a, b, cc, pp)
            }
        }
    }

    /// A cell in conflict with `p`: the finite cell containing it, or a ghost
    /// whose hull face `p` lies strictly beyond.
    pub(super) fn locate(&mut self, p: u32) -> Result<u32, InterpError> {
        let mut c = self.last;
        let budget = 4 * self.cells.len() + 64;
        for _ in 0..budget {
            let r = (self.next_rand() >> 32) as usize;
            let mut next = None;
            for t in 0..4 {
                let i = (r + t) & 3;
                if self.orient_sub(c, i, p) < 0 {
                    next = Some(self.cells[c as usize].n[i]);
                    break;
                }
            }
            match next {
                None => return Ok(c),
                Some(nb) if self.is_ghost(nb) => return Ok(nb),
                Some(nb) => c = nb,
            }
        }
        // The conflict region is connected, so any conflicting cell will do.
        (0..self.cells.len() as u32)
            .find(|&c| self.alive[c as usize] && self.in_conflict(c, p))
            .ok_or(InterpError::Internal)
    }

    pub(super) fn insert(&mut self, p: u32) -> Result<(), InterpError> {
        let seed = self.locate(p)?;
        self.epoch += 1;
        let yes = 2 * self.epoch + 1;
        let no = 2 * self.epoch;

        // Grow the conflict region from the seed across faces.
        self.stack.clear();
        self.conflict.clear();
        self.boundary.clear();
        self.mark[seed as usize] = yes;
        self.stack.push(seed);
        self.conflict.push(seed);
        while let Some(c) = self.stack.pop() {
            for i in 0..4 {
                let nb = self.cells[c as usize].n[i];
                let m = self.mark[nb as usize];
                if m == yes {
                    continue;
                }
                if m != no && self.in_conflict(nb, p) {
                    self.mark[nb as usize] = yes;
                    self.stack.push(nb);
                    self.conflict.push(nb);
                } else {
                    self.mark[nb as usize] = no;
                    self.boundary.push((c, i));
                }
            }
        }

        // Join every boundary face to p; the new cell replaces the conflict
        // cell's vertex opposite that face, which keeps the orientation.
        self.created.clear();
        self.pending.clear();
        self.matched = 0;
        for k in 0..self.boundary.len() {
            let (c, i) = self.boundary[k];
            let old = self.cells[c as usize];
            let mut v = old.v;
            v[i] = p;
            let outside = old.n[i];
            let mut n = [INF; 4];
            n[i] = outside;
            let nc = self.alloc(v, n);
            self.created.push(nc);
            let slot = self.cells[outside as usize]
                .n
                .iter()
                .position(|&x| x == c)
                .ok_or(InterpError::Internal)?;
            self.cells[outside as usize].n[slot] = nc;
            // Faces through p are shared with other new cells: match them by
            // the edge they contain besides p.
            for j in 0..4 {
                if j == i {
                    continue;
                }
                let mut e = [INF; 2];
                let mut m = 0;
                for (t, &x) in v.iter().enumerate() {
                    if t != i && t != j && m < 2 {
                        e[m] = x;
                        m += 1;
                    }
                }
                self.link_edge(e[0].min(e[1]), e[0].max(e[1]), nc, j)?;
            }
        }
        // The cavity boundary is a closed surface: every edge lies in exactly
        // two boundary faces, so every entry must have found its partner.
        if self.pending.len() != 2 * self.matched {
            return Err(InterpError::Internal);
        }
        for k in 0..self.conflict.len() {
            let c = self.conflict[k];
            self.alive[c as usize] = false;
            self.free.push(c);
        }
        self.last = self
            .created
            .iter()
            .copied()
            .find(|&c| !self.is_ghost(c))
            .ok_or(InterpError::Internal)?;
        Ok(())
    }

    /// Pairs face `j` of new cell `c` with the other new cell sharing the edge
    /// `e0 < e1` (and the new point), or records it until that cell appears.
    pub(super) fn link_edge(
        &mut self,
        e0: u32,
        e1: u32,
        c: u32,
        j: usize,
    ) -> Result<(), InterpError> {
        let e = e0 as usize;
        if e >= self.chain_head.len() {
            return Err(InterpError::Internal);
        }
        let mut at = if self.chain_stamp[e] == self.epoch {
            self.chain_head[e]
        } else {
            INF
        };
        while at != INF {
            let (x, oc, oj, next) = self.pending[at as usize];
            if x == e1 {
                // Consume the entry so it cannot be matched twice.
                self.pending[at as usize].0 = CONSUMED;
                self.cells[c as usize].n[j] = oc;
                self.cells[oc as usize].n[oj] = c;
                self.pending.push((CONSUMED, c, j, INF));
                self.matched += 1;
                return Ok(());
            }
            at = next;
        }
        let head = if self.chain_stamp[e] == self.epoch {
            self.chain_head[e]
        } else {
            INF
        };
        self.chain_stamp[e] = self.epoch;
        self.chain_head[e] = self.pending.len() as u32;
        self.pending.push((e1, c, j, head));
        Ok(())
    }

    /// Checks the invariants and returns the finite cells in slot order.
    pub(super) fn finish(&self) -> Result<Vec<[u32; 4]>, InterpError> {
        let mut tets = Vec::new();
        for (c, cell) in self.cells.iter().enumerate() {
            if !self.alive[c] {
                continue;
            }
            for &nb in &cell.n {
                let ok = self.alive.get(nb as usize).copied().unwrap_or(false)
                    && self.cells[nb as usize].n.contains(&(c as u32));
                if !ok {
                    return Err(InterpError::Internal);
                }
            }
            if cell.v.contains(&INF) {
                continue;
            }
            let [a, b, cc, d] = cell.v.map(|i| self.pt(i));
            if orient(a, b, cc, d) <= 0 {
                return Err(InterpError::Internal);
            }
            tets.push(cell.v);
        }
        Ok(tets)
    }
}

/// Delaunay triangulation of distinct points (each within range).
pub(super) fn triangulate(pts: &[Pt]) -> Result<Vec<[u32; 4]>, InterpError> {
    if pts.len() < 4 {
        return Err(InterpError::TooFewPoints);
    }
    // First simplex: the first point, the next one, the first point not on
    // their line and the first point not in their plane.
    let (p0, p1) = (&pts[0], &pts[1]);
    let u = diff(p1, p0);
    let i2 = (2..pts.len())
        .find(|&i| cross(&u, &diff(&pts[i], p0)) != [0, 0, 0])
        .ok_or(InterpError::Degenerate)?;
    let i3 = (i2 + 1..pts.len())
        .find(|&i| orient(p0, p1, &pts[i2], &pts[i]) != 0)
        .ok_or(InterpError::Degenerate)?;
    let mut init = [0u32, 1, i2 as u32, i3 as u32];
    if orient(p0, p1, &pts[i2], &pts[i3]) < 0 {
        init.swap(0, 1);
    }
    let mut b = Builder::new(pts, init)?;
    for i in 0..pts.len() as u32 {
        if i != 0 && i != 1 && i as usize != i2 && i as usize != i3 {
            b.insert(i)?;
        }
    }
    b.finish()
}

// ---------------------------------------------------------------------------
// Query structures.
// ---------------------------------------------------------------------------
