# Makes sia_fits.csv: Sia's throughput-model fit (its goodput.fit_perf_params, scipy's
# L-BFGS-B with tol=1e-5) on single step-time observations from Sia's traces: every
# application x GPU type x placement of 1, 2, 4 or 8 GPUs on one server or 2x2, 2x4, 2x8 on
# two, at up to four local batch sizes (every third measured one).
#
#   python3 sia_fits.py SIA_SIMULATOR_DIR sia_fits.csv
#
# SIA_SIMULATOR_DIR is sia-simulator/ of Sia's artifact (github.com/siasosp23/artifacts),
# with its traces/; measured with scipy 1.15.3, numpy 1.23.5, autograd 1.9.1 (Python 3.11).
import csv
import sys
import warnings

import numpy as np

warnings.filterwarnings('ignore')
sys.path.insert(0, sys.argv[1])
from goodput import fit_perf_params  # noqa: E402
from applications import APPLICATIONS  # noqa: E402

w = csv.writer(open(sys.argv[2], 'w'))
w.writerow(['app', 'type', 'nodes', 'replicas', 'atomic_bsz', 'accum_step_time',
            'optim_step_time', 'alpha_c', 'beta_c', 'alpha_n', 'beta_n', 'alpha_r', 'beta_r',
            'gamma'])
for app in ['bert', 'cifar10', 'deepspeech2', 'imagenet', 'yolov3']:
    for c in ['aws', 'dgx-ext', 'rtx']:
        df = APPLICATIONS[c][app].placements
        for pl in ['1', '2', '4', '8', '22', '44', '88']:
            sub = df[df.placement.astype(str) == pl]
            if len(sub) == 0:
                continue
            for lb in sorted(sub.local_bsz.unique())[::3][:4]:
                r = sub[sub.local_bsz == lb].iloc[0]
                n, R = len(pl), sum(int(ch) for ch in pl)
                st, sy = float(r.step_time), float(r.sync_time)
                xs = fit_perf_params(np.array([n]), np.array([R]), np.array([int(lb)]),
                                     np.array([st - sy]), np.array([st]))
                w.writerow([app, c, n, R, int(lb), repr(st - sy), repr(st)]
                           + [repr(float(v)) for v in xs])
