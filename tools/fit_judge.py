"""Fit the embedding judge's calibration on the granular dev set's human labels (nbs/14_judge_fit).

    python tools/fit_judge.py --version 14           # all 30 dev pairs -> posh/resources/embedding_judge_calibration.json
    python tools/fit_judge.py --version 14 --out cal.json

`fit(train)` is the fold fit of `benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit`: the calibration
fitted on the training pairs only, as PoSh keyword arguments. The questions are recorded once per process for every
dev pair (with the neutral map, so that no fitted map chooses what is asked) and each fold keeps its training pairs'.
"""
import argparse, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESOURCE = ROOT / 'posh' / 'resources' / 'embedding_judge_calibration.json'
_recorded = {}   # dev set path -> its labelled questions (this process only)


def dev_questions(dev=None):
    "The labelled questions of every pair of the granular dev set, recorded once per process."
    from posh.data import load_granular_dev
    from posh.judge_fit import labelled_questions
    key = str(dev)
    if key not in _recorded: _recorded[key] = labelled_questions(load_granular_dev(dev))
    return _recorded[key]


def fit(train):
    "PoSh keyword arguments with the judge fitted on the annotations `train` (the fold fit of benchmarks/granular_dev.py)."
    from posh.embedding_judge import EmbeddingJudge
    from posh.judge_fit import fit_judge_calibration
    keys = {a.key for a in train}
    qs = [q for q in dev_questions() if q.item in keys]
    if not qs: raise SystemExit("fit: the training pairs are not granular dev pairs")
    return {'judge': EmbeddingJudge(calibration=fit_judge_calibration(qs, 'cv', fitted_on=f"{len(keys)} dev pairs"))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--version', required=True, help='version of the calibration (bump on every committed refit)')
    ap.add_argument('--dev', default=None, help='the dev set jsonl (default data/granular_dev/granular_dev.jsonl)')
    ap.add_argument('--out', default=str(RESOURCE), help='where to write the calibration JSON (default: the package resource)')
    ap.add_argument('--l2', type=float, default=1.0, help='L2 penalty of the logistic fits')
    args = ap.parse_args(argv)
    from posh.judge_fit import fit_judge_calibration, probe_calibration, FITTED, REBIASED, QUADRATIC, QUADRATIC_L2, MIXED
    qs = dev_questions(args.dev)
    items = sorted({q.item for q in qs})
    cal = fit_judge_calibration(qs, args.version, l2=args.l2, fitted_on=(
        f"granular dev set (data/granular_dev, human labels): {len(items)} IIW-400 pairs, {len(qs)} questions; "
        f"maps of the {', '.join(FITTED)} direction fitted on them; the others the probe map ({probe_calibration().tag})"
        + (f", of which {', '.join(REBIASED)} with its bias fitted on them" if REBIASED else '') + f"; l2 {args.l2}"
        + (f"; quadratic maps {', '.join(QUADRATIC)}, l2 {QUADRATIC_L2}" if QUADRATIC else '')
        + (f"; mixed with the probe map at weights {', '.join(f'{m} {w:g}' for m, w in MIXED.items())}" if MIXED else '')
        + "; tools/fit_judge.py"))
    Path(args.out).write_text(json.dumps(cal.to_dict(), indent=1) + '\n', encoding='utf-8')
    print(f"wrote {args.out}: {cal.tag}")


if __name__ == '__main__':
    sys.exit(main())
