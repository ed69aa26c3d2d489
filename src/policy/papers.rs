//! The papers behind the catalog's policies (each family's entries name theirs): title,
//! venue, year and address, so a listing can say where an idea comes from and link to it.

/// A published paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paper {
    /// Short name people call it by (Gavel, Tiresias, ...).
    pub short: &'static str,
    /// Title.
    pub title: &'static str,
    /// Venue (conference or journal).
    pub venue: &'static str,
    /// Year of publication.
    pub year: u16,
    /// Where to read it.
    pub url: &'static str,
}

impl Paper {
    /// One line: `Gavel: "Heterogeneity-Aware ..." (OSDI 2020) https://...`.
    pub fn line(&self) -> String {
        format!(
            "{}: \"{}\" ({} {}) {}",
            self.short, self.title, self.venue, self.year, self.url
        )
    }
}

/// Gavel (Narayanan et al.).
pub const GAVEL: Paper = Paper {
    short: "Gavel",
    title: "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads",
    venue: "OSDI",
    year: 2020,
    url: "https://www.usenix.org/conference/osdi20/presentation/narayanan-deepak",
};
/// Tiresias (Gu et al.).
pub const TIRESIAS: Paper = Paper {
    short: "Tiresias",
    title: "Tiresias: A GPU Cluster Manager for Distributed Deep Learning",
    venue: "NSDI",
    year: 2019,
    url: "https://www.usenix.org/conference/nsdi19/presentation/gu",
};
/// Optimus (Peng et al.).
pub const OPTIMUS: Paper = Paper {
    short: "Optimus",
    title: "Optimus: An Efficient Dynamic Resource Scheduler for Deep Learning Clusters",
    venue: "EuroSys",
    year: 2018,
    url: "https://doi.org/10.1145/3190508.3190517",
};
/// Dominant resource fairness (Ghodsi et al.).
pub const DRF: Paper = Paper {
    short: "DRF",
    title: "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
    venue: "NSDI",
    year: 2011,
    url: "https://www.usenix.org/conference/nsdi11/dominant-resource-fairness-fair-allocation-multiple-resource-types",
};
/// Themis (Mahajan et al.).
pub const THEMIS: Paper = Paper {
    short: "Themis",
    title: "Themis: Fair and Efficient GPU Cluster Scheduling",
    venue: "NSDI",
    year: 2020,
    url: "https://www.usenix.org/conference/nsdi20/presentation/mahajan",
};
/// AlloX (Le et al.).
pub const ALLOX: Paper = Paper {
    short: "AlloX",
    title: "AlloX: Compute Allocation in Hybrid Clusters",
    venue: "EuroSys",
    year: 2020,
    url: "https://doi.org/10.1145/3342195.3387547",
};
/// Gandiva (Xiao et al.).
pub const GANDIVA: Paper = Paper {
    short: "Gandiva",
    title: "Gandiva: Introspective Cluster Scheduling for Deep Learning",
    venue: "OSDI",
    year: 2018,
    url: "https://www.usenix.org/conference/osdi18/presentation/xiao",
};
/// Pollux (Qiao et al.).
pub const POLLUX: Paper = Paper {
    short: "Pollux",
    title: "Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning",
    venue: "OSDI",
    year: 2021,
    url: "https://www.usenix.org/conference/osdi21/presentation/qiao",
};
/// Sia (Jayaram Subramanya et al.).
pub const SIA: Paper = Paper {
    short: "Sia",
    title: "Sia: Heterogeneity-aware, goodput-optimized ML-cluster scheduling",
    venue: "SOSP",
    year: 2023,
    url: "https://doi.org/10.1145/3600006.3613175",
};
/// Aryl (Li et al.).
pub const ARYL: Paper = Paper {
    short: "Aryl",
    title: "Aryl: An Elastic Cluster Scheduler for Deep Learning",
    venue: "arXiv",
    year: 2022,
    url: "https://arxiv.org/abs/2202.07896",
};
/// PickyMan (Chen et al.).
pub const PICKYMAN: Paper = Paper {
    short: "PickyMan",
    title: "PickyMan: A Preemptive Scheduler for Deep Learning Jobs on GPU Clusters",
    venue: "IPCCC",
    year: 2022,
    url: "https://doi.org/10.1109/IPCCC55026.2022.9894345",
};
/// DL2 (Peng et al.).
pub const DL2: Paper = Paper {
    short: "DL2",
    title: "DL2: A Deep Learning-Driven Scheduler for Deep Learning Clusters",
    venue: "IEEE TPDS",
    year: 2021,
    url: "https://doi.org/10.1109/TPDS.2021.3052895",
};
/// Shortest processing time first (Smith).
pub const SMITH: Paper = Paper {
    short: "Smith",
    title: "Various Optimizers for Single-Stage Production",
    venue: "Naval Research Logistics Quarterly",
    year: 1956,
    url: "https://doi.org/10.1002/nav.3800030106",
};
/// Shortest remaining processing time (Schrage).
pub const SCHRAGE: Paper = Paper {
    short: "Schrage",
    title: "A Proof of the Optimality of the Shortest Remaining Processing Time Discipline",
    venue: "Operations Research",
    year: 1968,
    url: "https://doi.org/10.1287/opre.16.3.687",
};
/// Tetris (Grandl et al.).
pub const TETRIS: Paper = Paper {
    short: "Tetris",
    title: "Multi-Resource Packing for Cluster Schedulers",
    venue: "SIGCOMM",
    year: 2014,
    url: "https://doi.org/10.1145/2619239.2626334",
};
