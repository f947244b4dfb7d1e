"""Two hand-labelled measures that catch maps which do not generalize (issue 49), for any judge calibration.

    python benchmarks/held_out.py                                   # the shipped map, and the baselines
    python benchmarks/held_out.py --calibration probe               # the probe map for both directions
    python benchmarks/held_out.py --calibration shipped,probe,cand.json --no-baselines   # side by side
    python benchmarks/held_out.py --json out.json

* **corrected generations** (`data/granular_corrected/`): the 50 granular dev and test generations, each beside its
  hand-corrected version (every marked mistake deleted or replaced by what the reference says). The rate at which a
  metric's score of the corrected version is strictly higher (PoSh: its precision), on all 50, the 30 dev and the 20
  test pairs.
* **short captions** (`data/short_captions/`): 100 one-sentence IIW-P5B captions, each against its full reference,
  their mistaken words marked. Token AUROC of the mistake scores (the granular protocol, posh.meta_eval), beside
  the "word in the reference" lookup (a token scores 1 when its lemma is not among the reference's lemmas, else 5),
  SGEmbed and 4GramEmbed; and coarse precision against 1 - the share of marked tokens (Spearman, Pearson).

The baselines' figures do not depend on the calibration and are printed once (`--no-baselines` skips them).
"""
import argparse, json, sys, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORRECTED = ROOT / 'data' / 'granular_corrected' / 'granular_corrected.jsonl'
SHORT = ROOT / 'data' / 'short_captions' / 'short_captions.jsonl'
PROBE = ROOT / 'posh' / 'resources' / 'embedding_judge_calibration_probe.json'
COARSE = ('bleu4', 'rougeL', 'meteor', 'cider', 'length')


def corrected_pairs(path=CORRECTED) -> list[dict]:
    from posh.experiments import load_corrected
    return load_corrected(path)


def correlations(x, y) -> tuple[float, float]:
    from scipy.stats import spearmanr, pearsonr
    return float(spearmanr(x, y)[0]), float(pearsonr(x, y)[0])


def make_posh(cal:str, cache_dir:str|None=None, graphs_from=None):
    "PoSh with calibration `cal` ('shipped', 'probe' or a JSON path); `graphs_from`: a PoSh whose parsed graphs it reuses."
    from posh.metric import PoSh
    kw = {} if cal == 'shipped' else {'judge_kwargs': {'calibration': str(PROBE) if cal == 'probe' else cal}}
    m = PoSh('embedded', cache_dir=cache_dir, **kw)
    if graphs_from is not None: m._recent = graphs_from._recent     # graphs do not depend on the judge: parse each text once
    return m


def measure(cal:str, pairs, short, gs, cache_dir=None, graphs_from=None) -> dict:
    "Every figure of one calibration (`posh.experiments.held_out_measures`): corrected-generation rates and the short captions' figures."
    from posh.experiments import held_out_measures
    m = make_posh(cal, cache_dir, graphs_from)
    t0 = time.perf_counter()
    r = held_out_measures(m, pairs, short, gs.labels)
    return dict(calibration=cal, signature=m.signature, **r, seconds=time.perf_counter() - t0, metric=m)


def baselines(pairs, short, gs) -> dict:
    "The baselines' figures: corrected-generation rate of each coarse metric; short captions' token AUROC and coarse correlations."
    from posh.baselines import coarse_baseline_scores
    from posh.experiments import preference, share_marked, lookup_token_scores, mistakes_auroc
    refs = [[r['reference']] for r in pairs]
    a = coarse_baseline_scores([r['generation'] for r in pairs], refs, COARSE)
    b = coarse_baseline_scores([r['corrected'] for r in pairs], refs, COARSE)
    out = {f"corrected_rate {n}": preference(np.array(a[n]), np.array(b[n])) for n in a}
    share = np.array(share_marked(gs.labels, gs.annotations))
    c = coarse_baseline_scores([x.generation for x in short], [[x.reference] for x in short], COARSE)
    for n, v in c.items():
        out[f"short_spearman {n}"], out[f"short_pearson {n}"] = correlations(v, 1 - share)
    out['short_auroc lookup'] = mistakes_auroc(gs.labels, lookup_token_scores(gs.labels, gs.docs))
    for n, sc in gs.scores.items(): out[f"short_auroc {n}"] = mistakes_auroc(gs.labels, sc)
    out = {k: v for k, v in out.items() if k != 'short_auroc random' or len(gs.scores) > 1}
    return out


def short_scores(with_embed:bool, cache_dir:str|None=None):
    "The short captions and their granular protocol's labels (and SGEmbed, 4GramEmbed, random token scores)."
    from posh.data import _load_granular
    from posh.metric import PoSh
    from posh.experiments import granular_scores
    short = _load_granular(SHORT)
    m = PoSh('embedded', cache_dir=cache_dir)
    gs = granular_scores(m, short, ['SGEmbed', '4GramEmbed', 'random'] if with_embed else ['random'])
    gs.metric = m     # its parsed graphs are reused by every calibration's PoSh
    return short, gs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--calibration', default='shipped', help="comma-separated: 'shipped', 'probe' or calibration JSON paths")
    ap.add_argument('--no-baselines', action='store_true', help='skip the baselines')
    ap.add_argument('--no-embed-baselines', action='store_true', help='skip SGEmbed and 4GramEmbed (the slow baselines)')
    ap.add_argument('--json', default=None, help='write the figures to this JSON file')
    ap.add_argument('--cache-dir', default=None, help="PoSh's cache folder (graphs and pairs; default: none, everything fresh)")
    args = ap.parse_args(argv)
    pairs = corrected_pairs()
    short, gs = short_scores(not (args.no_baselines or args.no_embed_baselines), args.cache_dir)
    rows, graphs_from = [], gs.metric
    for c in [c.strip() for c in args.calibration.split(',') if c.strip()]:
        rows.append(measure(c, pairs, short, gs, args.cache_dir, graphs_from)); graphs_from = rows[-1].pop('metric')
        print(f"{c}: corrected {rows[-1]['corrected_rate']:.3f}, short AUROC {rows[-1]['short_auroc']:.3f} ({rows[-1]['seconds']:.0f}s)", flush=True)
    cols = ['corrected_rate', 'corrected_rate_dev', 'corrected_rate_test', 'corrected_mean_gain', 'short_auroc',
            'short_precision_spearman', 'short_precision_pearson']
    print(f"\n{len(pairs)} corrected pairs, {len(short)} short captions ({int(sum(gs.labels[a.key]['mistakes'].is_error.sum() for a in short))} marked tokens)\n")
    print('| calibration | ' + ' | '.join(cols) + ' |'); print('|---|' + '---|' * len(cols))
    for r in rows: print(f"| {r['calibration']} | " + ' | '.join(f"{r[c]:.3f}" for c in cols) + ' |')
    for r in rows: print(f"{r['calibration']}: {r['signature']} ({r['seconds']:.0f}s)")
    base = {} if args.no_baselines else baselines(pairs, short, gs)
    for k, v in base.items(): print(f"{k}: {v:.3f}")
    if args.json:
        command = ' '.join(['python benchmarks/held_out.py', *(sys.argv[1:] if argv is None else argv)])
        Path(args.json).write_text(json.dumps(dict(command=command, rows=rows, baselines=base), indent=1)); print('wrote', args.json)


if __name__ == '__main__':
    sys.exit(main())
