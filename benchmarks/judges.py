"""Judges on the judge probe set, side by side: AUC per kind and overall, mean score of true and false questions,
seconds per 100 questions.

    .venv/bin/python benchmarks/judges.py                     # test half; SmolLM2 variants on a subset of it
    .venv/bin/python benchmarks/judges.py --llm-targets 0     # without the (slow) SmolLM2 variants
    .venv/bin/python benchmarks/judges.py --fit --version 8-probe   # refit the probe map of the embedding judge on the DEV half
                                                              # (the probe's, and the paraphrase benchmark's attribute and
                                                              # relation questions) and write
                                                              # posh/resources/embedding_judge_calibration_probe.json
                                                              # (the recall maps of the shipped calibration: then run
                                                              # tools/fit_judge.py, nbs/14_judge_fit)

The probe (data/judge_probe/probe.jsonl, built by tools/build_probe.py) holds PoSh questions about real
IIW-400 descriptions with automatic labels. Requests are rebuilt here with the current prompts
(`posh.templates.make_request`, the builder PoSh's own questions go through; an entity asked under a rule rewrite
keeps its raw candidate in the probe row), so LLM judges read exactly what PoSh would send them, and the embedding judge reads
the same questions' fields. Judges:

* embedding        the embedded default: posh.embedding_judge.EmbeddingJudge (all-MiniLM-L6-v2 + shipped calibration)
* embedding-text   the same model without scene graphs: the asked element as a phrase against the target's
                   sentences (max cosine), to show what the graph adds (uncalibrated: 1 + 4 max(cos, 0))
* lexical          no model: the asked words in the target text (entity head; attribute or predicate and object in a
                   sentence that names the entity), 1 or 5
* smollm2          SmolLM2-135M as PoSh's judge today: the paper's prompt, expected digit over the top-20 tokens
* smollm2-exact    the same prompt, expected digit over the full next-token distribution
* smollm2-yesno    the paper's question, answered "Yes or No": score 1 + 4 P(yes) / (P(yes) + P(no))
* smollm2-fewshot  the paper's prompt after three worked examples (one per kind), expected digit over the top 20

SmolLM2 takes about a second per question on two shared cores, so its variants run on the questions of a seeded
sample of test-half target texts (--llm-targets, default 12); every judge is also reported on that same subset.
Graph extraction is not timed (PoSh extracts both texts' graphs before any question: the judge reuses them).
"""
import argparse, json, random, re, sys, time
from pathlib import Path

import numpy as np

from posh.templates import load_prompts

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / 'data/judge_probe/probe.jsonl'
IIW = ROOT / 'data/iiw400/p5b_vs_human_sxs.jsonl'
KINDS = ('entity', 'attribute', 'relation')


from posh.meta_eval import auroc as auc   # area under the ROC curve (ties count half); nan without both classes


def embedded_extractor():
    "The scene-graph extractor of the embedded configuration (parser, coreference, rule set v2)."
    from posh.graphs import GraphExtractor
    from posh.metric import CONFIGS
    c = CONFIGS['embedded']
    return GraphExtractor(c['parser'], c['coref'], rules=c['rules'])


def load_probe(path=PROBE, split=None) -> list[dict]:
    rows = [json.loads(l) for l in open(path)]
    return [r for r in rows if split is None or r['split'] == split]


def probe_requests(probe: list[dict]):
    "PoSh JudgeRequests of the probe questions, worded with the current prompts."
    from posh.templates import load_prompts, make_request
    texts = {r['id']: r for r in map(json.loads, open(IIW))}
    prompts = load_prompts()
    out = []
    for q in probe:
        pair = texts[q['image']]
        target = pair[q['role']]
        source = pair['generation' if q['role'] == 'reference' else 'reference']
        f = q['fields']
        out.append(make_request(prompts, q['direction'], prompts.prefix(q['direction'], target=target, source=source),
                                target, q['image'], f['kind'], f['entity'], f['name'], f.get('attribute', ''),
                                f.get('relation', ''), f.get('object', ''), f.get('object_name', ''),
                                raw=q.get('raw', '')))
        if out[-1].question.split('\n')[0] != q['question']:
            sys.exit(f"probe question {q['id']} is worded differently by the current prompts: rebuild the probe "
                     f"(tools/build_probe.py)")
    return out


# -- judges that exist only here (baselines) ------------------------------------------------------------------------
_SENT = re.compile(r'(?<=[.!?])\s+')


def _has(words: str, text: str) -> bool:
    w = words.lower().strip()
    return bool(w) and re.search(rf"\b{re.escape(w)}(s|es)?\b", text) is not None


def lexical_score(f) -> float:
    "5 when the asked words occur (in one sentence with the entity for attributes and relations), else 1."
    text = f.target.lower()
    head = (f.name or f.entity).split()[-1]
    if f.kind == 'entity': return 5.0 if _has(head, text) else 1.0
    sents = [s for s in _SENT.split(text) if _has(head, s)]
    if f.kind == 'attribute': return 5.0 if any(_has(f.attribute, s) for s in sents) else 1.0
    obj = (f.object_name or f.object).split()[-1]
    return 5.0 if any(_has(f.relation, s) and _has(obj, s) for s in sents) else 1.0


class TextEmbeddingJudge:
    "all-MiniLM-L6-v2 without scene graphs: the asked element as a phrase vs. the target's sentences."
    def __init__(self, vectors): self.vectors = vectors

    @staticmethod
    def phrase(f) -> str:
        if f.kind == 'entity': return f.entity
        if f.kind == 'attribute': return f"{f.entity} is {f.attribute}"
        return f"{f.entity} {f.relation} {f.object}"

    def score(self, requests):
        sents = {r.fields.target: [s for s in _SENT.split(r.fields.target) if s.strip()] for r in requests}
        self.vectors.add([s for ss in sents.values() for s in ss] + [self.phrase(r.fields) for r in requests])
        out = []
        for r in requests:
            sim = (self.vectors([self.phrase(r.fields)]) @ self.vectors(sents[r.fields.target]).T).max()
            out.append(1 + 4 * max(float(sim), 0.0))
        return out


FEWSHOT = [  # (kind, description, question fields, answer): worked examples for smollm2-fewshot
    ('entity', "A black cat sleeps on a red sofa next to a window.", dict(entity='dog', name='dog'), 1),
    ('attribute', "A black cat sleeps on a red sofa next to a window.", dict(entity='the sofa', name='sofa', attribute='red'), 5),
    ('relation', "A black cat sleeps on a red sofa next to a window.",
     dict(entity='the cat', name='cat', relation='under', object='the window', object_name='window'), 1),
]


def fewshot_requests(requests, prompts):
    "The same requests with three worked examples (recall wording, PoSh's own request builder) before the real prefix."
    from posh.judges import JudgeRequest
    from posh.templates import make_request
    shots = [f"{make_request(prompts, 'recall', prompts.prefix('recall', target=text, source=''), text, '', kind, **f).content}"
             f"\n{answer}" for kind, text, f, answer in FEWSHOT]
    head = "Examples:\n\n" + "\n\n".join(shots) + "\n\nNow the real question.\n\n"
    return [JudgeRequest(head + r.prefix, r.question, r.pair, r.fields) for r in requests]


def yesno_scores(judge, requests):
    "1 + 4 P(yes)/(P(yes)+P(no)) after the paper's question line with 'Answer Yes or No.' (SmolLM2 internals, prefix reuse)."
    import torch
    from posh.judges import JudgeRequest
    tok = judge.tok
    vocab = [tok.decode([i]) for i in range(len(tok))]
    yes = torch.tensor([i for i, t in enumerate(vocab) if t.strip().lower() == 'yes'])
    no = torch.tensor([i for i, t in enumerate(vocab) if t.strip().lower() == 'no'])
    rs = [JudgeRequest(r.prefix, r.question.split('\n')[0] + "\n\nAnswer Yes or No.", r.pair, r.fields)
          for r in requests]   # the paper's question line (with its instruction), then the yes/no answer format
    parts = [judge.enc.split(r) for r in rs]
    out = [None] * len(rs)
    groups = {}
    for i, (h, q) in enumerate(parts): groups.setdefault(tuple(h), []).append(i)
    with torch.inference_mode():
        for head, idx in groups.items():
            kv = judge._head_cache(head)
            for s in range(0, len(idx), judge.batch_size):
                chunk = idx[s:s + judge.batch_size]
                lps = judge._last_logprobs([parts[i][1] for i in chunk], kv)
                for i, lp in zip(chunk, lps):
                    py, pn = torch.logsumexp(lp[yes], 0).exp().item(), torch.logsumexp(lp[no], 0).exp().item()
                    out[i] = 1 + 4 * py / (py + pn) if py + pn > 0 else 3.0
    return out


# -- measuring -------------------------------------------------------------------------------------------------------
def measure(name, make, probe, requests, repeats=1):
    """Score with make()(requests) `repeats` times (a fresh judge each time): AUC per kind and overall, mean true/false
    score, seconds per 100 questions (median of the runs)."""
    times = []
    for _ in range(repeats):
        fn = make()
        t0 = time.perf_counter()
        scores = np.asarray(fn(requests), float)
        times.append(time.perf_counter() - t0)
    y = np.array([q['label'] for q in probe])
    kinds = np.array([q['kind'] for q in probe])
    secs = sorted(times)[len(times) // 2]
    row = dict(judge=name, n=len(probe), s_per_100=100 * secs / max(len(probe), 1), overall=auc(y, scores),
               mean_true=scores[y == 1].mean(), mean_false=scores[y == 0].mean(), scores=scores, runs=len(times))
    for k in KINDS: row[k] = auc(y[kinds == k], scores[kinds == k])
    return row


def table(rows, title):
    print(f"\n{title}\n")
    print("| judge | questions | AUC entity | AUC attribute | AUC relation | AUC overall | mean score true | "
          "mean score false | s / 100 questions |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['judge']} | {r['n']} | {r['entity']:.3f} | {r['attribute']:.3f} | {r['relation']:.3f} | "
              f"{r['overall']:.3f} | {r['mean_true']:.2f} | {r['mean_false']:.2f} | {r['s_per_100']:.2f} |")


def llm_subset(probe, n_targets, seed=0):
    "The questions of n_targets test-half target texts (seeded), so SmolLM2 reuses each description's prefix."
    targets = sorted({(q['image'], q['role']) for q in probe})
    keep = set(random.Random(seed).sample(targets, min(n_targets, len(targets))))
    return [i for i, q in enumerate(probe) if (q['image'], q['role']) in keep]


PARAPHRASE = ROOT / 'data/judge_probe/paraphrase/paraphrase.jsonl'
PARAPHRASE_KINDS = ('attribute', 'relation')   # the kinds whose calibration also sees the paraphrase questions
def _words(s: str) -> set:
    return set(re.findall(r'[a-z]+', s.lower()))


def paraphrase_questions(split: str, extractor, path=PARAPHRASE) -> list[tuple]:
    """(JudgeRequest, label) of every question PoSh can ask about the paraphrase benchmark's `split` half
    (data/judge_probe/paraphrase): labelled true, every element of the faithful paraphrase asked about its reference
    and every element of the reference asked about the paraphrase; labelled false, the elements a swap touched (an
    attribute with a colour word in the colour-swapped text, asked either way; the swapped object's entity, its
    attributes and relations, asked either way). Every entity is taken as present (all questions are asked)."""
    import importlib.util
    from posh.templates import load_prompts, plan_questions, run_plan
    spec = importlib.util.spec_from_file_location('build_paraphrase', ROOT / 'tools' / 'build_paraphrase.py')
    build = importlib.util.module_from_spec(spec); spec.loader.exec_module(build)
    colours = set(build.COLOURS)
    rows = [r for r in map(json.loads, open(path)) if r['split'] == split]
    prompts, out = load_prompts(), []
    texts = list(dict.fromkeys(t for r in rows for t in (r['reference'], r['paraphrase'], r['colour_swapped'], r['object_swapped'])))
    graphs = dict(zip(texts, extractor(texts)))
    def asked(source, target, direction, pair):
        reqs = []
        def score(rs): reqs.extend(rs); return [5.0] * len(rs)
        run_plan(plan_questions(graphs[source], target, direction, prompts, 2.0, pair, rewrite='rule'), None, score)
        return reqs
    def both_ways(text, ref, pair):   # (request, direction) of the text's elements vs ref, then ref's elements vs text
        return [(q, 'precision') for q in asked(text, ref, 'precision', pair)] + [(q, 'recall') for q in asked(ref, text, 'recall', pair)]
    for r in rows:
        for q, _ in both_ways(r['paraphrase'], r['reference'], r['id']): out.append((q, 1))
        for q, _ in both_ways(r['colour_swapped'], r['reference'], r['id']):
            if q.fields.kind == 'attribute' and _words(q.fields.attribute) & colours: out.append((q, 0))
        old, new = r['object_swap'].split(' -> ')
        for q, d in both_ways(r['object_swapped'], r['reference'], r['id']):
            swapped = new if d == 'precision' else old
            names = _words(q.fields.name) | (_words(q.fields.object_name) if q.fields.kind == 'relation' else set())
            if any(w == swapped or w.rstrip('s') == swapped for w in names): out.append((q, 0))
    return out


def fit(args):
    "Refit the embedding judge's calibration on the dev half and write it (a new version)."
    from posh.judge_features import FEATURES, PhraseVectors, TargetIndex, question_features, load_lexicon
    from posh.calibration import fit_calibration, CALIBRATION_RESOURCE
    dev = load_probe(args.probe, 'dev')
    reqs = probe_requests(dev)
    kinds, ys = [q['kind'] for q in dev], [q['label'] for q in dev]
    extractor = embedded_extractor()
    if args.paraphrase:
        # attributes and relations only: the probe's true ones are all elements of the target's own graph (exact
        # matches), while its entity questions already ask by other names (coreferent heads, synonyms)
        extra = [(q, y) for q, y in paraphrase_questions('dev', extractor) if q.fields.kind in PARAPHRASE_KINDS]
        reqs += [q for q, _ in extra]; kinds += [q.fields.kind for q, _ in extra]; ys += [y for _, y in extra]
    texts = list(dict.fromkeys(r.fields.target for r in reqs))
    graphs = dict(zip(texts, extractor(texts)))
    lex = load_lexicon()
    index = {t: TargetIndex.from_graph(g, lex) for t, g in graphs.items()}
    vec = PhraseVectors(args.model)
    from posh.judge_fit import probe_features, PROBE_TEXT_FEATURES, PROBE_RESOURCE
    # what EmbeddingJudge.features computes; of the text features only the contradictions (posh.judge_fit, nbs/14)
    X = [probe_features(r.fields.kind, question_features(r.fields, index[r.fields.target], vec, lex)) for r in reqs]
    feats = {k: [x for x, kk in zip(X, kinds) if kk == k] for k in FEATURES}
    labels = {k: [y for y, kk in zip(ys, kinds) if kk == k] for k in FEATURES}
    sizes = ', '.join(f"{k} {len(v)}" for k, v in labels.items())
    n_probe = {k: sum(q['kind'] == k for q in dev) for k in FEATURES}
    para = (f" + data/judge_probe/paraphrase dev half (its {' and '.join(PARAPHRASE_KINDS)} questions: {', '.join(f'{k} {len(labels[k]) - n_probe[k]}' for k in PARAPHRASE_KINDS)})"
            if args.paraphrase else '')
    cal = fit_calibration(feats, labels, args.version, args.model, args.l2,
                          fitted_on=f"data/judge_probe dev half ({', '.join(f'{k} {v}' for k, v in n_probe.items())} questions; "
                                    f"{len({q['image'] for q in dev})} images){para}, L2 {args.l2}, text features {', '.join(PROBE_TEXT_FEATURES)} only, graphs "
                                    f"{extractor.signature}, prompts {load_prompts().version}")
    out = Path(args.calibration) if args.calibration else ROOT / 'posh' / PROBE_RESOURCE
    out.write_text(json.dumps(cal.to_dict(), indent=1) + '\n')
    print(f"wrote {out}: {cal.tag}")
    for k in FEATURES:
        p = [cal.score(k, x) for x in feats[k]]
        print(f"  dev AUC {k}: probe {auc(labels[k][:n_probe[k]], p[:n_probe[k]]):.3f}, with the paraphrase questions "
              f"{auc(labels[k], p):.3f}; weights {dict(zip(FEATURES[k], cal.weights[k]))}, bias {cal.bias[k]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--probe', default=str(PROBE))
    ap.add_argument('--split', default='test', choices=['dev', 'test'])
    ap.add_argument('--llm-targets', type=int, default=12, help='test-half target texts for the SmolLM2 variants (0: none)')
    ap.add_argument('--threads', type=int, default=2, help='torch threads')
    ap.add_argument('--repeats', type=int, default=3, help='timed runs of the fast judges (median reported)')
    ap.add_argument('--fit', action='store_true', help='refit the calibration on the dev half and write it')
    ap.add_argument('--version', default='1', help='--fit: version of the new calibration')
    ap.add_argument('--model', default='all-MiniLM-L6-v2', help='--fit: embedding model')
    ap.add_argument('--l2', type=float, default=1.0, help='--fit: L2 penalty of the logistic maps')
    ap.add_argument('--calibration', default=None, help='--fit: output path (default: the package resource)')
    ap.add_argument('--no-paraphrase', dest='paraphrase', action='store_false',
                    help='--fit: the probe only (default: also the paraphrase benchmark\'s dev half)')
    args = ap.parse_args(argv)
    import torch
    torch.set_num_threads(args.threads)
    if args.fit: return fit(args)

    from posh.embedding_judge import EmbeddingJudge
    probe = load_probe(args.probe, args.split)
    reqs = probe_requests(probe)
    texts = list(dict.fromkeys(r.fields.target for r in reqs))
    t0 = time.perf_counter()
    extractor = embedded_extractor()
    graphs = dict(zip(texts, extractor(texts)))
    graph_s = time.perf_counter() - t0
    emb = EmbeddingJudge(graphs=lambda ts: [graphs[t] for t in ts])
    emb.vectors.load(); emb.vectors.add(['warm-up'])
    model = emb.vectors.model
    print(f"probe {args.probe} ({args.split} half): {len(probe)} questions about {len(texts)} target texts; "
          f"graphs extracted in {graph_s:.0f}s (not timed below); torch threads {torch.get_num_threads()}; "
          f"fast judges timed {args.repeats} times with fresh caches (median), SmolLM2 once")
    print(f"embedding judge: {emb.signature}; target graphs {extractor.signature}; prompts {load_prompts().version}")

    def fresh_embedding():   # the same loaded model, empty phrase and index caches
        j = EmbeddingJudge(graphs=emb._graphs); j.vectors.model = model; return j.score
    def fresh_text():
        return TextEmbeddingJudge(type(emb.vectors)(model=model)).score
    judges = [('embedding', fresh_embedding), ('embedding-text', fresh_text),
              ('lexical', lambda: (lambda rs: [lexical_score(r.fields) for r in rs]))]
    rows = [measure(n, make, probe, reqs, args.repeats) for n, make in judges]
    table(rows, f"All {args.split}-half questions")

    if args.llm_targets > 0:
        from posh.backends import make_judge
        idx = llm_subset(probe, args.llm_targets)
        sub, sreqs = [probe[i] for i in idx], [reqs[i] for i in idx]
        t0 = time.perf_counter()
        smol = make_judge('transformers:smollm2')
        print(f"\nSmolLM2 ({smol.signature}) loaded in {time.perf_counter() - t0:.0f}s")
        prompts = load_prompts()
        def fresh(fn):   # each SmolLM2 reading starts without cached prefixes
            def make(): smol.clear_prefix_cache(); return fn
            return make
        llm = [('smollm2', fresh(smol.score)), ('smollm2-exact', fresh(smol.replace(exact=True).score)),
               ('smollm2-yesno', fresh(lambda rs: yesno_scores(smol, rs))),
               ('smollm2-fewshot', fresh(lambda rs: smol.score(fewshot_requests(rs, prompts))))]
        sub_rows = []
        for name, make in judges + llm:
            sub_rows.append(measure(name, make, sub, sreqs, 1 if name.startswith('smollm2') else args.repeats))
            print(f"  {name}: done", file=sys.stderr)
        counts = {k: sum(q['kind'] == k for q in sub) for k in KINDS}
        table(sub_rows, f"Subset for SmolLM2: the questions of {args.llm_targets} {args.split}-half target texts "
                        f"(seeded; {counts})")
    return 0


if __name__ == '__main__':
    sys.exit(main())
