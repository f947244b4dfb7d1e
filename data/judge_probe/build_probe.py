"""Build the judge probe set: PoSh questions about real IIW-400 descriptions, with automatic labels.

    .venv/bin/python data/judge_probe/build_probe.py            # writes data/judge_probe/probe.jsonl
    .venv/bin/python data/judge_probe/build_probe.py --check 50 # also prints 50 random labels to check by hand

Every question is asked about one *target* description of data/iiw400 (each image has two: the human one and the
PaLI-5B one), in PoSh's own format: the target's scene graph and the question fields come from PoSh's public
functions (`posh.graphs.GraphExtractor`, `posh.templates`), so a change of extraction or wording is picked up by
rerunning this script. The human description is asked in the precision direction (its partner, the model
description, is DESCRIPTION 2), the model description in the recall direction. How each label is made: README.md.
The script is deterministic (seeded); images are split into dev and test halves.
"""
import argparse, hashlib, json, random, re
from collections import Counter
from pathlib import Path

from posh.graphs import GraphExtractor, load_parser
from posh.templates import (load_prompts, make_request, scored_entities, candidates, rule_rewrite, surface,
                            PRONOUN_WORDS)

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / 'iiw400' / 'p5b_vs_human_sxs.jsonl'
PER_TEXT = 3      # questions of each label, kind and target text (at most)
SEED = 0

# Entities asked as present by another name where the target's own graph offers none (a coreferent head is
# preferred). True synonyms only: no hypernyms ("animal" for "dog"), which a judge may fairly doubt.
SYNONYMS = [('woman', 'lady'), ('man', 'gentleman'), ('child', 'kid'), ('sofa', 'couch'), ('photo', 'photograph'),
            ('rock', 'stone'), ('road', 'street'), ('ocean', 'sea'), ('car', 'automobile'), ('bicycle', 'bike'),
            ('airplane', 'plane'), ('background', 'backdrop'), ('path', 'pathway'), ('shore', 'coast'),
            ('staircase', 'stairs'), ('pants', 'trousers'), ('motorcycle', 'motorbike'), ('television', 'tv'),
            ('rug', 'carpet'), ('sunlight', 'sunshine'), ('cloth', 'fabric'), ('sign', 'signboard'),
            ('artwork', 'art piece'), ('tree trunk', 'trunk'), ('foliage', 'leaves'), ('bush', 'shrub'),
            ('cloud', 'cloud formation'), ('sky', 'heavens'), ('building', 'edifice'), ('house', 'home')]
SYN = {}
for a, b in SYNONYMS: SYN.setdefault(a, b); SYN.setdefault(b, a)

# Nouns that nearly every description implies (the photo, its parts): never drawn as absent entities.
META = set('image photo photograph picture view shot frame scene background foreground side left right top bottom '
           'center centre middle corner area part portion edge front back camera angle close-up closeup focus '
           'light color colour shade tone detail texture surface shape size line pattern design style'.split())

# Attribute types whose values can be swapped one for another; the first type that matches a word wins.
ATTR_TYPES = {
    'colour': 'white black gray grey red orange yellow green blue purple pink brown beige tan golden silver '
              'maroon navy teal turquoise violet cream ivory olive'.split(),
    'size': 'small large big tiny huge tall short long wide narrow thin thick giant massive little'.split(),
    'material': 'wooden metal metallic glass plastic stone brick concrete leather paper cardboard ceramic steel '
                'iron marble cotton wool rubber'.split(),
    'number': 'two three four five six seven eight nine ten eleven twelve'.split(),
    'shape': 'round square rectangular circular triangular oval curved straight'.split(),
}
WORD_TYPE = {w: t for t, ws in ATTR_TYPES.items() for w in ws}

# Predicates swapped for their opposite (word by word): the false relation keeps both entities.
OPPOSITE = [('left', 'right'), ('under', 'on'), ('above', 'below'), ('over', 'beneath'), ('behind', 'in front of'),
            ('inside', 'outside'), ('top', 'bottom'), ('holds', 'drops'), ('holding', 'dropping'),
            ('up', 'down'), ('into', 'out of'), ('toward', 'away from'), ('towards', 'away from'),
            ('near', 'far from'), ('with', 'without'), ('front', 'back'), ('atop', 'beneath'),
            ('wearing', 'removing'), ('wears', 'removes'), ('covers', 'uncovers'), ('covered', 'uncovered'),
            ('sitting', 'standing'), ('sits', 'stands'), ('open', 'closed'), ('across', 'along'),
            ('in', 'outside'), ('at', 'away from'), ('against', 'away from'), ('beside', 'far from'),
            ('next to', 'far from'), ('by', 'far from'), ('along', 'across'), ('through', 'around'),
            ('around', 'through'), ('from', 'toward'), ('of', 'without'), ('to', 'away from'), ('on', 'under')]


def opposite(pred: str) -> str | None:
    "The predicate with its first swappable word or phrase replaced by its opposite, or None."
    p = pred.lower()
    for a, b in sorted(OPPOSITE + [(b, a) for a, b in OPPOSITE], key=lambda ab: -len(ab[0])):  # longest first
        m = re.search(rf'\b{re.escape(a)}\b', p)
        if m: return p[:m.start()] + b + p[m.end():]
    return None


def identifiers(g):
    "PoSh's identifier of every scored entity of g (deterministic rule rewrites, as for a judge that cannot generate)."
    ents = scored_entities(g)
    ident = {}
    for e in ents:
        if e.part_of is None:
            raw, kind = candidates(g, e)[0]
            ident[e.id] = rule_rewrite(raw, kind, e.name) if kind else raw
    for _ in range(10):  # children after their parents
        for e in ents:
            if e.id not in ident and e.part_of in ident: ident[e.id] = f"{surface(e)} of {ident[e.part_of]}"
    return ident


def text_words(doc) -> set[str]:
    "Lower-cased words and lemmas of a parsed text."
    return {t.text.lower() for t in doc} | {t.lemma_.lower() for t in doc}


def occurs(name: str, target: str, words: set[str], nlp) -> bool:
    "Whether a name, or the lemma of any of its words, occurs in the target text."
    if re.search(rf'\b{re.escape(name.lower())}s?\b', target.lower()): return True
    return any(t.text.lower() in words or t.lemma_.lower() in words for t in nlp(name) if t.is_alpha)


def swap_attribute(text: str, taken: set[str], rng) -> tuple[str, str] | None:
    "(false attribute, type): the first typed word of `text` replaced by another word of its type not in `taken`."
    words = text.split()
    for i, w in enumerate(words):
        t = WORD_TYPE.get(w.lower())
        if t is None: continue
        options = [x for x in ATTR_TYPES[t] if x not in taken and x != w.lower()
                   and not (t == 'colour' and {x, w.lower()} <= {'gray', 'grey'})]
        if not options: return None
        return ' '.join(words[:i] + [rng.choice(options)] + words[i + 1:]), t
    return None


def spot_check_sample(out: list[dict], n: int) -> list[dict]:
    "n questions chosen by a hash of their content (stable when a rebuild keeps them), for the hand check."
    key = lambda r: hashlib.sha1(f"{r['id']}|{r['element']}".encode()).hexdigest()
    return sorted(out, key=key)[:n]


def build(seed: int = SEED, per_text: int = PER_TEXT):
    rows = [json.loads(l) for l in open(DATA)]
    images = [r['id'] for r in rows]
    order = images[:]; random.Random(seed).shuffle(order)
    split = {i: ('dev' if k < len(order) // 2 else 'test') for k, i in enumerate(order)}
    texts = [(r['id'], role, r[role], r['generation' if role == 'reference' else 'reference'])
             for r in rows for role in ('reference', 'generation')]
    graphs = GraphExtractor()([t for _, _, t, _ in texts])
    nlp = load_parser()
    words = [text_words(d) for d in nlp.pipe([t for _, _, t, _ in texts])]
    prompts = load_prompts()
    rng = random.Random(seed)
    out = []

    def add(k, kind, label, how, element, entity, name, **kw):
        image, role, target, source = texts[k]
        direction = 'precision' if role == 'reference' else 'recall'
        r = make_request(prompts, direction, prompts.prefix(direction, target=target, source=source), target, image,
                         kind, entity, name, **kw)
        f = {k_: v for k_, v in vars(r.fields).items() if k_ != 'target'}
        n = sum(o['image'] == image and o['role'] == role and o['kind'] == kind and o['label'] == label for o in out)
        out.append(dict(id=f"{image}/{role}/{kind}/{label}/{n}", image=image, split=split[image], role=role,
                        direction=direction, kind=kind, label=label, how=how, element=element, fields=f,
                        question=r.question.split('\n')[0]))

    for k, (image, role, target, source) in enumerate(texts):
        g = graphs[k]
        ents = [e for e in scored_entities(g) if e.name.lower() not in PRONOUN_WORDS]
        ident = identifiers(g)
        # -- entities: present (by another name where one exists) and absent (from an unrelated description)
        pres = rng.sample(ents, min(per_text, len(ents)))
        for e in pres:
            alts = [m.text for m in e.mentions if m.text.lower() not in PRONOUN_WORDS
                    and nlp(m.text)[-1].lemma_.lower() != e.name.split()[-1].lower()]
            if alts: asked, how, name = alts[0], 'coreferent head', nlp(alts[0])[-1].lemma_.lower()
            elif e.name.lower() in SYN: asked = name = SYN[e.name.lower()]; how = 'synonym'
            else: asked, how, name = ident[e.id], 'own identifier', e.name
            add(k, 'entity', 1, how, f"{asked} (target: {e.name})", asked, name)
        others = [j for j in range(len(texts)) if texts[j][0] != image]
        absent, tries = [], 0
        while len(absent) < len(pres) and tries < 200:
            tries += 1
            j = rng.choice(others)
            cand = [e for e in scored_entities(graphs[j]) if e.name.lower() not in PRONOUN_WORDS | META
                    and e.part_of is None and e.name.replace(' ', '').isalpha()]
            if not cand: continue
            e = rng.choice(cand)
            s = surface(e)
            if e.name in {a.name for a in absent} or any(occurs(x, target, words[k], nlp) for x in
                                                         (e.name, s, SYN.get(e.name.lower(), e.name))):
                continue
            absent.append(e)
            add(k, 'entity', 0, 'unrelated description', f"{s} (from {texts[j][0]})", s, e.name)
        # -- attributes: the entity's own typed attribute, and the same entity with a swapped one of the same type
        pairs = []
        for e in ents:
            stated = {w.lower() for a in e.attributes for w in a.text.split()} | ({e.quantity.lower()} if e.quantity else set())
            for a in [x.text for x in e.attributes] + ([e.quantity] if e.quantity else []):
                sw = swap_attribute(a, stated, rng)
                if sw: pairs.append((e, a, *sw))
        for e, a, false, t in rng.sample(pairs, min(per_text, len(pairs))):
            add(k, 'attribute', 1, f'own {t}', f"{ident[e.id]} -> {a}", ident[e.id], e.name, attribute=a)
            add(k, 'attribute', 0, f'swapped {t}', f"{ident[e.id]} -> {false} (stated: {a})", ident[e.id], e.name,
                attribute=false)
        # -- relations: the target's own triple, and the triple with its predicate or its object swapped
        scored = {e.id for e in ents}
        linked = {}
        for r in g.relations:
            linked.setdefault(r.subject, set()).add(r.object); linked.setdefault(r.object, set()).add(r.subject)
        preds = {(r.subject, r.predicate.lower(), r.object) for r in g.relations}
        rels = [r for r in g.relations if r.subject in scored and r.object in scored and r.subject != r.object]
        rels = list({(r.subject, r.predicate, r.object): r for r in rels}.values())
        for r in rng.sample(rels, min(per_text, len(rels))):
            s, o = g.entities[r.subject], g.entities[r.object]
            add(k, 'relation', 1, 'own triple', f"{ident[s.id]} | {r.predicate} | {ident[o.id]}", ident[s.id], s.name,
                relation=r.predicate, object=ident[o.id], object_name=o.name)
            opp = opposite(r.predicate)
            swap_objects = [e for e in ents if e.id not in (s.id, o.id) and e.name != o.name and e.name != s.name
                            and e.id not in linked.get(s.id, set()) and e.part_of is None]
            use_pred = opp is not None and (s.id, opp, o.id) not in preds and (not swap_objects or rng.random() < 0.5)
            if use_pred:
                add(k, 'relation', 0, 'swapped predicate', f"{ident[s.id]} | {opp} | {ident[o.id]} (stated: {r.predicate})",
                    ident[s.id], s.name, relation=opp, object=ident[o.id], object_name=o.name)
            elif swap_objects:
                x = rng.choice(swap_objects)
                add(k, 'relation', 0, 'swapped object', f"{ident[s.id]} | {r.predicate} | {ident[x.id]} (stated: {ident[o.id]})",
                    ident[s.id], s.name, relation=r.predicate, object=ident[x.id], object_name=x.name)
    return out, texts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=str(HERE / 'probe.jsonl'))
    ap.add_argument('--check', type=int, default=0, help='print this many random labels (seeded) to check by hand')
    a = ap.parse_args(argv)
    out, _ = build()
    with open(a.out, 'w') as f:
        for r in out: f.write(json.dumps(r, ensure_ascii=False) + '\n')
    c = Counter((r['kind'], r['split'], r['label']) for r in out)
    print(f"{len(out)} questions -> {a.out}")
    print('| kind | split | true | false |\n|---|---|---|---|')
    for kind in ('entity', 'attribute', 'relation'):
        for sp in ('dev', 'test'): print(f"| {kind} | {sp} | {c[(kind, sp, 1)]} | {c[(kind, sp, 0)]} |")
    print(Counter((r['kind'], r['how']) for r in out))
    if a.check:
        rows = {r['id']: r for r in map(json.loads, open(DATA))}
        for r in spot_check_sample(out, a.check):
            print('\n' + '=' * 100 + f"\n{r['id']}  label={r['label']}  how={r['how']}\n  {r['element']}\n  {r['question']}")
            print('  TARGET:', rows[r['image']][r['role']])


if __name__ == '__main__': main()
