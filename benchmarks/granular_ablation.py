"""Which parts of the embedded default carry its granular figures: the default, then its parts switched off one by one,
down to the judge the issue started from, on the granular test set (or the dev set), side by side in one run.

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/granular_ablation.py                    # the test set (20 pairs)
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/granular_ablation.py --set dev          # the dev set (in-sample)

Rows (each PoSh('embedded', ...) with the settings named; the shipped maps, nothing fitted here):
  default                      the embedded configuration as shipped
  scope none                   no modifiers' scope (an uncovered adjective or adverb scores 5, the protocol's default)
  framing none                 no shot, facing or position elements (nbs/04b)
  framing, scope, mentions off both, and entities reported by their whole mentions (`entity_spans='mentions'`)
  + the cal3 judge             the same with the embedding judge at revision 7e1471a (`cal3`, before the judge read the
                               other text; loaded as benchmarks/paraphrase.py loads it): about where issue 17 started,
                               with this release's graphs

The test set's pairs were never used to fit or choose anything (data/granular_test/README.md), so its rows say
whether the parts chosen on the dev set help on new pairs. Columns: token macro F1 / token AUROC per task (nbs/24's
protocol).
"""
import argparse, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))

ROWS = {   # name -> PoSh keyword arguments (the judge: the shipped one, built once, unless named)
    'default': {},
    'scope none': dict(scope='none'),
    'framing none': dict(framing='none'),
    'framing none, scope none, entity mentions': dict(framing='none', scope='none', entity_spans='mentions'),
    'the same with the cal3 judge (7e1471a)': dict(framing='none', scope='none', entity_spans='mentions', judge='cal3'),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--set', default='test', choices=['test', 'dev'], help='the granular test set (default) or dev set')
    args = ap.parse_args(argv)
    from posh.data import load_granular_dev, load_granular_test
    from posh.metric import PoSh, CONFIGS
    from posh.experiments import granular_scores, granular_table
    from posh.backends import make_judge
    data = load_granular_test() if args.set == 'test' else load_granular_dev()
    print(f"granular {args.set} set, {len(data)} pairs{' (in-sample for the shipped maps)' if args.set == 'dev' else ''}\n")
    print('| PoSh embedded | mistakes F1 / AUROC | contradicted F1 / AUROC | omissions F1 / AUROC |\n|---|---|---|---|')
    shipped = make_judge(CONFIGS['embedded']['judge'])   # one judge (its model loaded once) for the rows that keep it
    for name, kw in ROWS.items():
        if kw.get('judge') == 'cal3':
            from paraphrase import baseline_judge, BASELINE
            kw = dict(kw, judge=baseline_judge(BASELINE))
        else: kw = dict(kw, judge=shipped)
        t = granular_table(granular_scores(PoSh('embedded', **kw), data, ['PoSh']), ['contradicted'])
        r = {row.task: f"{row.f1:.3f} / {row.auroc:.3f}" for row in t.itertuples()}
        print(f"| {name} | {r['mistakes']} | {r['contradicted']} | {r['omissions']} |", flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
