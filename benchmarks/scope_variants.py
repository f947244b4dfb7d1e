"""Granular token scores under several scopes from one out-of-fold run: which uncovered words should take an element's score.

    python benchmarks/scope_variants.py                    # granular dev set, 5 folds by item, fold seed 0

The scope (`PoSh(scope=...)`, nbs/05_posh) changes the granular token scores only, after the judge has answered: so
PoSh scores the granular dev set once out of fold (as `benchmarks/granular_dev.py --cv 5 --fit tools/fit_judge.py:fit`
does: the judge fitted per fold on its training pairs), with `scope='none'`, and each variant then sets the elements'
`scope` as `PoSh.evaluate` would (the generation's elements with its parse, the reference's with its). The `modifiers`
and `phrases` rows equal what `granular_dev.py --cv 5 --fit tools/fit_judge.py:fit --scope X` prints. The variants:
the shipped scopes, `phrases` without the articles (`posh.metric.ARTICLES`), and the modifiers with one group of the
function words of `posh.metric.PHRASE_DEPS` at a time (or the noun clauses alone). Dev set only: never the test set.
"""
import argparse, copy, sys, time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GROUPS = {'determiners': {'det', 'predet'}, 'possessives': {'poss'}, 'numerals': {'nummod', 'quantmod'},
          'prepositions': {'case', 'prep', 'agent'}, 'auxiliaries': {'aux', 'auxpass', 'neg'}, 'particles': {'prt'},
          'conjunctions': {'cc'}, 'subordinators': {'mark'}}


def variants() -> dict:
    "name -> (the generation's scope function, the reference's); None: no scope."
    import posh.metric as M
    mods = partial(M.head_scopes, pos=M.SCOPES['modifiers'])
    out = {'none': (None, None), 'modifiers': (mods, mods), 'phrases': (M.phrase_scopes, M.phrase_scopes),
           'phrases on the generation, modifiers on the reference': (M.phrase_scopes, mods),
           'modifiers on the generation, phrases on the reference': (mods, M.phrase_scopes)}
    f = partial(M.phrase_scopes, words_out=M.ARTICLES); out['phrases without articles'] = (f, f)
    for name, deps in GROUPS.items():
        f = partial(M.phrase_scopes, deps=frozenset(deps)); out[f'modifiers + {name}'] = (f, f)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cv', type=int, default=5, help='folds by item')
    ap.add_argument('--seed', type=int, default=0, help='seed of the folds')
    ap.add_argument('--fit', default=str(ROOT / 'tools' / 'fit_judge.py') + ':fit', help='FILE.py:FUNC, as granular_dev.py --fit')
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / 'benchmarks'))
    from granular_dev import load_fit
    from posh.data import load_granular_dev
    from posh.experiments import evaluate_unique
    from posh.meta_eval import out_of_fold, parse_texts, token_labels, posh_token_scores, evaluate_granular, evaluate_mistake_label
    from posh.metric import PoSh
    t0, dev, fit, pairs = time.perf_counter(), load_granular_dev(), load_fit(a.fit), {}
    by = {x.key: x for x in dev}
    def fit_predict(train, test):
        m = PoSh('embedded', scope='none', **fit([by[k] for k in train]))
        pairs.update(zip(test, evaluate_unique(m, [by[k].generation for k in test], [by[k].reference for k in test], granular=True)))
        return {k: {} for k in test}   # the scores come later, per variant
    out_of_fold([x.key for x in dev], fit_predict, a.cv, a.seed)
    nlp = PoSh('embedded').extractor.nlp
    texts = list(dict.fromkeys(t for x in dev for t in (x.generation, x.reference)))
    labels = token_labels(dev, parse_texts(nlp, texts))   # the protocol's parse; the scope's, as PoSh.evaluate parses:
    docs = dict(zip(texts, nlp.pipe(texts, disable=[p for p in ('ner', 'lemmatizer') if p in nlp.pipe_names])))
    print(f"granular dev set, {len(dev)} items, out of fold ({a.cv} folds by item, seed {a.seed}, fit {a.fit}): macro F1 / token AUROC\n")
    print("| scope | mistakes | contradicted | omissions |\n|---|---|---|---|")
    for name, (fg, fr) in variants().items():
        sc = {}
        for x in dev:
            p = copy.deepcopy(pairs[x.key])
            for e in p.elements: e.scope = []
            if fg: fg(docs[x.generation], [e for e in p.elements if e.direction == 'precision'])
            if fr: fr(docs[x.reference], [e for e in p.elements if e.direction == 'recall'])
            sc[x.key] = p
        ts = posh_token_scores(labels, sc)
        r, c = dict(evaluate_granular(labels, ts, 10)), evaluate_mistake_label(dev, labels, ts, 'contradicted', 10)
        cell = lambda v: f"{v.best_f1:.3f} / {v.auroc:.3f}"
        print(f"| {name} | {cell(r['mistakes'])} | {cell(c)} | {cell(r['omissions'])} |", flush=True)
    print(f"\n{time.perf_counter() - t0:.0f}s in all")


if __name__ == '__main__':
    sys.exit(main())
