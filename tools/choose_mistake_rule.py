"""Choose the one rule that marks mistakes and omissions (posh.scoring.MISTAKE_RULE) on the granular dev set's human labels.

    python tools/choose_mistake_rule.py                 # writes posh/resources/mistake_rule.json (rerun after a judge refit)
    python tools/choose_mistake_rule.py --check         # prints the choice, writes nothing; exit 1 if it differs from the file

The rule is "an element scoring below CUT (the judge's 1-5 scale) is marked": a mistake among the generation's elements,
an omission among a reference's. It is what the highlight view shades and what `posh report` counts, so it is chosen by
what it shades: the 30 pairs of data/granular_dev (mistakes and omissions marked by annotators reading the texts) are
scored out of fold (5 folds by pair, seed 0: each fold's pairs by the embedded default with the judge's maps fitted on the
other 24 pairs, `tools/fit_judge.py:fit`, as `benchmarks/granular_dev.py --cv 5` scores them), so that the cut is not
chosen on scores of maps fitted on the same pairs; at each cut in 1.05, 1.10, ..., 5.00 a labelled
token (the protocol's: en_core_web_sm tokens without punctuation, posh.meta_eval) is marked when a marked element's
shaded words (`posh.scoring.marked_spans`: its spans and scope words) overlap it, as the view shades it. Criterion: the
token macro F1 (error / not error, posh.meta_eval.macro_f1) of the marks against the people's, pooled over the 30
pairs, averaged over the two tasks (mistakes: the generation's tokens; omissions: the reference's); the best cut wins
(ties: the lower cut). It also prints how the share of marked precision elements follows the precision lost per pair
(Spearman over the 30 pairs), and the chosen cut's token macro F1 on sets nothing was fitted or chosen on: the granular
test set (20 long pairs, mistakes and omissions) and the short captions (100 one-sentence captions, mistakes): checks,
not criteria.
"""
import argparse, json, sys, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / 'posh' / 'resources' / 'mistake_rule.json'
CUTS = [round(1 + 0.05 * k, 2) for k in range(1, 81)]   # 1.05 .. 5.00
COMMAND = 'python tools/choose_mistake_rule.py'


def token_marks(tokens, elements, cut:float) -> np.ndarray:
    "Per token: does a marked element (score below `cut`) shade a word overlapping it."
    from posh.scoring import marked_spans
    starts, ends = np.array([t.start for t in tokens], int), np.array([t.end for t in tokens], int)
    out = np.zeros(len(tokens), bool)
    for e in elements:
        if e.score >= cut: continue
        for s in marked_spans(e):
            if s.end > s.start: out |= (starts < s.end) & (ends > s.start)
    return out


def choose(scores, labels, annotations) -> dict:
    "The rule's record: the best cut by the mean token macro F1 of mistakes and omissions, and every cut's figures."
    from posh.meta_eval import macro_f1
    by = {'mistakes': lambda s: [e for e in s.elements if e.direction == 'precision'],
          'omissions': lambda s: [e for e in s.elements if e.direction == 'recall' and (e.reference or 0) == 0]}
    table = []
    for cut in CUTS:
        f1 = {}
        for task, pick in by.items():
            gold = np.concatenate([labels[a.key][task].is_error for a in annotations])
            pred = np.concatenate([token_marks(labels[a.key][task].tokens, pick(s), cut) for a, s in zip(annotations, scores)])
            f1[task] = macro_f1(gold, pred)
        table.append((cut, round(f1['mistakes'], 6), round(f1['omissions'], 6)))
    best = max(table, key=lambda r: ((r[1] + r[2]) / 2, -r[0]))
    return {'below': best[0], 'f1': (best[1] + best[2]) / 2, 'mistakes_f1': best[1], 'omissions_f1': best[2], 'table': table}


def tracking(scores, cut:float) -> dict:
    "How the share of marked (counted) precision elements follows the precision lost, over the pairs."
    from scipy.stats import spearmanr
    share = [np.mean([e.score < cut for e in s.elements if e.direction == 'precision' and e.counted] or [0.0]) for s in scores]
    lost = [1 - s.precision for s in scores]
    return {'spearman_share_vs_precision_lost': round(float(spearmanr(share, lost).statistic), 4),
            'mean_share_marked': round(float(np.mean(share)), 4), 'mean_precision_lost': round(float(np.mean(lost)), 4)}


def out_of_fold_scores(dev, cache_dir=None) -> list:
    "Granular scores of the dev pairs, each from a judge whose maps were fitted on the other folds' pairs (tools/fit_judge.py:fit)."
    from posh.metric import PoSh
    from posh.meta_eval import out_of_fold
    sys.path.insert(0, str(ROOT / 'tools'))
    from fit_judge import fit
    by_key = {a.key: a for a in dev}
    def fit_predict(train, test):
        m = PoSh('embedded', cache_dir=cache_dir, **fit([by_key[k] for k in train]))
        items = [by_key[k] for k in test]
        return dict(zip(test, m.evaluate([a.generation for a in items], [a.reference for a in items], granular=True, ids=test)))
    oof = out_of_fold([a.key for a in dev], fit_predict, k=5, seed=0)
    return [oof[a.key] for a in dev]


def cut_f1(metric, items, cuts:tuple, tasks=('mistakes', 'omissions')) -> list[dict]:
    "Token macro F1 of the rule at each of `cuts` on `items` (granular annotations), per task; the items scored and parsed once."
    from posh.meta_eval import macro_f1, parse_texts, token_labels
    from posh.scene_graph import load_parser
    scores = metric.evaluate([a.generation for a in items], [a.reference for a in items], granular=True, ids=[a.key for a in items])
    labels = token_labels(items, parse_texts(load_parser(metric.parser), [a.generation for a in items] + [a.reference for a in items]))
    pick = {'mistakes': lambda s: [e for e in s.elements if e.direction == 'precision'],
            'omissions': lambda s: [e for e in s.elements if e.direction == 'recall' and (e.reference or 0) == 0]}
    return [{t: round(macro_f1(np.concatenate([labels[a.key][t].is_error for a in items]),
                               np.concatenate([token_marks(labels[a.key][t].tokens, pick[t](s), cut) for a, s in zip(items, scores)])), 4)
             for t in tasks} for cut in cuts]


def held_out_checks(metric, cut:float) -> dict:
    "The chosen cut on the granular test set and on the short captions (nothing fitted or chosen on them), beside the old view's 3.0."
    from posh.data import load_granular_dev
    from posh.experiments import load_short_captions
    test, test_at_3 = cut_f1(metric, load_granular_dev(ROOT / 'data' / 'granular_test' / 'granular_test.jsonl'), (cut, 3.0))
    short, short_at_3 = cut_f1(metric, load_short_captions(), (cut, 3.0), ('mistakes',))
    return {'granular_test': test, 'granular_test_at_3': test_at_3,
            'short_captions_mistakes': short['mistakes'], 'short_captions_mistakes_at_3': short_at_3['mistakes']}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--check', action='store_true', help='print the choice and compare it with the shipped file; write nothing')
    ap.add_argument('--cache-dir', default=None, help="PoSh's answer cache (default: none, every answer fresh)")
    args = ap.parse_args(argv)
    from posh.data import load_granular_dev
    from posh.metric import PoSh
    from posh.meta_eval import parse_texts, token_labels
    from posh.scene_graph import load_parser
    t0 = time.perf_counter()
    dev = load_granular_dev()
    metric = PoSh('embedded', cache_dir=args.cache_dir)
    scores = out_of_fold_scores(dev, args.cache_dir)
    labels = token_labels(dev, parse_texts(load_parser(metric.parser), [a.generation for a in dev] + [a.reference for a in dev]))
    rec = {'below': None, 'judge': metric.judge.signature, 'signature': metric.signature,
           'criterion': 'token macro F1 of the shaded words against the people\'s marks on the granular dev set (30 pairs, scored out of fold), '
                        'mean of mistakes and omissions; cuts 1.05-5.00 in steps of 0.05, the best (ties: the lower)',
           'command': COMMAND}
    rec.update(choose(scores, labels, dev))
    rec['check'] = tracking(scores, rec['below'])
    rec['held_out'] = held_out_checks(metric, rec['below'])
    rec = {k: rec[k] for k in ('below', 'judge', 'criterion', 'f1', 'mistakes_f1', 'omissions_f1', 'check', 'held_out', 'command', 'signature', 'table')}
    print(f"cut {rec['below']}: token macro F1 {rec['f1']:.3f} (mistakes {rec['mistakes_f1']:.3f}, omissions "
          f"{rec['omissions_f1']:.3f}); {rec['check']}; {rec['held_out']}; judge {rec['judge']}; {time.perf_counter() - t0:.0f} s")
    if args.check:
        old = json.loads(OUT.read_text(encoding='utf-8'))
        same = old.get('below') == rec['below'] and old.get('judge') == rec['judge']
        print('the shipped rule is ' + ('current' if same else f"stale: it has {old.get('below')} for {old.get('judge')!r}"))
        return 0 if same else 1
    OUT.write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8')
    print('wrote', OUT.relative_to(ROOT))
    return 0


if __name__ == '__main__':
    sys.exit(main())
