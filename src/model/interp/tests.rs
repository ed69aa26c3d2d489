use super::*;
use std::collections::HashMap;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 42) as f64
    }
}

fn affine(p: [f64; 3]) -> [f64; 2] {
    [
        1.5 + 0.25 * p[0] - 0.75 * p[1] + 0.125 * p[2],
        -3.0 + 2.0 * p[0] + 0.5 * p[1] - 0.0625 * p[2],
    ]
}

fn affine_values(pts: &[Pt]) -> Vec<[f64; 2]> {
    pts.iter().map(|p| affine(p.map(|x| x as f64))).collect()
}

fn close(a: [f64; 2], b: [f64; 2], scale: f64) -> bool {
    (0..2).all(|k| (a[k] - b[k]).abs() <= 1e-9 * (1.0 + scale + b[k].abs()))
}

fn point(nd: &LinearNd, i: u32) -> &Pt {
    &nd.points[i as usize]
}

/// Proper tiling of the hull: positive volumes, every face shared by at
/// most two tetrahedra lying on opposite sides, every boundary face a
/// supporting plane of the point set, every point a vertex, and the empty
/// circumsphere property. Returns six times the total volume.
fn check_triangulation(nd: &LinearNd) -> i128 {
    let mut total = 0i128;
    let mut faces: HashMap<[u32; 3], Vec<(usize, usize)>> = HashMap::new();
    let mut used = vec![false; nd.points.len()];
    for (t, tet) in nd.tets.iter().enumerate() {
        let [a, b, c, d] = tet.v.map(|i| point(nd, i));
        let vol = orient(a, b, c, d);
        assert!(vol > 0, "tetrahedron {t} has volume {vol}");
        total += vol;
        for i in 0..4 {
            used[tet.v[i] as usize] = true;
            let mut key = others(i).map(|k| tet.v[k]);
            key.sort_unstable();
            faces.entry(key).or_default().push((t, i));
        }
        for (j, p) in nd.points.iter().enumerate() {
            assert!(
                in_sphere(a, b, c, d, p) <= 0,
                "point {j} strictly inside circumsphere of tetrahedron {t}"
            );
        }
    }
    assert!(used.iter().all(|&u| u), "a point is not a vertex");
    for (key, list) in &faces {
        let [x, y, z] = key.map(|i| point(nd, i));
        match list.as_slice() {
            [(t1, i1), (t2, i2)] => {
                let s1 = orient(x, y, z, point(nd, nd.tets[*t1].v[*i1]));
                let s2 = orient(x, y, z, point(nd, nd.tets[*t2].v[*i2]));
                assert!(s1.signum() * s2.signum() < 0, "face {key:?} not separating");
            }
            [(t, i)] => {
                let apex = point(nd, nd.tets[*t].v[*i]);
                let inner = orient(x, y, z, apex).signum();
                for p in &nd.points {
                    assert!(
                        orient(x, y, z, p).signum() * inner >= 0,
                        "hull face {key:?} is not a supporting plane"
                    );
                }
            }
            _ => panic!("face {key:?} in {} tetrahedra", list.len()),
        }
    }
    total
}

/// A query inside the hull: a random convex combination of four points.
fn inside_query(rng: &mut Lcg, pts: &[Pt]) -> [f64; 3] {
    let mut w = [0.0; 4];
    for x in &mut w {
        *x = rng.unit() + 1e-3;
    }
    let s: f64 = w.iter().sum();
    let mut q = [0.0; 3];
    for x in &w {
        let p = pts[rng.below(pts.len() as u64) as usize];
        for k in 0..3 {
            q[k] += x / s * p[k] as f64;
        }
    }
    q
}

fn check_affine(nd: &LinearNd, pts: &[Pt], rng: &mut Lcg, n: usize) {
    let scale = pts
        .iter()
        .flatten()
        .fold(0.0f64, |m, &x| m.max((x as f64).abs()));
    for p in pts {
        let q = p.map(|x| x as f64);
        let got = nd.eval(q).expect("data point inside hull");
        assert!(close(got, affine(q), scale), "{p:?}: {got:?}");
    }
    for _ in 0..n {
        let q = inside_query(rng, pts);
        let got = nd.eval(q).expect("convex combination inside hull");
        assert!(
            close(got, affine(q), scale),
            "{q:?}: {got:?} vs {:?}",
            affine(q)
        );
    }
}

fn realistic_points(seed: u64) -> Vec<Pt> {
    let bsz = [
        4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512,
        640, 768, 1024,
    ];
    let mut rng = Lcg(seed);
    let mut pts = Vec::new();
    for n in [1i64, 2, 3, 4, 6, 8, 12, 16] {
        for r in n..=4 * n {
            let before = pts.len();
            for &b in &bsz {
                if rng.below(100) < 42 {
                    pts.push([n, r, b]);
                }
            }
            if pts.len() == before {
                pts.push([n, r, bsz[rng.below(bsz.len() as u64) as usize]]);
            }
        }
    }
    pts
}

#[test]
fn predicate_signs() {
    let a = [0, 0, 0];
    let b = [4, 0, 0];
    let c = [0, 4, 0];
    let d = [0, 0, 4];
    assert!(orient(&a, &b, &c, &d) > 0);
    assert!(in_sphere(&a, &b, &c, &d, &[1, 1, 1]) > 0);
    assert!(in_sphere(&a, &b, &c, &d, &[4, 4, 4]) == 0);
    assert!(in_sphere(&a, &b, &c, &d, &[5, 5, 5]) < 0);
    for w in [Width::Narrow, Width::Mid, Width::Wide] {
        assert!(w.in_circle_coplanar(&a, &b, &c, &[1, 1, 0]));
        assert!(w.in_circle_coplanar(&a, &c, &b, &[1, 1, 0]));
        assert!(!w.in_circle_coplanar(&a, &b, &c, &[4, 4, 0]));
        assert!(!w.in_circle_coplanar(&a, &b, &c, &[5, 4, 0]));
    }
    // Each width agrees with the i128 evaluation up to its span limit (the
    // coplanar test adds one unit to a coordinate, hence the + 1).
    let mut rng = Lcg(99);
    for (w, span) in [(Width::Narrow, 1u64 << 11), (Width::Mid, 1 << 16)] {
        for i in 0..20000 {
            let mut p: Vec<Pt> = (0..5)
                .map(|_| {
                    [0, 1, 2].map(|_| {
                        let x = if i % 2 == 0 {
                            rng.below(2) * (span - 1)
                        } else {
                            rng.below(span)
                        };
                        x as i64 + 1000
                    })
                })
                .collect();
            p[3][i % 3] = if i % 4 == 1 { 1000 } else { 1000 + span as i64 };
            let (a, b, c, d, e) = (&p[0], &p[1], &p[2], &p[3], &p[4]);
            assert_eq!(w.orient(a, b, c, d), orient(a, b, c, d));
            assert_eq!(w.in_sphere(a, b, c, d, e), in_sphere(a, b, c, d, e));
        }
    }
    let span_pts = |s: i64| [[0, 0, 0], [s, 1, 1], [1, 1, 1]];
    assert_eq!(Width::for_points(&span_pts(2047)), Width::Narrow);
    assert_eq!(Width::for_points(&span_pts(2048)), Width::Mid);
    assert_eq!(Width::for_points(&span_pts(65535)), Width::Mid);
    assert_eq!(Width::for_points(&span_pts(65536)), Width::Wide);
    // Extreme coordinates stay exact.
    let m = MAX_COORD;
    let (a, b, c, d) = ([-m, -m, -m], [m, -m, -m], [-m, m, -m], [-m, -m, m]);
    assert!(orient(&a, &b, &c, &d) > 0);
    assert_eq!(in_sphere(&a, &b, &c, &d, &[m, m, m]), 0);
    assert!(in_sphere(&a, &b, &c, &d, &[m - 1, m, m]) > 0);
    assert!(in_sphere(&a, &b, &c, &d, &[m, m, -m - 1]) < 0);
}

#[test]
fn random_points_affine_and_volume() {
    let mut rng = Lcg(7);
    for round in 0..6 {
        let n = 60 + 60 * round;
        let side = [10, 1000, 100_000][round % 3] as i64;
        // The eight box corners make the hull the box itself.
        let mut pts: Vec<Pt> = (0..8)
            .map(|i| [(i & 1) * side, ((i >> 1) & 1) * side, ((i >> 2) & 1) * side])
            .collect();
        for _ in 0..n {
            pts.push([0, 1, 2].map(|_| rng.below(side as u64 + 1) as i64));
        }
        // Mix the corners into the order.
        let len = pts.len() as u64;
        for i in 0..8 {
            pts.swap(i, rng.below(len) as usize);
        }
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        assert_eq!(check_triangulation(&nd), 6 * (side as i128).pow(3));
        check_affine(&nd, &nd.points.clone(), &mut rng, 500);
    }
}

#[test]
fn general_position_hull_is_not_a_box() {
    // Random points without the box corners: the hull volume is checked by
    // the supporting-plane test of every boundary face.
    let mut rng = Lcg(11);
    let pts: Vec<Pt> = (0..400)
        .map(|_| [0, 1, 2].map(|_| rng.below(100_001) as i64))
        .collect();
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    check_triangulation(&nd);
    check_affine(&nd, &pts, &mut rng, 1000);
}

#[test]
fn full_grid() {
    let mut pts = Vec::new();
    for x in 0..4 {
        for y in 0..4 {
            for z in 0..4 {
                pts.push([x, y, z]);
            }
        }
    }
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    assert_eq!(check_triangulation(&nd), 6 * 27);
    let mut rng = Lcg(3);
    check_affine(&nd, &pts, &mut rng, 2000);
    for _ in 0..500 {
        let q = [0, 1, 2].map(|_| 3.0 * rng.unit());
        let got = nd.eval(q).unwrap();
        assert!(close(got, affine(q), 3.0));
    }
    // Grid nodes, edge midpoints and face centres (on shared faces).
    for x in 0..7 {
        for y in 0..7 {
            for z in 0..7 {
                let q = [x as f64 / 2.0, y as f64 / 2.0, z as f64 / 2.0];
                assert!(close(nd.eval(q).unwrap(), affine(q), 3.0));
            }
        }
    }
    assert_eq!(nd.eval([-0.01, 1.0, 1.0]), None);
    assert_eq!(nd.eval([1.0, 3.01, 1.0]), None);
}

#[test]
fn grids_in_various_orders() {
    let mut rng = Lcg(5);
    for (dims, scale) in [
        ([3, 4, 5], [1, 7, 100]),
        ([5, 5, 5], [2, 2, 2]),
        ([2, 2, 9], [3, 5, 1]),
    ] {
        let mut pts = Vec::new();
        for x in 0..dims[0] {
            for y in 0..dims[1] {
                for z in 0..dims[2] {
                    pts.push([x * scale[0], y * scale[1], z * scale[2]]);
                }
            }
        }
        let vol: i128 = (0..3).map(|k| ((dims[k] - 1) * scale[k]) as i128).product();
        for round in 0..3 {
            if round == 1 {
                pts.reverse();
            } else if round == 2 {
                for i in (1..pts.len()).rev() {
                    pts.swap(i, rng.below(i as u64 + 1) as usize);
                }
            }
            let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
            assert_eq!(check_triangulation(&nd), 6 * vol);
            check_affine(&nd, &pts, &mut rng, 300);
        }
    }
}

#[test]
fn simplex_lattice_volume() {
    // All lattice points with x + y + z <= 10: hull is the corner simplex.
    let mut pts = Vec::new();
    for x in 0..=10 {
        for y in 0..=10 - x {
            for z in 0..=10 - x - y {
                pts.push([x, y, z]);
            }
        }
    }
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    assert_eq!(check_triangulation(&nd), 1000);
    check_affine(&nd, &pts, &mut Lcg(9), 500);
    assert_eq!(nd.eval([4.0, 4.0, 2.5]), None);
    assert!(nd.eval([4.0, 4.0, 2.0]).is_some());
}

#[test]
fn realistic_shape() {
    for seed in [1, 2, 3] {
        let pts = realistic_points(seed);
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        check_triangulation(&nd);
        let mut rng = Lcg(seed);
        check_affine(&nd, &pts, &mut rng, 3000);
        // Integer queries at unprofiled placements inside the hull.
        let mut hits = 0;
        for _ in 0..3000 {
            let n = 1 + rng.below(16) as i64;
            let r = n + rng.below(3 * n as u64 + 1) as i64;
            let b = 4 + rng.below(1021) as i64;
            let q = [n as f64, r as f64, b as f64];
            if let Some(got) = nd.eval(q) {
                hits += 1;
                assert!(close(got, affine(q), 1024.0));
            }
        }
        assert!(hits > 1000);
        assert_eq!(nd.eval([17.0, 20.0, 64.0]), None);
        assert_eq!(nd.eval([4.0, 40.0, 64.0]), None);
        assert_eq!(nd.eval([4.0, 8.0, 2000.0]), None);
    }
}

#[test]
fn realistic_shuffled_and_with_duplicates() {
    let mut rng = Lcg(77);
    let mut pts = realistic_points(4);
    for i in (1..pts.len()).rev() {
        pts.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let extra: Vec<Pt> = pts.iter().step_by(5).copied().collect();
    pts.extend(extra);
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    check_triangulation(&nd);
    check_affine(&nd, &pts, &mut rng, 1000);
}

#[test]
fn timing_realistic() {
    let mut pts = realistic_points(1);
    let mut rng = Lcg(1);
    while pts.len() < 1700 {
        let n = [1, 2, 3, 4, 6, 8, 12, 16][rng.below(8) as usize];
        pts.push([
            n,
            n + rng.below(3 * n as u64 + 1) as i64,
            4 + rng.below(1021) as i64,
        ]);
    }
    pts.truncate(1700);
    let vals = affine_values(&pts);
    // Best of five builds (the machine may be shared).
    let mut build = std::time::Duration::MAX;
    let mut nd = None;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        nd = Some(LinearNd::new(&pts, &vals).unwrap());
        build = build.min(t.elapsed());
    }
    let nd = nd.unwrap();
    let random: Vec<[f64; 3]> = (0..20000).map(|_| inside_query(&mut rng, &pts)).collect();
    let integer: Vec<[f64; 3]> = (0..20000)
        .map(|_| {
            let n = 1 + rng.below(16);
            let r = n + rng.below(3 * n + 1);
            [n as f64, r as f64, 4.0 + rng.below(1021) as f64]
        })
        .collect();
    let mut acc = 0.0;
    let mut per_query = Vec::new();
    for queries in [&random, &integer] {
        let t = std::time::Instant::now();
        for q in queries.iter() {
            acc += nd.eval(*q).map_or(0.0, |v| v[0]);
        }
        per_query.push(t.elapsed() / queries.len() as u32);
    }
    println!(
        "1700 points: {} tetrahedra, build {build:?}, query {:?} (random inside) / {:?} (integer), grid {} cells / {} entries",
        nd.num_tetrahedra(),
        per_query[0],
        per_query[1],
        nd.grid.start.len() - 1,
        nd.grid.items.len(),
    );
    assert!(acc.is_finite());
}

#[test]
fn data_values_reproduced() {
    let mut rng = Lcg(21);
    let pts: Vec<Pt> = (0..300)
        .map(|_| [0, 1, 2].map(|_| rng.below(50) as i64))
        .collect();
    let vals: Vec<[f64; 2]> = (0..pts.len())
        .map(|_| [rng.unit(), 10.0 * rng.unit()])
        .collect();
    let nd = LinearNd::new(&pts, &vals).unwrap();
    check_triangulation(&nd);
    let mut first: HashMap<Pt, [f64; 2]> = HashMap::new();
    for (p, v) in pts.iter().zip(&vals) {
        first.entry(*p).or_insert(*v);
    }
    for (p, v) in &first {
        let got = nd.eval(p.map(|x| x as f64)).unwrap();
        assert!((got[0] - v[0]).abs() < 1e-12 && (got[1] - v[1]).abs() < 1e-12);
    }
}

#[test]
fn duplicates_keep_first_value() {
    let pts = [
        [0, 0, 0],
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
        [1, 0, 0],
        [0, 0, 0],
    ];
    let vals = [
        [1.0, 2.0],
        [3.0, 4.0],
        [5.0, 6.0],
        [7.0, 8.0],
        [99.0, 99.0],
        [-1.0, -1.0],
    ];
    let nd = LinearNd::new(&pts, &vals).unwrap();
    assert_eq!(nd.num_tetrahedra(), 1);
    assert_eq!(nd.eval([0.0, 0.0, 0.0]), Some([1.0, 2.0]));
    assert_eq!(nd.eval([1.0, 0.0, 0.0]), Some([3.0, 4.0]));
    let mid = nd.eval([0.5, 0.0, 0.0]).unwrap();
    assert!((mid[0] - 2.0).abs() < 1e-15 && (mid[1] - 3.0).abs() < 1e-15);
    assert_eq!(nd.eval([0.5, 0.5, 0.5]), None);
}

#[test]
fn errors() {
    let v = |n: usize| vec![[0.0; 2]; n];
    let coplanar: Vec<Pt> = (0..50).map(|i| [i % 7, i / 7, 3]).collect();
    assert_eq!(
        LinearNd::new(&coplanar, &v(50)).err(),
        Some(InterpError::Degenerate)
    );
    let tilted: Vec<Pt> = (0..30).map(|i| [i % 5, i / 5, i % 5 + i / 5]).collect();
    assert_eq!(
        LinearNd::new(&tilted, &v(30)).err(),
        Some(InterpError::Degenerate)
    );
    let collinear: Vec<Pt> = (0..10).map(|i| [i, 2 * i, 3 * i]).collect();
    assert_eq!(
        LinearNd::new(&collinear, &v(10)).err(),
        Some(InterpError::Degenerate)
    );
    let same = [[1, 1, 1]; 6];
    assert_eq!(
        LinearNd::new(&same, &v(6)).err(),
        Some(InterpError::TooFewPoints)
    );
    assert_eq!(
        LinearNd::new(&[], &[]).err(),
        Some(InterpError::TooFewPoints)
    );
    let three = [[0, 0, 0], [1, 0, 0], [0, 1, 0]];
    assert_eq!(
        LinearNd::new(&three, &v(3)).err(),
        Some(InterpError::TooFewPoints)
    );
    assert_eq!(
        LinearNd::new(&three, &v(2)).err(),
        Some(InterpError::LengthMismatch)
    );
    let big = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, i64::MIN]];
    assert_eq!(
        LinearNd::new(&big, &v(4)).err(),
        Some(InterpError::OutOfRange)
    );
    assert!(!InterpError::Degenerate.to_string().is_empty());
    // Coplanar prefix followed by one point off the plane.
    let mut pts = coplanar.clone();
    pts.push([2, 2, 4]);
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    check_triangulation(&nd);
    check_affine(&nd, &pts, &mut Lcg(1), 200);
}

#[test]
fn outside_and_non_finite_queries() {
    let pts: Vec<Pt> = (0..8)
        .map(|i| [(i & 1) * 10, ((i >> 1) & 1) * 10, ((i >> 2) & 1) * 10])
        .collect();
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    assert_eq!(nd.eval([f64::NAN, 1.0, 1.0]), None);
    assert_eq!(nd.eval([f64::INFINITY, 1.0, 1.0]), None);
    assert_eq!(nd.eval([11.0, 1.0, 1.0]), None);
    assert_eq!(nd.eval([5.0, 5.0, -1e-6]), None);
    assert!(nd.eval([5.0, 5.0, 0.0]).is_some());
    assert!(nd.eval([10.0, 10.0, 10.0]).is_some());
}

#[test]
fn fuzz_degenerate_small_sets() {
    // Random subsets of small lattices: many coplanar, co-spherical and
    // collinear configurations. Never panics; valid output when built.
    let mut rng = Lcg(1234);
    let mut built = 0;
    for round in 0..400 {
        let side = 2 + (round % 4) as u64;
        let n = 4 + rng.below(40) as usize;
        let pts: Vec<Pt> = (0..n)
            .map(|_| [0, 1, 2].map(|_| rng.below(side) as i64 * (1 + (round % 3) as i64)))
            .collect();
        match LinearNd::new(&pts, &affine_values(&pts)) {
            Ok(nd) => {
                built += 1;
                check_triangulation(&nd);
                let uniq = nd.points.clone();
                check_affine(&nd, &uniq, &mut rng, 50);
            }
            Err(e) => assert!(matches!(
                e,
                InterpError::Degenerate | InterpError::TooFewPoints
            )),
        }
    }
    assert!(built > 300);
}

#[test]
fn deterministic() {
    let pts = realistic_points(5);
    let a = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    let b = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    assert_eq!(
        a.tets.iter().map(|t| t.v).collect::<Vec<_>>(),
        b.tets.iter().map(|t| t.v).collect::<Vec<_>>()
    );
}

#[test]
fn grid_lookup_matches_brute_force() {
    // The bucket grid returns exactly the lowest-index tetrahedron that
    // contains the query (integer queries often lie on shared faces).
    let pts = realistic_points(6);
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    let mut rng = Lcg(6);
    for i in 0..4000 {
        let q = if i % 2 == 0 {
            let n = 1 + rng.below(16);
            let r = n + rng.below(3 * n + 1);
            [n as f64, r as f64, 4.0 + rng.below(1021) as f64]
        } else {
            inside_query(&mut rng, &pts)
        };
        let brute = nd.tets.iter().position(|t| t.bary(&q).is_some());
        let via_grid = nd
            .grid
            .bucket(&q)
            .iter()
            .copied()
            .find(|&t| nd.tets[t as usize].bary(&q).is_some());
        assert_eq!(brute, via_grid.map(|t| t as usize), "{q:?}");
        assert_eq!(brute.is_some(), nd.eval(q).is_some());
    }
}

#[test]
fn wider_coordinates_use_wider_predicates() {
    // Larger spans take the mixed and the i128 predicates; same checks.
    let mut rng = Lcg(19);
    for (scale, width) in [([1, 1, 30], Width::Mid), ([5000, 3000, 90], Width::Wide)] {
        let mut pts: Vec<Pt> = realistic_points(7)
            .iter()
            .map(|p| [0, 1, 2].map(|k| p[k] * scale[k]))
            .collect();
        pts.truncate(600);
        pts.push([0, 0, 0]);
        assert_eq!(Width::for_points(&pts), width);
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        check_triangulation(&nd);
        check_affine(&nd, &pts, &mut rng, 500);
    }
    let m = MAX_COORD;
    let corners: Vec<Pt> = (0..8)
        .map(|i| [0, 1, 2].map(|k| if (i >> k) & 1 == 1 { m } else { -m }))
        .chain((0..40).map(|_| [0, 1, 2].map(|_| rng.below(2 * m as u64 + 1) as i64 - m)))
        .collect();
    let nd = LinearNd::new(&corners, &affine_values(&corners)).unwrap();
    assert_eq!(check_triangulation(&nd), 6 * (2 * m as i128).pow(3));
}

#[test]
fn lowest_index_on_shared_face() {
    // On a face shared by two tetrahedra the lowest-index one is used.
    let pts: Vec<Pt> = (0..8)
        .map(|i| [(i & 1) * 6, ((i >> 1) & 1) * 6, ((i >> 2) & 1) * 6])
        .collect();
    let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
    let mut rng = Lcg(8);
    for _ in 0..2000 {
        let q = [0, 1, 2].map(|_| rng.below(13) as f64 / 2.0);
        let first = nd.tets.iter().position(|t| t.bary(&q).is_some());
        let via_grid = nd
            .grid
            .bucket(&q)
            .iter()
            .copied()
            .find(|&t| nd.tets[t as usize].bary(&q).is_some());
        assert_eq!(first, via_grid.map(|t| t as usize));
    }
}
