"""The generation's judge maps tried for issue 49, each fitted by one recipe on the granular dev set's human labels.

    python benchmarks/map_candidates.py --write /tmp/cands          # every candidate fitted on all 30 dev pairs -> JSON
    CANDIDATE=shrink-100 python benchmarks/granular_dev.py --cv 5 --fit benchmarks/map_candidates.py:fit --methods PoSh

Candidates (the reference's maps are the shipped recipe's in all of them: the probe map, `recall.relation` rebiased):
* `cal13`: the shipped recipe (quadratic entity and attribute maps, L2 100; linear relation map, L2 1);
* `probe`: the probe map for the generation's elements too (nothing fitted on people's labels but one bias);
* `rebias`: the probe map's weights, each of the generation's maps with its bias fitted on the labels;
* `linear-L`: linear maps fitted on the labels, L2 penalty L;
* `shrink-L`: linear maps fitted on the labels with their weights shrunk toward the probe map's (the probe's
  logit as a fixed offset, L2 penalty L on the difference), the bias fitted free;
* `mix-W` and `mix-E-A-R`: `cal13`'s maps mixed with the probe map (nbs/03b `mixed`: P = (1 - w) P_fitted + w P_probe),
  at one weight W for the generation's three maps, or at E, A and R for its entity, attribute and relation maps
  (`mix-0.5-0.2-0.2` is the shipped recipe of `cal14`).
"""
import argparse, json, os, sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'tools'))
NAMES = (['cal13', 'probe', 'rebias'] + [f"linear-{l:g}" for l in (1, 10, 100)] + [f"shrink-{l:g}" for l in (1, 10, 100, 1000)]
         + [f"mix-{w:g}" for w in (0.1, 0.2, 0.35, 0.5)]
         + [f"mix-{e:g}-{a:g}-{a:g}" for e in (0.35, 0.5, 0.8) for a in (0.1, 0.2, 0.35)] + ['mix-1-0.2-0.2', 'mix-0.5-0-0'])
GEN = ('precision.entity', 'precision.attribute', 'precision.relation')


def shrunk_map(questions, direction:str, kind:str, base, l2:float):
    "Weights and bias of a linear map fitted with the weights shrunk toward `base`'s (penalty l2 on the difference)."
    from posh.judge_fit import extended_map
    from posh.calibration import fit_logistic
    rows = [q for q in questions if q.direction == direction and q.kind == kind]
    X, y = np.array([q.features for q in rows], float), np.array([float(q.supported) for q in rows])
    w0, _ = extended_map(base, kind)
    dw, b = fit_logistic(X, y, l2, offset=X @ np.asarray(w0, float))
    return [float(v) for v in np.asarray(w0) + dw], float(b)


def candidate(name:str, questions, version:str='cand'):
    "The calibration of candidate `name` fitted on `questions`."
    from posh.judge_fit import fit_judge_calibration, probe_calibration
    from posh.calibration import Calibration
    if name == 'cal13': return fit_judge_calibration(questions, version, mixed={}, fitted_on=name)
    if name.startswith('mix-'):
        w = [float(x) for x in name.split('-')[1:]]
        if len(w) not in (1, 3): raise SystemExit(f"{name!r}: mix-W or mix-E-A-R")
        return fit_judge_calibration(questions, version, mixed=dict(zip(GEN, w * 3 if len(w) == 1 else w)), fitted_on=name)
    if name == 'probe': return fit_judge_calibration(questions, version, fitted=(), quadratic=(), mixed={}, fitted_on=name)
    if name == 'rebias': return fit_judge_calibration(questions, version, rebiased=('recall.relation',) + GEN, quadratic=(), mixed={}, fitted_on=name)
    form, l2 = name.rsplit('-', 1)
    if form == 'linear': return fit_judge_calibration(questions, version, l2=float(l2), quadratic=(), mixed={}, fitted_on=name)
    if form == 'shrink':
        cal = fit_judge_calibration(questions, version, fitted=(), quadratic=(), mixed={}, fitted_on=name)
        W, B, base = dict(cal.weights), dict(cal.bias), probe_calibration()
        for m in GEN:
            w, b = shrunk_map(questions, 'precision', m.split('.')[1], base, float(l2))
            W[m], B[m] = [round(v, 6) for v in w], round(b, 6)
        return Calibration(cal.version, cal.model, W, B, cal.features, fitted_on=name)
    raise SystemExit(f"unknown candidate {name!r}; known: {NAMES}")


def fit(train):
    "Fold fit for benchmarks/granular_dev.py --cv: the candidate named by $CANDIDATE on the training pairs."
    from posh.embedding_judge import EmbeddingJudge
    from fit_judge import dev_questions
    keys = {a.key for a in train}
    return {'judge': EmbeddingJudge(calibration=candidate(os.environ['CANDIDATE'], [q for q in dev_questions() if q.item in keys], 'cv'))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--write', required=True, help='folder for <candidate>.json')
    ap.add_argument('--names', default=','.join(NAMES))
    args = ap.parse_args(argv)
    from fit_judge import dev_questions
    qs = dev_questions()
    out = Path(args.write); out.mkdir(parents=True, exist_ok=True)
    for n in args.names.split(','):
        cal = candidate(n, qs, n)
        (out / f"{n}.json").write_text(json.dumps(cal.to_dict(), indent=1) + '\n', encoding='utf-8')
        print('wrote', out / f"{n}.json", cal.tag)


if __name__ == '__main__':
    sys.exit(main())
