"""Which form each map of the generation's elements takes: linear or quadratic (nbs/03b), and at what L2 penalty, chosen
on the granular dev set's human labels by out-of-fold log loss of the labelled questions (nbs/14_judge_fit).

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/map_forms.py                 # the generation's three maps
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/map_forms.py --seeds 0 1 2 3 4

Data: data/granular_dev/granular_dev.jsonl (30 IIW-400 pairs; questions recorded and labelled as tools/fit_judge.py
does: `posh.judge_fit.labelled_questions`). For each fold seed the pairs are dealt into 5 folds
(`posh.meta_eval.item_folds`); each fold's map is fitted on the questions of the other 24 pairs (`fitted_map`, as the
shipped recipe fits it) and predicts the held-out pairs' questions. Printed per map: the mean over seeds of the
out-of-fold log loss (the criterion: a probability that is fitted as one should predict as one) and of the question
AUROC. The token figures and IIW-400 are not read here: `benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit`
and nbs/24 measure what the chosen form does to them.
"""
import argparse, sys

import numpy as np

FORMS = [('linear', 1.0)] + [('quadratic', l2) for l2 in (10.0, 30.0, 100.0, 300.0, 1000.0)]


def out_of_fold_probabilities(questions, direction, kind, quadratic, l2, seed, k=5):
    "P(supported) of each question of one map from the fold that held its pair out (`posh.meta_eval.out_of_fold`), and the labels."
    from posh.judge_features import EMBEDDING_MODEL
    from posh.calibration import Calibration
    from posh.judge_fit import fitted_map
    from posh.meta_eval import out_of_fold
    rows = [q for q in questions if q.direction == direction and q.kind == kind]
    def fit_predict(train, test):
        train = set(train)
        w, b, std = fitted_map([r for r in rows if r.item in train], direction, kind, None, l2, quadratic)
        cal = Calibration('cv', EMBEDDING_MODEL, {kind: list(w)}, {kind: b}, quadratic={kind: std} if std else {})
        return {t: [cal.probability(kind, r.features) for r in rows if r.item == t] for t in test}
    pred = out_of_fold(sorted({q.item for q in questions}), fit_predict, k, seed)
    each = {t: iter(v) for t, v in pred.items()}   # an item's predictions come in the order of its questions in `rows`
    return np.array([next(each[r.item]) for r in rows]), np.array([r.supported for r in rows], bool)


def log_loss(p, y):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(np.where(y, np.log(p), np.log(1 - p))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--direction', default='precision', choices=['precision', 'recall'])
    ap.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2], help='fold seeds')
    args = ap.parse_args(argv)
    from posh.data import load_granular_dev
    from posh.judge_features import FEATURES
    from posh.judge_fit import labelled_questions
    from posh.meta_eval import auroc
    qs = labelled_questions(load_granular_dev())
    print(f"granular dev set: {len({q.item for q in qs})} pairs, {len(qs)} labelled questions; {args.direction} maps; "
          f"5 folds by pair, fold seeds {args.seeds}\n")
    print('| map | questions (unsupported) | form | L2 | out-of-fold log loss | question AUROC |\n|---|---|---|---|---|---|')
    for kind in FEATURES:
        rows = [q for q in qs if q.direction == args.direction and q.kind == kind]
        best = None
        results = []
        for form, l2 in FORMS:
            ll, au = [], []
            for seed in args.seeds:
                p, y = out_of_fold_probabilities(qs, args.direction, kind, form == 'quadratic', l2, seed)
                ll.append(log_loss(p, y)); au.append(auroc(~y, -p))
            results.append((form, l2, np.mean(ll), np.mean(au)))
            if best is None or np.mean(ll) < best[2]: best = results[-1]
        for form, l2, ll, au in results:
            mark = '**' if (form, l2) == best[:2] else ''
            print(f"| {args.direction}.{kind} | {len(rows)} ({sum(not q.supported for q in rows)}) | {form} | {l2:g} | "
                  f"{mark}{ll:.4f}{mark} | {au:.3f} |")


if __name__ == '__main__':
    sys.exit(main())
