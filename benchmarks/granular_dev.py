"""The granular dev set, fast: PoSh with a given judge beside SGEmbed, 4GramEmbed and random, as nbs/24 reports it.

    python benchmarks/granular_dev.py                                             # the embedded default
    python benchmarks/granular_dev.py --judge embedding:all-MiniLM-L6-v2 --calibration cal.json
    python benchmarks/granular_dev.py --judge transformers:smollm2 --items 6      # a slow judge on the first 6 items
    python benchmarks/granular_dev.py --cv 5 --fit my_fit.py:fit                  # out-of-fold: a judge fitted per fold
    python benchmarks/granular_dev.py --methods PoSh --json out.json              # PoSh only; rows also as JSON
    python benchmarks/granular_dev.py --dev data/granular_test/granular_test.jsonl   # the test set (measure only, never fit)
    python benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --scope heads   # mistakes reach their function words
    python benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --scope phrases # both texts' function words of covered phrases
    python benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --entity-spans mentions   # entities by whole mentions
    python benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --words   # also PoSh+words, its words map fitted per fold

Data: data/granular_dev/granular_dev.jsonl (30 IIW-400 pairs with mistakes and omissions marked by annotators reading the texts; its README).
Protocol: nbs/21's (posh.meta_eval): parser tokens, a token's score is the max over the elements overlapping it, ten
thresholds, pooled macro F1 over error / not error, the best threshold; token AUROC (an error token scoring below a
correct one). Tasks: `mistakes` (both labels), `contradicted` (those spans alone; tokens only in `unsupported` spans
left out), `omissions`.

Cross-validation (`--cv K --fit FILE.py:FUNC`): the items are dealt into K folds (`posh.meta_eval.item_folds`, by
item); for each fold `FUNC(train)` is called with the training items (a list of `GranularAnnotation`, with
`mistake_labels`) and returns the PoSh keyword arguments for that fold (e.g. `{'judge': EmbeddingJudge(calibration=
cal)}`); PoSh scores the held-out items with them. The table is computed on the out-of-fold scores of all items; the
baselines need no fitting and are computed once.

`--words` adds `PoSh+words` (nbs/14a_omission_words): PoSh with its omissions' words calibrated. Without `--cv` the
shipped words calibration (it refuses element scores of a judge it was not fitted with); with `--cv` each fold also
scores its training pairs with the fold's PoSh and fits a words map on their words (as tools/fit_omission_words.py
fits the shipped one), then scores the held-out pairs' words with it.

Speed: the baselines' sentence vectors are kept in .cache/granular_dev/ (a vector depends only on its text and the
model: posh.embedder embeds in fixed-shape batches), so a rerun spends its time on PoSh alone. Delete that folder
after changing how the embedder computes vectors.
"""
import argparse, importlib.util, json, sys, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / '.cache' / 'granular_dev'
TASK_LABELS = ('contradicted',)


def load_fit(spec:str):
    "The function FUNC of FILE.py:FUNC."
    path, _, name = spec.rpartition(':')
    if not path or not name: raise SystemExit(f"--fit needs FILE.py:FUNC, got {spec!r}")
    s = importlib.util.spec_from_file_location(Path(path).stem, path)
    if s is None: raise SystemExit(f"--fit: cannot import {path!r}")
    mod = importlib.util.module_from_spec(s); s.loader.exec_module(mod)
    if not hasattr(mod, name): raise SystemExit(f"--fit: {path} has no function {name!r}")
    return getattr(mod, name)


def cached_embedder(name:str):
    "An Embedder whose vectors persist in .cache/granular_dev/<model>.npz; and the function that saves new ones."
    from posh.embedder import load_embedder
    emb = load_embedder(name)
    path = CACHE / f"{Path(name).name}.npz"
    if path.is_file():
        z = np.load(path, allow_pickle=False)
        emb.cache.update(zip(z['texts'].tolist(), z['vectors']))
    n0 = len(emb.cache)
    def save():
        if len(emb.cache) == n0: return
        CACHE.mkdir(parents=True, exist_ok=True)
        texts = list(emb.cache)
        tmp = path.with_suffix('.tmp.npz')
        np.savez(tmp, texts=np.array(texts), vectors=np.stack([emb.cache[t] for t in texts]))
        tmp.replace(path)
    return emb, save


def print_table(table, title:str):
    wide = table.pivot(index='method', columns='task', values=['f1', 'auroc'])
    tasks = [t for t in ('mistakes', *TASK_LABELS, 'omissions') if t in set(table.task)]
    methods = list(dict.fromkeys(table.method))
    print(f"\n{title}\n")
    print('| method | ' + ' | '.join(f"{t} F1 | {t} AUROC" for t in tasks) + ' |')
    print('|---|' + '---|---|' * len(tasks))
    for m in methods:
        print(f"| {m} | " + ' | '.join(f"{wide.loc[m, ('f1', t)]:.3f} | {wide.loc[m, ('auroc', t)]:.3f}" for t in tasks) + ' |')
    n = table.drop_duplicates('task').set_index('task')
    print('\ntokens (errors): ' + ', '.join(f"{t} {n.loc[t, 'n_tokens']} ({n.loc[t, 'n_error_tokens']})" for t in tasks))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', default=None, help='the dev set jsonl (default data/granular_dev/granular_dev.jsonl)')
    ap.add_argument('--config', default='embedded', help="PoSh configuration (default 'embedded')")
    ap.add_argument('--judge', default=None, help="judge spec 'BACKEND:MODEL' (default: the configuration's)")
    ap.add_argument('--calibration', default=None, help='calibration JSON of the embedding judge (judge_kwargs calibration=)')
    ap.add_argument('--judge-kwargs', default='{}', help='JSON object passed to the judge backend')
    ap.add_argument('--threshold', type=float, default=None, help='presence threshold override')
    ap.add_argument('--methods', default='PoSh,SGEmbed,4GramEmbed,random', help='comma-separated methods')
    ap.add_argument('--embedder', default=None, help='embedding model of the baselines (default all-MiniLM-L6-v2)')
    ap.add_argument('--items', type=int, default=None, help='the first N items only')
    ap.add_argument('--cv', type=int, default=0, help='K folds by item (with --fit): out-of-fold PoSh scores')
    ap.add_argument('--fit', default=None, help='FILE.py:FUNC, FUNC(train annotations) -> PoSh kwargs for the fold')
    ap.add_argument('--seed', type=int, default=0, help='seed of the folds')
    ap.add_argument('--cache-dir', default=None, help="PoSh's answer cache folder (default: none, every answer fresh)")
    ap.add_argument('--scope', default=None, choices=['none', 'modifiers', 'phrases', 'heads'], help="PoSh(scope=): which uncovered words take their head's elements' scores ('phrases': the modifiers and the function words of the covered phrases, posh.metric.phrase_scopes; default: the configuration's)")
    ap.add_argument('--entity-spans', default=None, choices=['heads', 'mentions'], help="PoSh(entity_spans=): 'mentions' reports entities by whole mentions (default: the configuration's)")
    ap.add_argument('--words', action='store_true', help="also PoSh+words: PoSh's omissions with the words calibration (nbs/14a)")
    ap.add_argument('--json', default=None, help='also write the table rows to this JSON file')
    args = ap.parse_args(argv)
    if bool(args.cv) != bool(args.fit): ap.error('--cv and --fit go together')
    if args.words and 'PoSh' not in [m.strip() for m in args.methods.split(',')]: ap.error('--words needs PoSh among --methods')

    from posh.data import load_granular_dev
    from posh.metric import PoSh
    from posh.meta_eval import out_of_fold, posh_token_scores
    from posh.experiments import granular_scores, granular_table, evaluate_unique
    from posh.embedder import EMBEDDED_EMBEDDER
    from posh.omission_words import WORDS_METHOD, add_omission_words, word_rows, fit_words_calibration, words_token_scores
    t0 = time.perf_counter()
    dev = load_granular_dev(args.dev)
    if args.items: dev = dev[:args.items]
    methods = [m.strip() for m in args.methods.split(',') if m.strip()]
    jk = json.loads(args.judge_kwargs)
    if args.calibration: jk['calibration'] = args.calibration
    def make_metric(**over):
        kw = dict(judge=args.judge, judge_kwargs=jk, threshold=args.threshold, cache_dir=args.cache_dir, scope=args.scope, entity_spans=args.entity_spans); kw.update(over)
        return PoSh(args.config, **kw)
    metric = make_metric()
    emb, save = cached_embedder(args.embedder or EMBEDDED_EMBEDDER) if {'SGEmbed', '4GramEmbed'} & set(methods) else (None, None)
    gs = granular_scores(metric, dev, [m for m in methods if m != 'PoSh' or not args.cv], embedder=emb)
    if save: save()
    if args.cv and 'PoSh' in methods:
        fit, by, sigs, words, t1 = load_fit(args.fit), {a.key: a for a in dev}, [], {}, time.perf_counter()
        def fit_predict(train, test):
            m = make_metric(**fit([by[k] for k in train]))
            keys = list(test) + (list(train) if args.words else [])
            ps = dict(zip(keys, evaluate_unique(m, [by[k].generation for k in keys], [by[k].reference for k in keys], granular=True)))
            sigs.append(m.signature)
            if args.words:
                X, y, _ = word_rows([by[k] for k in train], gs.labels, gs.docs, [ps[k] for k in train])
                cal = fit_words_calibration(X, y, 'cv', m.judge.signature, fitted_on=f"{len(train)} dev pairs")
                words.update(words_token_scores([by[k] for k in test], gs.labels, gs.docs, [ps[k] for k in test], cal))
            return posh_token_scores({k: gs.labels[k] for k in test}, {k: ps[k] for k in test})
        gs.scores = {'PoSh': out_of_fold([a.key for a in dev], fit_predict, args.cv, args.seed), **gs.scores}
        gs.signatures['PoSh'] = (f"out-of-fold, {args.cv} folds by item (seed {args.seed}), fit {args.fit}: " +
                                 ' ; '.join(dict.fromkeys(sigs)))
        gs.seconds['PoSh'] = time.perf_counter() - t1
        if args.words:
            gs.scores[WORDS_METHOD] = words
            gs.signatures[WORDS_METHOD] = gs.signatures['PoSh'] + ' | words map fitted per fold'
    elif args.words: add_omission_words(gs)
    if args.words:   # PoSh+words printed right after PoSh
        first = ['PoSh', WORDS_METHOD]
        gs.scores = {k: gs.scores[k] for k in first + [k for k in gs.scores if k not in first]}
    table = granular_table(gs, TASK_LABELS)
    print_table(table, f"granular {'test' if Path(dev[0].source).name.startswith('granular_test') else 'dev'} set: {len(dev)} items ({dev[0].source}); {time.perf_counter() - t0:.0f}s in all, " +
                ', '.join(f"{m} {s:.0f}s" for m, s in gs.seconds.items()))
    for m, s in gs.signatures.items(): print(f"{m}: {s}")
    if args.json:
        Path(args.json).write_text(table.to_json(orient='records', indent=1))
        print('wrote', args.json)


if __name__ == '__main__':
    sys.exit(main())
