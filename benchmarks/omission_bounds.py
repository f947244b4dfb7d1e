"""Where the embedded judge's omissions figure is lost: the granular dev set's reference elements, by kind and by whether
they were asked, against the human omission spans; and in-sample bounds (oracles) that rescore some elements from the
labels. Last, the same bounds for the mistakes and their `contradicted` spans.

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/omission_bounds.py            # the embedded default
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/omission_bounds.py --threshold 1   # every element asked

Data: data/granular_dev/granular_dev.jsonl (30 IIW-400 pairs, omissions marked by annotators reading the texts).
An element is *marked* when an omission span lies under it (`posh.judge_fit.element_marked`, the fit's labels). "Not asked": an attribute of an entity the
judge found absent, or a relation with an absent end; PoSh scores those 1 without a question (DESIGN 3.2, pass 3).
The oracles are bounds, not methods: they read the labels. "oracle X" scores the chosen elements 1 when marked and 5
when not, leaves the others as the judge scored them, and runs the granular protocol (posh.meta_eval, nbs/21) on the
omissions. The tokens no element covers score 5 whatever the judge does, so no oracle here reaches 1. The mistakes'
oracles rescore the generation's elements the same way against the marked mistakes (either label), or against the
`contradicted` spans alone; the last row keeps PoSh's element scores and sets the contradicted words that no element
of the generation covers (scored 5 by the protocol) to 1.
"""
import argparse, collections, dataclasses, sys

import numpy as np

ORACLES = {   # name -> (element, marked) -> the oracle's score of a recall element, or None: the judge's score kept
    'every element': lambda e, hit: 1.0 if hit else 5.0,
    'entities': lambda e, hit: (1.0 if hit else 5.0) if e.kind == 'entity' else None,
    'attributes': lambda e, hit: (1.0 if hit else 5.0) if e.kind == 'attribute' else None,
    'relations': lambda e, hit: (1.0 if hit else 5.0) if e.kind == 'relation' else None,
    'elements not asked': lambda e, hit: (1.0 if hit else 5.0) if e.kind in ('attribute', 'relation') and not e.asked else None,
    'unmarked elements only (to 5)': lambda e, hit: None if hit else 5.0,   # only the false alarms mended
}


def recall_elements(s):
    "The counted recall elements of a PairScore from its first reference (the ones the omissions protocol reads)."
    return [e for e in s.elements if e.direction == 'recall' and e.counted and (e.reference or 0) == 0]


def contradicted_spans(a):
    "The mistake spans of an annotation labelled `contradicted`."
    return [s for s, l in zip(a.mistakes, a.mistake_labels) if l == 'contradicted']


MISTAKE_ORACLES = {   # name -> (the marked spans of an annotation, (element, marked) -> score or None), for the generation
    'every element, by the marked mistakes': (lambda a: a.mistakes, ORACLES['every element']),
    'contradicted elements alone to 1': (contradicted_spans, lambda e, hit: 1.0 if hit else None),
}


def uncovered_marked(dev, gs, spans=contradicted_spans):
    "PoSh's mistake token scores with each token that no generation element covers set to 1 when it lies in one of `spans(a)` (a bound: it reads the labels); and (such tokens, marked tokens)."
    from posh.meta_eval import max_over_overlaps, overlaps
    out, n_uncovered, n_marked = {}, 0, 0
    for a, s in zip(dev, gs.pair_scores):
        toks = gs.labels[a.key]['mistakes'].tokens
        cover = max_over_overlaps(toks, [e for e in s.elements if e.direction == 'precision'], np.nan)
        sc = np.array(gs.scores['PoSh'][a.key]['mistakes'], float)
        for i, t in enumerate(toks):
            if not overlaps(t.start, t.end, spans(a)): continue
            n_marked += 1
            if np.isnan(cover[i]): sc[i] = 1.0; n_uncovered += 1
        out[a.key] = {**gs.scores['PoSh'][a.key], 'mistakes': sc}
    return out, (n_uncovered, n_marked)


def rescored(dev, pair_scores, oracle, direction='recall', marked=lambda a: a.omissions):
    "The pair scores with each element of `direction` the oracle scores (`ORACLES`) given that score, against the spans `marked(a)`."
    from posh.judge_fit import element_marked
    out = {}
    for a, s in zip(dev, pair_scores):
        els = []
        for e in s.elements:
            if e.direction == direction and (sc := oracle(e, element_marked(e, marked(a)))) is not None:
                e = dataclasses.replace(e, score=sc, asked=True)
            els.append(e)
        out[a.key] = dataclasses.replace(s, elements=els)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--threshold', type=float, default=None, help='presence threshold override (1: every element asked)')
    args = ap.parse_args(argv)
    from posh.data import load_granular_dev
    from posh.metric import PoSh
    from posh.experiments import granular_scores, granular_table
    from posh.meta_eval import posh_token_scores, auroc
    from posh.judge_fit import element_marked
    dev = load_granular_dev()
    m = PoSh('embedded', threshold=args.threshold)
    gs = granular_scores(m, dev, ['PoSh'])
    print(f"{m.signature}\n")
    print('| reference elements | n | marked omitted | element AUROC (low score = omitted) |')
    print('|---|---|---|---|')
    for kind in ('entity', 'attribute', 'relation'):
        for asked in ((None,) if kind == 'entity' else (True, False)):
            y, x = [], []
            for a, s in zip(dev, gs.pair_scores):
                for e in recall_elements(s):
                    if e.kind == kind and (asked is None or e.asked == asked):
                        y.append(element_marked(e, a.omissions)); x.append(-e.score)
            if not y: continue   # none of this group (every element asked: --threshold 1)
            name = kind + ('' if asked is None else ', asked' if asked else ', not asked (scored 1)')
            au = f"{auroc(y, x):.3f}" if asked is not False and 0 < sum(y) < len(y) else '(all 1)'
            print(f"| {name} | {len(y)} | {np.mean(y):.3f} | {au} |")
    why = collections.Counter()
    for a, s in zip(dev, gs.pair_scores):
        marked = lambda e: element_marked(e, a.omissions)
        ents = {e.entity: e for e in recall_elements(s) if e.kind == 'entity'}
        for e in recall_elements(s):
            if e.kind not in ('attribute', 'relation') or e.asked or not e.spans: continue
            ends = [ents.get(e.entity)] + ([ents.get(e.object)] if e.kind == 'relation' else [])
            absent = [x for x in ends if x is not None and not x.present]
            why[(e.kind, 'marked' if marked(e) else 'unmarked',
                 'an absent end marked' if any(marked(x) for x in absent) else 'no absent end marked')] += 1
    print('\nNot asked, with words in the reference: the element / its absent entity, marked or not\n')
    print('| kind | element | its absent entity | n |\n|---|---|---|---|')
    for (k, el, en), n in sorted(why.items()): print(f"| {k} | {el} | {en} | {n} |")
    for name, oracle in ORACLES.items():
        gs.scores[f"oracle: {name}"] = posh_token_scores(gs.labels, rescored(dev, gs.pair_scores, oracle))
    for k in gs.scores: gs.signatures.setdefault(k, k)
    t = granular_table(gs, ())
    t = t[t.task == 'omissions']
    print('\nOmissions, in-sample (PoSh as it scores; the oracles read the labels)\n')
    print('| scores | omissions F1 | omissions AUROC |\n|---|---|---|')
    for _, r in t.iterrows(): print(f"| {r.method} | {r.f1:.3f} | {r.auroc:.3f} |")
    from posh.meta_eval import evaluate_granular, evaluate_mistake_label
    print('\nMistakes, in-sample (PoSh as it scores; the oracles read the labels)\n')
    print('| scores | mistakes F1 / AUROC | contradicted F1 / AUROC |\n|---|---|---|')
    for name, (spans, oracle) in {'PoSh': (None, None), **MISTAKE_ORACLES}.items():
        sc = gs.scores['PoSh'] if oracle is None else posh_token_scores(gs.labels, rescored(dev, gs.pair_scores, oracle, 'precision', spans))
        mi, co = evaluate_granular(gs.labels, sc)['mistakes'], evaluate_mistake_label(dev, gs.labels, sc, 'contradicted')
        print(f"| {name if oracle is None else 'oracle: ' + name} | {mi.best_f1:.3f} / {mi.auroc:.3f} | {co.best_f1:.3f} / {co.auroc:.3f} |")
    sc, (nu, nm) = uncovered_marked(dev, gs)
    mi, co = evaluate_granular(gs.labels, sc)['mistakes'], evaluate_mistake_label(dev, gs.labels, sc, 'contradicted')
    print(f"| oracle: the {nu} of {nm} contradicted words under no element to 1 | {mi.best_f1:.3f} / {mi.auroc:.3f} | {co.best_f1:.3f} / {co.auroc:.3f} |")


if __name__ == '__main__':
    main(sys.argv[1:])
