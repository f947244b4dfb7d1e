"""Would matching a reference entity together with its attributes find entities the embedded judge misses? (analysis)

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/attributed_entities.py

The embedding judge matches an asked entity by its class name and identifier against the target graph's entity names
and noun heads (`posh.embedding_judge.entity_match`). A reworded entity can be lost that way: in the paraphrase
benchmark, the reference's "vehicular pathway" is the paraphrase's "road for vehicles"; MiniLM puts "pathway" and "road"
at cosine 0.35, "vehicular pathway" and "road for vehicle" at 0.54, and the entity is judged absent, so its attribute
and relation are scored 1 without a question.

On the granular dev set (the labels people made), for every recall entity element of PoSh's embedded default, this
prints how well each reading separates the entities people marked omitted from those they did not (token AUROC
orientation: the chance that a marked entity scores below an unmarked one):
- `judge score`: the shipped judge's score of the entity;
- `name cosine`: the entity's class name against the generation graph's entity names (best MiniLM cosine);
- `attributed cosine`: the entity's attributes and name ("vehicular pathway") against the generation graph's entities
  with their attributes ("white van") and with a prepositional relation ("road for vehicle"), and their names;
- `max`: the higher of the two cosines.
Rows: all entities; those the judge judged absent (score below PoSh's presence threshold 2, whose attributes and
relations are then scored 1 unasked); and of those, the ones with attributes. An entity counts as marked when a span
people marked omitted overlaps one of its mentions.

This measures a possible judge feature; nothing here is shipped (nbs/14, stop 43).
"""
import json, sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PREPOSITIONS = frozenset('for with of on in from'.split())   # the relations read as an entity's modifiers


def unit(X):
    X = np.asarray(X, float)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def target_phrases(graph) -> tuple[list[str], list[str]]:
    "(the entity names; the names, attributed names and 'X prep Y' phrases) of a scene graph."
    g = json.loads(graph.to_json())
    names = {e['id']: e['name'] for e in g['entities']}
    plain = [e['name'] for e in g['entities']]
    attributed = [' '.join([a['text'] for a in e.get('attributes') or []] + [e['name']]) for e in g['entities']]
    prep = [f"{names[r['subject']]} {r['predicate']} {names[r['object']]}" for r in g['relations']
            if r['predicate'].lower() in PREPOSITIONS]
    return plain, plain + attributed + prep


def main():
    sys.path.insert(0, str(ROOT))
    import pandas as pd
    from posh.data import load_granular_dev
    from posh.embedding_judge import PhraseVectors, norm_phrase
    from posh.meta_eval import overlaps, token_auroc
    from posh.metric import PoSh
    dev = load_granular_dev()
    metric = PoSh('embedded')
    scores = metric.evaluate([a.generation for a in dev], [a.reference for a in dev], granular=True)
    graphs = metric.graphs([a.generation for a in dev])   # those the scoring parsed (PoSh keeps the latest)
    vec = PhraseVectors()
    rows = []
    for a, s, g in zip(dev, scores, graphs):
        plain, rich = target_phrases(g)
        if not plain: continue
        T1, T2 = unit(vec(plain)), unit(vec(rich))
        rec = [e for e in s.elements if e.direction == 'recall']
        for e in (e for e in rec if e.kind == 'entity'):
            atts = [x.text for x in rec if x.kind == 'attribute' and x.identifier == e.identifier]
            q1, q2 = unit(vec([norm_phrase(e.text)])), unit(vec([' '.join(atts + [norm_phrase(e.text)])]))
            rows.append(dict(key=a.key, score=e.score, marked=any(overlaps(p.start, p.end, a.omissions) for p in e.spans),
                             has_attributes=bool(atts), name=float((q1 @ T1.T).max()), attributed=float((q2 @ T2.T).max())))
    d = pd.DataFrame(rows)
    subsets = [('all recall entities', d), ('judged absent (score < 2)', d[d.score < 2]),
               ('judged absent, with attributes', d[(d.score < 2) & d.has_attributes])]
    print(f"granular dev set: {len(dev)} pairs, {len(d)} recall entity elements of PoSh('embedded') ({metric.signature})\n")
    print("| entities | n | marked omitted | judge score | name cosine | attributed cosine | max |\n|---|---|---|---|---|---|---|")
    for name, sub in subsets:
        y = sub.marked.to_numpy()
        au = [token_auroc(y, sub[c].to_numpy()) for c in ('score', 'name', 'attributed')]
        au.append(token_auroc(y, np.maximum(sub.name, sub.attributed).to_numpy()))
        print(f"| {name} | {len(sub)} | {y.mean():.0%} | " + ' | '.join(f'{x:.3f}' for x in au) + ' |')
    print("\nattributed cosine - judge score (AUROC), 95% interval of 2,000 bootstrap draws of the pairs:")
    rng = np.random.default_rng(0)
    for name, sub in subsets:
        keys = sub.key.unique()
        by = {k: sub[sub.key == k] for k in keys}
        diffs = []
        for _ in range(2000):
            b = pd.concat([by[k] for k in rng.choice(keys, len(keys))])
            y = b.marked.to_numpy()
            if y.all() or not y.any(): continue
            diffs.append(token_auroc(y, b.attributed.to_numpy()) - token_auroc(y, b.score.to_numpy()))
        y = sub.marked.to_numpy()
        point = token_auroc(y, sub.attributed.to_numpy()) - token_auroc(y, sub.score.to_numpy())
        print(f"  {name}: {point:+.3f} [{np.percentile(diffs, 2.5):+.3f}, {np.percentile(diffs, 97.5):+.3f}]")


if __name__ == '__main__':
    main()
