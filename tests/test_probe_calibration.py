"""The shipped probe map is what its documented recipe fits on this release's graphs.

The embedded judge's recall maps come from `posh/resources/embedding_judge_calibration_probe.json`, written by
`benchmarks/judges.py --fit` from the judge probe set's dev half and the paraphrase benchmark's dev half, whose
features are read off this release's scene graphs. A change to the graphs changes those features: if the resource is
not refitted, it no longer is what its recipe gives, and nobody can reproduce it (stop 46 found `7-probe` fitted on
246 paraphrase attribute questions where the recipe now records 267). This test refits it into a temporary file and
compares (`Calibration.same_maps`, the check nbs/24_iiw400 makes of the maps fitted on the granular dev set with
tools/fit_judge.py, which are fitted on top of this one).
"""
import os, subprocess, sys
from pathlib import Path

from posh.calibration import load_calibration
from posh.judge_fit import probe_calibration

ROOT = Path(__file__).resolve().parents[1]


def test_probe_map_is_its_recipes_fit(tmp_path):
    shipped = probe_calibration()
    out = tmp_path / 'probe.json'
    env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1')
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'judges.py'), '--fit', '--version', shipped.version,
                        '--threads', '1', '--calibration', str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=1200, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    refit = load_calibration(out)
    hint = (f"{shipped.tag} is not what its recipe fits on these graphs: refit it with "
            f"`python benchmarks/judges.py --fit --version N`, then `python tools/fit_judge.py --version M` and "
            f"`python tools/fit_omission_words.py --version K` (nbs/14_judge_fit, nbs/14a_omission_words)")
    assert refit.fitted_on == shipped.fitted_on, (hint, refit.fitted_on, shipped.fitted_on)
    assert refit.same_maps(shipped), hint
