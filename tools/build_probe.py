"""Build the judge probe set: PoSh questions about real IIW-400 descriptions, with automatic labels.

    .venv/bin/python tools/build_probe.py            # writes data/judge_probe/probe.jsonl
    .venv/bin/python tools/build_probe.py --check 50 # also prints 50 random labels to check by hand

Every question is asked about one *target* description of data/iiw400 (each image has two: the human one and the
PaLI-5B one), in PoSh's own format: the target's scene graph comes from the embedded configuration's extractor
(`posh.graphs.GraphExtractor`, rule set v2), every question from PoSh's own request builder
(`posh.templates.make_request`), and every question labelled true from the target's own graph is checked to be one
that `posh.templates.plan_questions` asks, byte for byte; so a change of extraction or wording is picked up by
rerunning this script. The human description is asked in the precision direction (its partner, the model
description, is DESCRIPTION 2), the model description in the recall direction. How each label is made: README.md.
The script is deterministic (seeded); images are split into dev and test halves.
"""
import argparse, hashlib, json, random, re
from collections import Counter
from pathlib import Path

from posh.scene_graph import load_parser
from posh.graphs import GraphExtractor
from posh.metric import CONFIGS
from posh.templates import (load_prompts, make_request, plan_questions, run_plan, graph_view, entity_candidates,
                            rule_rewrite, Answer, HEAD_PRONOUNS, HIGHEST)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / 'data' / 'iiw400' / 'p5b_vs_human_sxs.jsonl'
PROBE_DIR = ROOT / 'data' / 'judge_probe'
PER_TEXT = 3      # questions of each label, kind and target text (at most)
SEED = 0
EMBEDDED = CONFIGS['embedded']   # the graphs of the embedded configuration (rule set v2), which the new default reads
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
           'light color colour shade tone detail texture surface shape size line pattern design style '
           'object thing item element piece'.split())   # the last five: so generic that a reader may find them anywhere

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
# Words of one type that a careful reader may take for one another: never swapped for each other.
NEAR = [set(g.split()) for g in ('gray grey silver', 'white cream ivory', 'brown tan beige', 'yellow golden',
                                 'red maroon', 'blue navy teal turquoise', 'green teal olive turquoise', 'purple violet',
                                 'metal metallic steel iron', 'stone marble concrete', 'paper cardboard',
                                 'round circular oval curved', 'square rectangular')]
# Sizes are swapped for an opposite only (a 'large' hole is not a false 'huge' one).
_BIG, _SMALL = 'large big huge giant massive'.split(), 'small tiny little'.split()
SIZE_OPPOSITE = {**{w: _SMALL for w in _BIG}, **{w: _BIG for w in _SMALL}, 'tall': ['short'], 'short': ['tall', 'long'],
                 'long': ['short'], 'wide': ['narrow'], 'narrow': ['wide'], 'thin': ['thick'], 'thick': ['thin']}

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


def posh_questions(g, target: str, direction: str, prompts, pair: str):
    """PoSh's own questions about the elements of g when every entity is found (a judge answering 5 to everything,
    rule rewrites, as for the embedded judge): the entity, attribute and relation requests (their questions and fields:
    the prefix, which names g's text as DESCRIPTION 2, is rebuilt by the caller), each entity's identifier, and each
    entity's first candidate (the one an all-5 judge keeps: best_candidate keeps the first of equal scores)."""
    reqs = []
    def score(rs): reqs.extend(rs); return [HIGHEST] * len(rs)
    els = run_plan(plan_questions(g, target, direction, prompts, pair=pair, rewrite='rule'), None, score)
    ident = {e.entity: e.identifier for e in els if e.kind == 'entity'}
    v = graph_view(g)
    seen_by_pass2 = {e.id: Answer(ident[e.id], HIGHEST, True) for e in g.entities if e.viewer or not v.parents[e.id]}
    first = {e.id: entity_candidates(v, e, seen_by_pass2 if v.parents[e.id] else {}, prompts)[0]
             for e in g.entities if not e.viewer}
    for i, c in first.items():   # the identifier PoSh kept is the first candidate, rewritten by rule
        assert ident[i] == rule_rewrite(c), (g.text[:60], ident[i], c)
    return reqs, ident, first


VIEWER_IDS = {'the viewer', 'our left', 'our right'}
VIEWER_SWAP = {'left': 'our right', 'right': 'our left'}   # a viewer object swapped for the other side


NEGATION = re.compile(r"\b(no|not|never|without|devoid of|free of|absence of|lack of|lacking|nor|none of)\s+"
                      r"(?:[\w'-]+,?\s+){0,3}$", re.I)


def negated(e, text: str) -> bool:
    """Whether every mention of entity e follows a negation within three words ("devoid of clouds", "without any
    people"): such an entity is not depicted, so the probe never asks it (or its attributes and relations) as true."""
    return bool(e.mentions) and all(NEGATION.search(text[max(0, m.start - 60):m.start]) for m in e.mentions)


def text_words(doc) -> set[str]:
    "Lower-cased words and lemmas of a parsed text."
    return {t.text.lower() for t in doc} | {t.lemma_.lower() for t in doc}


def occurs(name: str, target: str, words: set[str], nlp) -> bool:
    "Whether a name, or the lemma of any of its words, occurs in the target text."
    if re.search(rf'\b{re.escape(name.lower())}s?\b', target.lower()): return True
    return any(t.text.lower() in words or t.lemma_.lower() in words for t in nlp(name) if t.is_alpha)


def swap_attribute(text: str, taken: set[str], rng) -> tuple[str, str] | None:
    """(false attribute, type): the first typed word of `text` replaced by another word of its type, not in `taken` and
    not a near-synonym of it (NEAR); a size word only by one of its opposites (SIZE_OPPOSITE: large -> small, never
    large -> huge)."""
    words = text.split()
    for i, w in enumerate(words):
        w0 = w.lower()
        t = WORD_TYPE.get(w0)
        if t is None: continue
        near = set().union(*[g for g in NEAR if w0 in g], {w0})
        pool = SIZE_OPPOSITE.get(w0, []) if t == 'size' else ATTR_TYPES[t]
        options = [x for x in pool if x not in taken and x not in near]
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
    graphs = GraphExtractor(EMBEDDED['parser'], EMBEDDED['coref'], rules=EMBEDDED['rules'])([t for _, _, t, _ in texts])
    nlp = load_parser(EMBEDDED['parser'])
    words = [text_words(d) for d in nlp.pipe([t for _, _, t, _ in texts])]
    prompts = load_prompts()
    rng = random.Random(seed)
    out = []

    def add(k, kind, label, how, element, entity, name, raw='', **kw):
        "One probe question, built by PoSh's own request builder (`make_request`)."
        image, role, target, source = texts[k]
        direction = 'precision' if role == 'reference' else 'recall'
        r = make_request(prompts, direction, prompts.prefix(direction, target=target, source=source), target, image,
                         kind, entity, name, raw=raw, **kw)
        f = {k_: v for k_, v in vars(r.fields).items() if k_ != 'target'}
        n = sum(o['image'] == image and o['role'] == role and o['kind'] == kind and o['label'] == label for o in out)
        out.append(dict(id=f"{image}/{role}/{kind}/{label}/{n}", image=image, split=split[image], role=role,
                        direction=direction, kind=kind, label=label, how=how, element=element, fields=f,
                        **({'raw': raw} if raw and raw != entity else {}), question=r.question.split('\n')[0]))
        return r

    def own(k, r):
        "A question PoSh itself asks about the target's graph, rebuilt by the probe: it must be the same to the byte."
        q = out[-1]
        posh_req = next((x for x in posh_reqs if x.question == r.question and x.fields == r.fields), None)
        assert posh_req is not None, f"probe question {q['id']} differs from PoSh's: {r.question!r}"

    for k, (image, role, target, source) in enumerate(texts):
        g = graphs[k]
        direction = 'precision' if role == 'reference' else 'recall'
        posh_reqs, ident, first = posh_questions(g, target, direction, prompts, image)
        v = graph_view(g)
        denied = {e.id for e in g.entities if negated(e, target)}
        ents = [e for e in g.entities if not e.viewer and v.text(e.id) not in HEAD_PRONOUNS and e.id not in denied]
        # -- entities: present (by another name where one exists) and absent (from an unrelated description)
        pres = rng.sample(ents, min(per_text, len(ents)))
        for e in pres:
            alts = [h for h in v.heads[e.id] if h not in HEAD_PRONOUNS and nlp(h)[-1].lemma_.lower() != e.name.split()[-1].lower()]
            if alts:
                add(k, 'entity', 1, 'coreferent head', f"{alts[0]} (target: {e.name})", alts[0], nlp(alts[0])[-1].lemma_.lower())
            elif e.name.lower() in SYN:
                add(k, 'entity', 1, 'synonym', f"{SYN[e.name.lower()]} (target: {e.name})", SYN[e.name.lower()],
                    SYN[e.name.lower()])
            else:   # PoSh's own first question about the entity
                c = first[e.id]
                own(k, add(k, 'entity', 1, 'own identifier', f"{ident[e.id]} (target: {e.name})", ident[e.id], e.name,
                           raw=c.raw))
        others = [j for j in range(len(texts)) if texts[j][0] != image]
        absent, tries = [], 0
        while len(absent) < len(pres) and tries < 200:
            tries += 1
            j = rng.choice(others)
            gj = graphs[j]
            vj = graph_view(gj)
            cand = [e for e in gj.entities if not e.viewer and e.part_of is None and not vj.parents[e.id]
                    and e.name.lower() not in HEAD_PRONOUNS | META and e.name.replace(' ', '').isalpha()]
            if not cand: continue
            e = rng.choice(cand)
            s = vj.text(e.id)   # how PoSh names it: its first mention
            if e.name in {a.name for a in absent} or any(occurs(x, target, words[k], nlp) for x in
                                                         (e.name, s, SYN.get(e.name.lower(), e.name))):
                continue
            absent.append(e)
            add(k, 'entity', 0, 'unrelated description', f"{s} (from {texts[j][0]})", s, e.name)
        # -- attributes: PoSh's own attribute question, and the same entity with a swapped word of the same type
        pairs = []
        for r in posh_reqs:
            f = r.fields
            if f.kind != 'attribute' or f.entity in VIEWER_IDS: continue
            e = next(x for x in g.entities if ident[x.id] == f.entity and x.name == f.name and not x.viewer)
            if e.id in denied: continue
            stated = {w for a in v.attributes[e.id] for w in a.text.split()}
            sw = swap_attribute(f.attribute, stated, rng)
            if sw: pairs.append((e, f.attribute, *sw))
        for e, a, false, t in rng.sample(pairs, min(per_text, len(pairs))):
            own(k, add(k, 'attribute', 1, f'own {t}', f"{ident[e.id]} -> {a}", ident[e.id], e.name, attribute=a))
            add(k, 'attribute', 0, f'swapped {t}', f"{ident[e.id]} -> {false} (stated: {a})", ident[e.id], e.name,
                attribute=false)
        # -- relations: PoSh's own relation question (part-of links and the viewer included), and the same with its
        #    predicate or its object swapped
        by_ident = {}
        for x in g.entities: by_ident.setdefault(ident[x.id], x)
        linked = {}
        for l in v.links:
            linked.setdefault(l.subject, set()).add(l.object); linked.setdefault(l.object, set()).add(l.subject)
        preds = {(l.subject, l.predicate.lower(), l.object) for l in v.links}
        rels = {}
        for r in posh_reqs:
            f = r.fields
            if f.kind != 'relation': continue
            l = next((l for l in v.links if l.predicate == f.relation and ident[l.subject] == f.entity
                      and ident[l.object] == f.object and g.entities[l.subject].name == f.name), None)
            if l is not None and l.subject != l.object and not {l.subject, l.object} & denied: rels.setdefault((f.entity, f.relation, f.object), (l, f))
        for l, f in rng.sample(list(rels.values()), min(per_text, len(rels))):
            s, o = g.entities[l.subject], g.entities[l.object]
            own(k, add(k, 'relation', 1, 'own triple' if not l.part_of else 'own part-of link',
                       f"{f.entity} | {f.relation} | {f.object}", f.entity, f.name, relation=f.relation, object=f.object,
                       object_name=f.object_name))
            opp = None if l.part_of else opposite(l.predicate)
            swap_objects = [e for e in ents if e.id not in (s.id, o.id) and e.name != o.name and e.name != s.name
                            and e.id not in linked.get(s.id, set()) and e.part_of is None]
            if o.viewer and o.name in ('left', 'right'):   # our left <-> our right, unless the target says both
                x = next((e for e in g.entities if e.viewer and e.name == {'left': 'right', 'right': 'left'}[o.name]), None)
                swap_objects = [] if x is not None and x.id in linked.get(s.id, set()) else \
                    [VIEWER_SWAP[o.name]]
            use_pred = opp is not None and (s.id, opp, o.id) not in preds and (not swap_objects or rng.random() < 0.5)
            if use_pred:
                add(k, 'relation', 0, 'swapped predicate', f"{f.entity} | {opp} | {f.object} (stated: {l.predicate})",
                    f.entity, f.name, relation=opp, object=f.object, object_name=f.object_name)
            elif swap_objects:
                x = rng.choice(swap_objects)
                xi, xn = (x, x.split()[-1]) if isinstance(x, str) else (ident[x.id], x.name)
                add(k, 'relation', 0, 'swapped object', f"{f.entity} | {f.relation} | {xi} (stated: {f.object})",
                    f.entity, f.name, relation=f.relation, object=xi, object_name=xn)
    return out, texts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=str(PROBE_DIR / 'probe.jsonl'))
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
