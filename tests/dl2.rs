//! DL2's world: the parameter-server speed function on hand-computed values, the slot
//! simulator's timing, reward and resource invariants, DRF on a hand-solved case, every
//! heuristic on the bundled scenario, determinism, the decision log for supervised
//! learning, and refused setups.

use orrery::experiment::scenarios;

use orrery::experiment::{run, Experiment, ExperimentError, ProfileSource, WorkloadSource};
use orrery::model::cluster::ClusterSpec;
use orrery::model::job::{JobId, JobSpec};
use orrery::policy::dl2;
use orrery::sim::slots::{
    DecisionLog, SlotAction, SlotConfig, SlotObserver, SlotSimulator, SlotStep, SlotView,
    STATE_FEATURES,
};
use orrery::sim::SimEvent;
use orrery::workload::ps::{PsConfig, PsModels};
use orrery::workload::{presets, WorkloadError};
use std::sync::Arc;

fn bundled() -> PsModels {
    presets::ps_models("dl2-models")
        .expect("bundled")
        .expect("parses")
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-12)
}

#[test]
fn speed_matches_hand_computed_values() {
    let m = bundled();
    let r = &m.models[m.index("resnet50").unwrap()];
    // Compute: 32 images x 12.3 GFLOP / (15.7 TFLOP/s x 0.35) = 393.6 / 5495 s = 0.0716288 s.
    assert!(close(r.compute_s, 0.071_628_8, 1e-5), "{}", r.compute_s);
    // Model: 25.6M x 4 B = 0.1024 GB; 25 Gbit/s = 3.125 GB/s; both ways: 0.065536 s.
    // (1, 1): 0.0716288 + 0.065536 + 0.01 + 0.005 = 0.1521648 s per step.
    assert!(close(r.step_time(1, 1), 0.152_164_8, 1e-5));
    assert!(close(r.speed(1, 1), 1.0 / 0.152_164_8, 1e-5));
    // (8, 2): the parameter servers' side 2 x 0.1024 x 8 / (2 x 3.125) = 0.262144 s
    // exceeds the workers' 0.065536 s: 0.0716288 + 0.262144 + 0.01 + 0.04 = 0.3837728 s.
    assert!(close(r.step_time(8, 2), 0.383_772_8, 1e-5));
    assert!(close(r.speed(8, 2), 8.0 / 0.383_772_8, 1e-5));
    assert!(r.ps_bound(8, 2) && !r.ps_bound(8, 8));
    // An epoch of ImageNet at batch 32: 1,281,167 / 32 steps.
    assert!(close(r.steps_per_epoch(), 40_036.468_75, 1e-12));
    let v = &m.models[m.index("vgg16").unwrap()];
    // 138.4M x 4 B = 0.5536 GB; 32 x 46.5 GFLOP / 5495 GFLOP/s = 0.2707916 s;
    // (4, 4): 0.2707916 + 2 x 0.5536 / 3.125 + 0.01 + 0.02 = 0.6550956 s.
    assert!(close(v.step_time(4, 4), 0.655_095_6, 1e-5));
    assert_eq!(v.speed(0, 4), 0.0);
    assert_eq!(v.speed(4, 0), 0.0);
}

#[test]
fn speed_grows_with_workers_with_diminishing_returns() {
    for m in &bundled().models {
        let mut last = 0.0;
        let mut last_per_worker = f64::INFINITY;
        for w in 1..=16 {
            // Enough parameter servers that they are not the bottleneck.
            let s = m.speed(w, w);
            let per = s / f64::from(w);
            assert!(s > last, "{}: speed({w}, {w}) = {s} <= {last}", m.name);
            assert!(
                per < last_per_worker,
                "{}: no diminishing returns at {w}",
                m.name
            );
            last = s;
            last_per_worker = per;
        }
        // Sixteen workers are worth less than sixteen times one.
        assert!(m.speed(16, 16) < 16.0 * m.speed(1, 1));
    }
}

#[test]
fn few_parameter_servers_are_a_bottleneck() {
    for m in &bundled().models {
        for p in 1..=4u32 {
            // The parameter servers' links cap the speed at p x B / (2 S) whatever the workers.
            let cap = f64::from(p) * m.ps_gbs / (2.0 * m.model_gb);
            for w in 1..=32 {
                assert!(m.speed(w, p) < cap, "{} ({w}, {p})", m.name);
            }
        }
    }
    // For communication-heavy models one parameter server wastes most of eight workers.
    let b = bundled();
    for name in ["vgg16", "seq2seq", "resnet50", "dssm"] {
        let m = &b.models[b.index(name).unwrap()];
        assert!(m.speed(8, 1) < 0.5 * m.speed(8, 8), "{name}");
        assert!(
            m.speed(16, 1) < 1.1 * m.speed(8, 1),
            "{name}: more workers barely help"
        );
        assert!(m.speed(8, 4) > 1.5 * m.speed(8, 1), "{name}");
    }
}

#[test]
fn profile_errors_name_file_line_and_field() {
    let text = presets::PS_PROFILES[0].text;
    let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
    let entry = "{\"name\": \"googlenet\"";
    let bad = text.replacen(
        "\"batch\": 64, \"dataset\": 1281167",
        "\"batch\": 0, \"dataset\": 1281167",
        1,
    );
    let e = PsModels::from_json(&bad, "dl2_models.json").unwrap_err();
    assert_eq!(
        e,
        WorkloadError::Field {
            file: "dl2_models.json".into(),
            line: line_of(entry),
            field: "batch".into(),
            reason: "0 must be 1 to 1,048,576".into(),
        }
    );
    let bad = text.replacen("\"epochs\": [1, 4]", "\"epochs\": [4, 1]", 1);
    let e = PsModels::from_json(&bad, "dl2_models.json").unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "dl2_models.json:{}: field 'epochs'",
            line_of("\"resnet50\"")
        )),
        "{e}"
    );
    let bad = text.replacen("\"ps_gbps\": 25", "\"ps_gbps\": -1", 1);
    let e = PsModels::from_json(&bad, "dl2_models.json").unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "dl2_models.json:{}: field 'ps_gbps'",
            line_of("\"ps_gbps\"")
        )),
        "{e}"
    );
    let e = PsModels::from_json("{\"format\": \"orrery-ps-models\",\n \"x\": 1}", "p.json")
        .unwrap_err();
    assert!(matches!(e, WorkloadError::Field { field, .. } if field == "json"));
}

/// A profile of hand-made types: "a" steps in 0.4 s at (1, 1) (0.1 s compute, 0.2 s moving
/// a 0.1 GB model at 1 GB/s, 0.1 s overhead); "g" and "c" are tiny models whose workers
/// need 1 and 6 CPUs and whose parameter servers need 1 and 2.
const HAND: &str = r#"{
  "format": "orrery-ps-models", "version": 1,
  "hardware": {"gpu_tflops": 10, "gpu_efficiency": 0.5, "worker_gbps": 8, "ps_gbps": 8,
               "step_overhead_s": 0.1, "sync_s_per_worker": 0},
  "worker_cpus": 1, "ps_cpus": 1,
  "models": [
    {"name": "a", "params_m": 25, "gflops_per_sample": 10, "batch": 50, "dataset": 5000, "epochs": [1, 2]},
    {"name": "g", "params_m": 0.001, "gflops_per_sample": 1, "batch": 50, "dataset": 5000, "epochs": [1, 2]},
    {"name": "c", "params_m": 0.001, "gflops_per_sample": 1, "batch": 50, "dataset": 5000, "epochs": [1, 2], "worker_cpus": 6, "ps_cpus": 2}
  ]
}"#;

fn hand_sim(
    cluster: &str,
    cpus: u32,
    max_ps: u32,
    jobs: Vec<JobSpec>,
    policy: &str,
    slot_s: f64,
) -> SlotSimulator {
    let models = Arc::new(PsModels::from_json(HAND, "hand.json").unwrap());
    let cfg = SlotConfig {
        slot_s,
        restart: orrery::model::restart::RestartModel::delay(10.0),
        ps: PsConfig {
            cpus_per_server: cpus,
            max_workers: 16,
            max_ps,
            rigid_workers: 1,
        },
        seed: 0,
        max_slots: 1000,
        dl2_compat: false,
    };
    SlotSimulator::new(
        cfg,
        &ClusterSpec::parse(cluster).unwrap(),
        jobs,
        models,
        dl2::build(policy).unwrap(),
    )
    .unwrap()
}

#[test]
fn a_job_trains_at_its_speed_pays_the_restart_and_finishes_mid_slot() {
    // One job of 300 steps at 2.5 steps/s, only its first worker and parameter server
    // (min_gain too high for more): slot 1 loses 10 s to the start, trains 90 s = 225
    // steps; slot 2 needs 75 steps = 30 s: it finishes at 130 s.
    let mut sim = hand_sim(
        "gpu:8/8",
        32,
        16,
        vec![JobSpec::new("a", 0.0, 300.0)],
        "fifo[min_gain=10]",
        100.0,
    );
    let first = sim.step_slot(&mut orrery::sim::slots::NoObserver).unwrap();
    assert!(close(first.reward, 0.75, 1e-12), "{}", first.reward);
    let ran = first
        .report
        .events
        .iter()
        .find_map(|e| match e {
            SimEvent::Ran {
                steps,
                overhead_s,
                gpus,
                ..
            } => Some((*steps, *overhead_s, *gpus)),
            _ => None,
        })
        .unwrap();
    assert!(
        close(ran.0, 225.0, 1e-12) && ran.1 == 10.0 && ran.2 == 1,
        "{ran:?}"
    );
    let second = sim.step_slot(&mut orrery::sim::slots::NoObserver).unwrap();
    assert!(close(second.reward, 0.25, 1e-12));
    let finish = second
        .report
        .events
        .iter()
        .find_map(|e| match e {
            SimEvent::Finished { time, .. } => Some(*time),
            _ => None,
        })
        .unwrap();
    assert!(close(finish, 130.0, 1e-12), "{finish}");
    // Same allocation in slot 2: no restart, no reallocation.
    assert!(!second
        .report
        .events
        .iter()
        .any(|e| matches!(e, SimEvent::Restarted { .. } | SimEvent::PsAllocated { .. })));
    assert!(sim.step_round().is_none() && sim.is_done());
}

#[test]
fn drf_equalises_dominant_shares_on_a_hand_case() {
    // One server of 12 GPUs and 36 CPUs; parameter servers capped at one per job, so DRF
    // only adds workers. "g" (1 GPU + 1 CPU per worker) has share w/12 (GPUs); "c" (1 GPU
    // + 6 CPUs per worker, 2 per PS) has (6w + 2)/36 (CPUs). From (1, 1) each, the smaller
    // share gets the next worker: g 2, 3 (0.25 > 0.222); c 2 (0.389); g 4, 5; c 3 (0.556);
    // g 6, 7; c 4 (0.722); g 8 (0.667): then the GPUs are gone.
    let jobs = vec![JobSpec::new("g", 0.0, 1e9), JobSpec::new("c", 0.0, 1e9)];
    let mut sim = hand_sim("gpu:12/12", 36, 1, jobs, "drf", 600.0);
    let mut log = DecisionLog::new(2);
    sim.step_slot(&mut log).unwrap();
    let j = sim.jobs();
    assert_eq!((j[0].workers, j[0].ps), (8, 1));
    assert_eq!((j[1].workers, j[1].ps), (4, 1));
    let v = sim.current_view();
    let (sg, sc) = (v.dominant_share(0), v.dominant_share(1));
    assert!(close(sg, 8.0 / 12.0, 1e-12) && close(sc, 26.0 / 36.0, 1e-12));
    // Within one task's share of each other.
    assert!((sg - sc).abs() <= 6.0 / 36.0);
    // The log has DRF's ten decisions as window indices: worker of job k = 3k.
    let actions: Vec<usize> = log.decisions.iter().map(|d| d.action).collect();
    assert_eq!(actions, [0, 0, 3, 0, 0, 3, 0, 0, 3, 0]);
    assert!(log
        .decisions
        .iter()
        .all(|d| d.state.len() == 2 * STATE_FEATURES && d.mask[d.action]));
}

#[test]
fn two_identical_jobs_get_identical_allocations_under_drf() {
    let jobs = vec![JobSpec::new("a", 0.0, 1e9), JobSpec::new("a", 0.0, 1e9)];
    let mut sim = hand_sim("gpu:16/8", 24, 16, jobs, "drf", 600.0);
    sim.step_round().unwrap();
    let j = sim.jobs();
    assert_eq!((j[0].workers, j[0].ps), (j[1].workers, j[1].ps));
    assert!(j[0].workers > 1);
}

/// Checks at every decision that no server is over-committed, that what is free is the
/// capacity minus what the active jobs hold, and that at the slot's first decision no job
/// has more than one worker and one parameter server and a job without them could not get
/// them.
#[derive(Default)]
struct Invariants {
    decisions: u64,
    last_slot: Option<u64>,
    bundled_first: u64,
}

impl SlotObserver for Invariants {
    fn decision(&mut self, view: &SlotView, action: SlotAction, applied: bool) {
        self.decisions += 1;
        check_servers(view, true);
        if self.last_slot != Some(view.slot) {
            self.last_slot = Some(view.slot);
            for &id in view.active {
                let j = &view.jobs[id];
                assert!(
                    j.workers <= 1 && j.ps <= 1,
                    "extras before the first decision"
                );
                if j.workers == 0 {
                    assert!(
                        !view.can(SlotAction::AddBoth(id)),
                        "job {id} left without a bundle that fits"
                    );
                }
                self.bundled_first += 1;
            }
        }
        if applied {
            assert!(view.can(action));
        }
    }
}

/// `exact`: the active jobs are all that hold resources (during the decisions; after the
/// slot, jobs that finished in it still hold theirs).
fn check_servers(view: &SlotView, exact: bool) {
    let n = view.servers.len();
    let (mut g, mut c) = (vec![0u32; n], vec![0u32; n]);
    for &id in view.active {
        let j = &view.jobs[id];
        let m = &view.models.models[j.model];
        assert_eq!(j.worker_servers.len() as u32, j.workers);
        assert_eq!(j.ps_servers.len() as u32, j.ps);
        assert!(j.workers <= view.max_workers && j.ps <= view.max_ps);
        for &s in &j.worker_servers {
            g[s] += m.worker_gpus;
            c[s] += m.worker_cpus;
        }
        for &s in &j.ps_servers {
            c[s] += m.ps_cpus;
        }
    }
    for (k, s) in view.servers.iter().enumerate() {
        assert!(
            g[k] <= s.gpus && c[k] <= s.cpus,
            "server {k} over-committed"
        );
        if exact {
            assert_eq!(s.free_gpus, s.gpus - g[k]);
            assert_eq!(s.free_cpus, s.cpus - c[k]);
        } else {
            assert!(s.free_gpus <= s.gpus - g[k] && s.free_cpus <= s.cpus - c[k]);
        }
    }
}

fn dl2_resolved() -> orrery::experiment::Resolved {
    scenarios::dl2_experiment().resolve().unwrap()
}

#[test]
fn resources_are_never_over_committed_and_bundles_come_first() {
    let r = dl2_resolved();
    let ps = r.ps().cloned().unwrap();
    for info in dl2::policies() {
        let mut sim = r.slot_simulator(info.name, &ps).unwrap();
        let mut inv = Invariants::default();
        let total_gpus = r.cluster.total_gpus();
        let mut reward = 0.0;
        while let Some(step) = sim.step_slot(&mut inv) {
            // After the slot: the same checks on the allocation the jobs trained with.
            check_servers(&sim.current_view(), false);
            reward += step.reward;
            for e in &step.report.events {
                if let SimEvent::RoundEnded { busy_gpus, .. } = e {
                    assert!(busy_gpus[0] <= total_gpus);
                }
                if let SimEvent::SlotEnded {
                    busy_cpus,
                    total_cpus,
                    ..
                } = e
                {
                    assert!(busy_cpus <= total_cpus);
                }
            }
            assert_eq!(step.invalid_actions, 0, "{}", info.name);
        }
        assert!(
            inv.decisions > 100 && inv.bundled_first > 100,
            "{}",
            info.name
        );
        // The reward sums to the work done: every job once.
        assert!(close(reward, r.trace.jobs.len() as f64, 1e-9), "{reward}");
    }
}

#[test]
fn every_heuristic_finishes_every_job_of_the_bundled_scenario() {
    let exp = scenarios::dl2_experiment();
    let results = run(&exp).unwrap();
    let names: Vec<&str> = results.iter().map(|r| r.summary.policy.as_str()).collect();
    assert_eq!(names, ["dl2", "drf", "fifo", "srtf", "optimus"]);
    println!("| policy | avg JCT (h) | p99 JCT (h) | makespan (h) | avg wait (h) | GPU util | CPU util | avg workers | avg PS | restarts |");
    for r in &results {
        let s = &r.summary;
        let p = s.ps.expect("slot runs report ps figures");
        assert_eq!(s.num_jobs, 320, "{}", s.policy);
        assert_eq!(s.unfinished, 0);
        assert!(s.max_rho.is_some_and(|r| r >= 1.0 / 64.0));
        assert!(close(p.total_reward, 320.0, 1e-9));
        assert!(p.avg_workers >= 1.0 && p.avg_ps >= 1.0);
        assert!(p.max_workers <= 16 && p.max_ps <= 16);
        assert!(s.utilization > 0.5 && s.utilization <= 1.0);
        assert!(p.cpu_utilization > 0.5 && p.cpu_utilization <= 1.0);
        println!(
            "| `{}` | {:.2} | {:.2} | {:.1} | {:.2} | {:.1}% | {:.1}% | {:.2} | {:.2} | {} |",
            s.policy,
            s.avg_jct_s / 3600.0,
            s.p99_jct_s / 3600.0,
            s.makespan_s / 3600.0,
            s.avg_wait_s / 3600.0,
            s.utilization * 100.0,
            p.cpu_utilization * 100.0,
            p.avg_workers,
            p.avg_ps,
            s.restarts
        );
    }
    // The scenario separates the policies: Optimus beats DRF, which beats FIFO and SRTF;
    // the bundled DL2 network beats DRF.
    let jct = |i: usize| results[i].summary.avg_jct_s;
    assert!(jct(4) < jct(1) && jct(1) < jct(2) && jct(1) < jct(3));
    assert!(jct(0) < jct(1), "dl2 {} against drf {}", jct(0), jct(1));
}

#[test]
fn runs_are_deterministic() {
    let exp = Experiment {
        policies: vec!["drf".into(), "optimus".into()],
        ..scenarios::dl2_experiment()
    };
    let a = run(&exp).unwrap();
    let b = run(&exp).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.summary, y.summary);
        assert_eq!(x.recorder.jobs_csv(None), y.recorder.jobs_csv(None));
    }
    // Through JSON and back (as a share link carries it), the same numbers.
    let again = Experiment::from_json(&exp.to_json()).unwrap();
    assert_eq!(again, exp);
    assert_eq!(run(&again).unwrap()[0].summary, a[0].summary);
}

#[test]
fn the_decision_log_records_drf_for_imitation() {
    let r = dl2_resolved();
    let ps = r.ps().cloned().unwrap();
    let mut sim = r.slot_simulator("drf", &ps).unwrap();
    let window = 20;
    let mut log = DecisionLog::new(window);
    let mut slots = 0;
    while slots < 30 && sim.step_slot(&mut log).is_some() {
        slots += 1;
    }
    assert_eq!(log.rewards.len(), 30);
    assert!(log.decisions.len() > 100);
    for d in &log.decisions {
        assert_eq!(d.state.len(), window * STATE_FEATURES);
        assert_eq!(d.mask.len(), SlotView::action_count(window));
        assert!(d.action < SlotView::action_count(window) && d.mask[d.action]);
        // Features: type index, slots waited, work left, dominant share, workers, PS.
        for k in 0..window {
            let f = &d.state[k * STATE_FEATURES..(k + 1) * STATE_FEATURES];
            assert!(f[0] >= 0.0 && f[0] < 8.0 && f[1] >= 0.0);
            assert!((0.0..=1.0).contains(&f[2]) && (0.0..=1.0).contains(&f[3]));
        }
    }
}

/// A policy that answers with a fixed list of window indices, then stops.
struct Scripted(Vec<usize>, usize);

impl orrery::sim::slots::SlotPolicy for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn act(&mut self, view: &SlotView, _rng: &mut orrery::rng::Rng) -> SlotAction {
        let i = self.0.get(self.1).copied();
        self.1 += 1;
        i.map_or(SlotAction::Stop, |i| view.action_at(2, i))
    }
}

fn hand_sim_with(policy: Box<dyn orrery::sim::slots::SlotPolicy>) -> SlotSimulator {
    let models = Arc::new(PsModels::from_json(HAND, "hand.json").unwrap());
    let jobs = vec![JobSpec::new("a", 0.0, 1e9), JobSpec::new("a", 0.0, 1e9)];
    SlotSimulator::new(
        SlotConfig::default(),
        &ClusterSpec::parse("gpu:16/8").unwrap(),
        jobs,
        models,
        policy,
    )
    .unwrap()
}

#[test]
fn a_policy_outside_the_registry_plugs_in_and_invalid_actions_end_the_slot() {
    // Window indices: 0 = worker of the first job, 4 = PS of the second, 2 = both for the
    // first, 6 = stop.
    let mut sim = hand_sim_with(Box::new(Scripted(vec![0, 4, 2, 6], 0)));
    let step = sim.step_slot(&mut orrery::sim::slots::NoObserver).unwrap();
    assert_eq!((step.actions, step.invalid_actions), (3, 0));
    let j = sim.jobs();
    assert_eq!((j[0].workers, j[0].ps), (3, 2));
    assert_eq!((j[1].workers, j[1].ps), (1, 2));
    let first: Vec<JobId> = sim.active().to_vec();
    assert_eq!(first, [0, 1]);
    // A job that is not active is refused, and ends the slot's decisions.
    let mut sim = hand_sim_with(Box::new(Bad));
    let step = sim.step_slot(&mut orrery::sim::slots::NoObserver).unwrap();
    assert_eq!((step.actions, step.invalid_actions), (0, 1));
    assert_eq!((sim.jobs()[0].workers, sim.jobs()[0].ps), (1, 1));
}

struct Bad;

impl orrery::sim::slots::SlotPolicy for Bad {
    fn name(&self) -> &str {
        "bad"
    }
    fn act(&mut self, _view: &SlotView, _rng: &mut orrery::rng::Rng) -> SlotAction {
        SlotAction::AddWorker(999_999)
    }
}

#[test]
fn bad_setups_are_refused_with_clear_messages() {
    let base = scenarios::dl2_experiment();
    let err = |e: Experiment| e.resolve().unwrap_err().to_string();
    let e = err(Experiment {
        policies: vec!["aryl".into()],
        ..base.clone()
    });
    assert!(
        e.contains("'aryl'") && e.contains("slots mechanism") && e.contains("inference pool"),
        "{e}"
    );
    let e = err(Experiment {
        cluster: "v100:32/8,mystery:32/8".into(),
        ..base.clone()
    });
    assert!(
        e.contains("'mystery'") && e.contains("a100, h100, k80, p100, t4, v100"),
        "{e}"
    );
    let e = err(Experiment {
        cluster: "gpu:60/8".into(),
        ..base.clone()
    });
    assert!(e.contains("whole servers"), "{e}");
    let e = err(Experiment {
        ps: Some(PsConfig {
            cpus_per_server: 3,
            ..PsConfig::default()
        }),
        ..base.clone()
    });
    assert!(e.contains("do not fit"), "{e}");
    let e = err(Experiment {
        ps: Some(PsConfig {
            max_workers: 0,
            ..PsConfig::default()
        }),
        ..base.clone()
    });
    assert!(e.contains("max_workers"), "{e}");
    let e = err(Experiment {
        profile: ProfileSource::Preset {
            name: "gavel-types".into(),
        },
        ..base.clone()
    });
    assert!(e.contains("parameter-server models"), "{e}");
    let e = err(Experiment {
        gavel_compat: true,
        ..base.clone()
    });
    assert!(e.contains("gavel_compat"), "{e}");
    // A trace job of a type the profile lacks: its line and field.
    let r = Experiment {
        workload: WorkloadSource::Inline {
            name: "jobs.csv".into(),
            text: "job_type,arrival_s,total_steps\nresnet50,0,1000\nbert,10,1000\n".into(),
        },
        ..base.clone()
    }
    .resolve();
    match r {
        Err(ExperimentError::Workload(WorkloadError::Field {
            file, line, field, ..
        })) => assert_eq!(
            (file.as_str(), line, field.as_str()),
            ("jobs.csv", 3, "job_type")
        ),
        other => panic!("{other:?}"),
    }
    // An inline trace of known types runs, each job getting its type's epoch length.
    let r = Experiment {
        workload: WorkloadSource::Inline {
            name: "jobs.csv".into(),
            text: "job_type,arrival_s,total_steps\nresnet50,0,1000\ndssm,10,1000\n".into(),
        },
        ..base
    }
    .resolve()
    .unwrap();
    assert_eq!(r.trace.jobs[1].epoch_steps, Some(1e7 / 1024.0));
}

#[test]
fn the_step_report_carries_the_reward_and_the_slot() {
    let r = dl2_resolved();
    let ps = r.ps().cloned().unwrap();
    let mut sim = r.slot_simulator("optimus", &ps).unwrap();
    struct Count(u64, f64);
    impl SlotObserver for Count {
        fn slot_end(&mut self, step: &SlotStep) {
            self.0 += 1;
            self.1 += step.reward;
        }
    }
    let mut c = Count(0, 0.0);
    let mut from_events = 0.0;
    while let Some(step) = sim.step_slot(&mut c) {
        for e in &step.report.events {
            if let SimEvent::SlotEnded { reward, .. } = e {
                assert_eq!(*reward, step.reward);
                from_events += reward;
            }
        }
    }
    assert!(c.0 > 10);
    assert_eq!(c.1, from_events);
}

#[test]
fn an_experiment_carries_its_network_through_a_link() {
    use orrery::experiment::NetworkSource;
    use orrery::nn::{Activation, Mlp};
    // A network of the right shape but other weights than the bundled one.
    let bundled = dl2::bundled::network(dl2::bundled::World::Slots).unwrap();
    let mut rng = orrery::rng::Rng::new(7);
    let other = Mlp::new(bundled.sizes(), Activation::Relu, &mut rng);
    let exp = Experiment {
        policies: vec!["dl2".into()],
        network: Some(NetworkSource::Inline {
            name: "other.json".into(),
            text: other.to_json(),
        }),
        ..scenarios::dl2_experiment()
    };
    let back = Experiment::from_link(&exp.to_link("https://example.org/")).unwrap();
    assert_eq!(back, exp);
    let jct = |e: &Experiment| run(e).unwrap()[0].summary.avg_jct_s;
    let with_other = jct(&back);
    assert_eq!(with_other, jct(&exp));
    let plain = Experiment {
        network: None,
        ..exp.clone()
    };
    assert_ne!(
        with_other,
        jct(&plain),
        "the carried network is the one that runs"
    );
    // The bundled network's own text gives the bundled result.
    let same = Experiment {
        network: Some(NetworkSource::Inline {
            name: "bundled.json".into(),
            text: dl2::bundled::EMBEDDED.unwrap().into(),
        }),
        ..plain.clone()
    };
    assert_eq!(jct(&same), jct(&plain));
    // A network of the wrong shape, or outside a parameter-server experiment, is refused.
    let narrow = Mlp::new(&[10, 8, 31], Activation::Relu, &mut rng);
    let e = Experiment {
        network: Some(NetworkSource::Inline {
            name: "narrow.json".into(),
            text: narrow.to_json(),
        }),
        ..plain.clone()
    }
    .resolve()
    .unwrap_err()
    .to_string();
    assert!(e.contains("narrow.json") && e.contains("170"), "{e}");
    let e = Experiment {
        network: exp.network.clone(),
        ..Experiment::default()
    }
    .resolve()
    .unwrap_err()
    .to_string();
    assert!(e.contains("parameter-server"), "{e}");
}

#[test]
fn a_fork_with_the_same_policy_replays_the_original() {
    // The sampling neural policy draws from the simulator's random stream, so a fork must
    // carry the stream as well as the jobs and servers.
    let r = dl2_resolved();
    let ps = r.ps().cloned().unwrap();
    let policy = || dl2::build("dl2[sample=true]").unwrap();
    let mut sim = r.slot_simulator_with(policy(), &ps).unwrap();
    for _ in 0..3 {
        sim.step_slot(&mut DecisionLog::new(10)).unwrap();
    }
    let mut fork = sim.fork(policy());
    let mut reseeded = sim.fork(policy());
    reseeded.reseed(12345);
    let (mut differ, mut slots) = (false, 0);
    while let Some(a) = sim.step_slot(&mut DecisionLog::new(10)) {
        let b = fork.step_slot(&mut DecisionLog::new(10)).unwrap();
        assert_eq!(a, b);
        if let Some(c) = reseeded.step_slot(&mut DecisionLog::new(10)) {
            differ |= c.report.events != a.report.events;
        }
        slots += 1;
    }
    assert!(slots > 3);
    assert!(fork.step_slot(&mut DecisionLog::new(10)).is_none());
    assert_eq!(sim.jobs(), fork.jobs());
    // Its own random stream takes it elsewhere.
    assert!(differ);
}
