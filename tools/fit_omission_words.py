"""Fit the omission words' calibration on the granular dev set's human labels (nbs/14a_omission_words).

    python tools/fit_omission_words.py --version 2        # all 30 dev pairs -> posh/resources/omission_words_calibration.json
    python tools/fit_omission_words.py --version 2 --out words.json

The element scores it reads are those of PoSh's embedded default (the shipped judge calibration); the calibration
records that judge's signature and refuses others. Refit it after every refit of the judge (tools/fit_judge.py).
`benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --words` fits one the same way in every fold.
"""
import argparse, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESOURCE = ROOT / 'posh' / 'resources' / 'omission_words_calibration.json'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--version', required=True, help='version of the calibration (bump on every committed refit)')
    ap.add_argument('--dev', default=None, help='the dev set jsonl (default data/granular_dev/granular_dev.jsonl)')
    ap.add_argument('--out', default=str(RESOURCE), help='where to write the calibration JSON (default: the package resource)')
    ap.add_argument('--l2', type=float, default=1.0, help='L2 penalty of the logistic fit')
    args = ap.parse_args(argv)
    from posh.data import load_granular_dev
    from posh.metric import PoSh
    from posh.experiments import granular_scores
    from posh.omission_words import word_rows, fit_words_calibration
    dev = load_granular_dev(args.dev)
    metric = PoSh('embedded')
    gs = granular_scores(metric, dev, ['PoSh'])
    X, y, _ = word_rows(gs.annotations, gs.labels, gs.docs, gs.pair_scores)
    judge = metric.judge.signature
    cal = fit_words_calibration(X, y, args.version, judge, args.l2, fitted_on=(
        f"granular dev set (data/granular_dev, human labels): {len(dev)} IIW-400 pairs, {len(y)} reference words, "
        f"{int(y.sum())} marked omitted; element scores of PoSh('embedded'), judge {judge}; l2 {args.l2}; "
        "tools/fit_omission_words.py"))
    Path(args.out).write_text(json.dumps(cal.to_dict(), indent=1) + '\n', encoding='utf-8')
    print(f"wrote {args.out}: {cal.tag}")


if __name__ == '__main__':
    sys.exit(main())
