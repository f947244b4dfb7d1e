"""Build the human-labelled granular dev set (or the test set) from its quote-form annotations.

    python tools/build_granular_dev.py              # build from the annotations present (lists the missing ones)
    python tools/build_granular_dev.py --complete   # fail unless every item (and every double item) is annotated
    python tools/build_granular_dev.py --check      # check the annotations only, write nothing
    python tools/build_granular_dev.py --set test --complete   # the test set, data/granular_test/ (lines 40-44, 46-50, 91-100)

Reads `data/granular_dev/annotations/<annotator>/<id>.json` (quote form, data/granular_dev/CONVENTIONS.md) and the
texts of `data/iiw400/p5b_vs_human_sxs.jsonl`, and writes in `data/granular_dev/`:

* `granular_dev.jsonl`: one line per item (id, row, annotator, generation, reference, `mistakes` as DOCENT-schema
  spans `{start, end}` of the generation with `label` 'contradicted' or 'unsupported', `omissions` as spans of the
  reference), from the primary annotator (A for rows 61-75, B for rows 76-90);
  with `--set test`, `data/granular_test/granular_test.jsonl` and `granular_test_second.jsonl` the same way (SETS);
* `granular_dev_second.jsonl`: the second, independent annotations of the doubly annotated items, same schema;
* `agreement.json` and `README.md`: counts per task and label, and the agreement of the primary annotator with the
  second one (relaxed span F1: two spans match when at least half of the shorter span's tokens lie in the other).

A quote that is not found (or has fewer occurrences than its `occurrence`) stops the build with a message naming the
file, the entry and the text; every such problem is listed at once.
"""
import argparse, json, sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = {   # name -> its folder, file stem, primary: annotator -> rows (1-based lines of the IIW-400 file),
           # second: second annotator -> (the primary it doubles, rows) (each set's CONVENTIONS.md)
    'dev': dict(folder=ROOT / 'data' / 'granular_dev', stem='granular_dev',
                primary={'A': range(61, 76), 'B': range(76, 91)}, second={'C': ('A', range(61, 66))}),
    'test': dict(folder=ROOT / 'data' / 'granular_test', stem='granular_test',
                 primary={'D': [40, 41, 42, 43, 44], 'E': range(46, 51), 'F': range(91, 96), 'G': range(96, 101)},
                 second={'H': ('F', range(91, 96))}),
}
MISTAKE_LABELS = ('contradicted', 'unsupported')
TASKS = (('mistakes', 'generation'), ('omissions', 'reference'))
PARSER = 'en_core_web_sm'                              # the tokens of the evaluation (the embedded configuration's parser)


class AnnotationError(ValueError):
    "A problem in an annotation file (the message names the file and the entry)."


def occurrences(text:str, quote:str) -> list[int]:
    "Start offsets of every exact occurrence of `quote` in `text` (overlapping ones included)."
    out, i = [], text.find(quote)
    while i != -1: out.append(i); i = text.find(quote, i + 1)
    return out


def _hint(text:str, quote:str) -> str:
    "Why a quote may not be found: another case or other spacing."
    low = occurrences(text.lower(), quote.lower())
    if low: return f"; found ignoring case as {text[low[0]:low[0] + len(quote)]!r}"
    squash = ' '.join(quote.split())
    if squash != quote and squash in text: return f"; found with single spaces as {squash!r}"
    return ''


def resolve(entry, text:str, where:str, task:str) -> dict:
    "One quote-form entry as a span {start, end, (label), text, why} of `text`."
    if not isinstance(entry, dict): raise AnnotationError(f"{where}: an entry is an object, got {entry!r}")
    q, k = entry.get('quote'), entry.get('occurrence', 1)
    if not isinstance(q, str) or not q.strip(): raise AnnotationError(f"{where}: 'quote' must be non-empty text, got {q!r}")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise AnnotationError(f"{where}: 'occurrence' must be an integer >= 1, got {k!r}")
    found = occurrences(text, q)
    if len(found) < k:
        raise AnnotationError(f"{where}: quote {q!r} occurrence {k} not found: it occurs {len(found)} time(s) in the "
                              f"{'generation' if task == 'mistakes' else 'reference'}{_hint(text, q) if not found else ''}")
    a = found[k - 1]; b = a + len(q)
    while a < b and text[a].isspace(): a += 1          # a quote's surrounding blanks are not part of the span
    while b > a and text[b - 1].isspace(): b -= 1
    span = dict(start=a, end=b)
    if task == 'mistakes':
        if entry.get('label') not in MISTAKE_LABELS:
            raise AnnotationError(f"{where}: 'label' must be one of {MISTAKE_LABELS}, got {entry.get('label')!r}")
        span['label'] = entry['label']
    span.update(text=text[a:b], why=str(entry.get('why', '')))
    return span


def read_annotation(path:Path, pair, row:int, annotator:str) -> dict:
    "One annotation file as a dev-set line; raises AnnotationError listing every problem of the file."
    try: d = json.loads(path.read_text(encoding='utf-8'))
    except json.JSONDecodeError as e: raise AnnotationError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(d, dict): raise AnnotationError(f"{path}: expected a JSON object")
    problems = []
    if d.get('id') != pair.id: problems.append(f"{path}: 'id' is {d.get('id')!r}, expected {pair.id!r} (row {row})")
    if d.get('annotator') != annotator: problems.append(f"{path}: 'annotator' is {d.get('annotator')!r}, expected {annotator!r}")
    line = dict(id=pair.id, row=row, annotator=annotator, generation=pair.generation, reference=pair.reference)
    for task, field in TASKS:
        entries = d.get(task)
        if not isinstance(entries, list): problems.append(f"{path}: {task!r} must be a list"); continue
        spans = []
        for j, e in enumerate(entries):
            try: spans.append(resolve(e, getattr(pair, field), f"{path}: {task}[{j}]", task))
            except AnnotationError as err: problems.append(str(err))
        line[task] = sorted(spans, key=lambda s: (s['start'], s['end']))
    if problems: raise AnnotationError('\n'.join(problems))
    return line


def collect(ann_dir:Path, pairs, assigned:dict, doubles:dict) -> tuple[dict, dict, list[str], list[str]]:
    "Primary lines (id -> line), second lines (id -> line), missing files, problems (`assigned`, `doubles`: a set's SETS rows)."
    primary, second, missing, problems = {}, {}, [], []
    jobs = [(a, r, primary) for a, rows in assigned.items() for r in rows] + \
           [(a, r, second) for a, (_, rows) in doubles.items() for r in rows]
    for annotator, row, into in jobs:
        pair = pairs[row - 1]
        path = ann_dir / annotator / f"{pair.id}.json"
        if not path.is_file(): missing.append(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)); continue
        try: into[pair.id] = read_annotation(path, pair, row, annotator)
        except AnnotationError as e: problems.append(str(e))
    expected = {(a, pairs[r - 1].id) for a, rows in assigned.items() for r in rows} | \
               {(a, pairs[r - 1].id) for a, (_, rows) in doubles.items() for r in rows}
    for p in sorted(ann_dir.glob('*/*.json')):
        if (p.parent.name, p.stem) not in expected:
            problems.append(f"{p}: not an assigned item of annotator {p.parent.name!r} (see SETS)")
    return primary, second, missing, problems


def agreement(primary:dict, second:dict, docs:dict, doubles:dict) -> dict:
    "Relaxed span F1 (and token macro F1) of each second annotator against the primary one, per task and label."
    from posh.meta_eval import labelled_tokens, relaxed_span_agreement, overlaps, macro_f1, span_token_sets, relaxed_match
    import numpy as np
    out = {}
    for sec, (pri, rows) in doubles.items():
        ids = [i for i in second if second[i]['annotator'] == sec and i in primary]
        res = {}
        views = {'mistakes': ('mistakes', 'generation', None), 'contradicted': ('mistakes', 'generation', 'contradicted'),
                 'unsupported': ('mistakes', 'generation', 'unsupported'), 'omissions': ('omissions', 'reference', None)}
        for name, (task, field, label) in views.items():
            texts, gold, pred = [], [], []
            for i in ids:
                toks = labelled_tokens(docs[primary[i][field]])
                sp = lambda line: [(s['start'], s['end']) for s in line[task] if label is None or s['label'] == label]
                a, b = sp(primary[i]), sp(second[i])
                texts.append((toks, a, b))
                gold += [overlaps(t.start, t.end, a) for t in toks]; pred += [overlaps(t.start, t.end, b) for t in toks]
            r = asdict(relaxed_span_agreement(texts))
            r['token_macro_f1'] = macro_f1(np.array(gold, bool), np.array(pred, bool)) if ids else float('nan')
            res[name] = r
        # labels of the mistake spans both marked: same label?
        same = both = 0
        for i in ids:
            toks = labelled_tokens(docs[primary[i]['generation']])
            A, B = primary[i]['mistakes'], second[i]['mistakes']
            ta = span_token_sets(toks, [(s['start'], s['end']) for s in A])
            tb = span_token_sets(toks, [(s['start'], s['end']) for s in B])
            for sa, x in zip(A, ta):
                labs = {sb['label'] for sb, y in zip(B, tb) if relaxed_match(x, y)}
                if labs: both += 1; same += sa['label'] in labs
        out[f"{pri} vs {sec}"] = dict(items=sorted(ids), views=res, matched_mistakes=both, same_label=same,
                                      label_agreement=same / both if both else float('nan'))
    return out


def counts(primary:dict, docs:dict, assigned:dict) -> list[dict]:
    "Per annotator and in all: items, spans per task and label, labelled tokens and error tokens per task."
    from posh.meta_eval import labelled_tokens, overlaps
    rows = []
    for who in [*assigned, 'all']:
        lines = [l for l in primary.values() if who in ('all', l['annotator'])]
        r = dict(annotator=who, items=len(lines))
        for label in MISTAKE_LABELS: r[f'{label}_spans'] = sum(s['label'] == label for l in lines for s in l['mistakes'])
        r['omission_spans'] = sum(len(l['omissions']) for l in lines)
        for task, field, label in (('mistakes', 'generation', None), ('contradicted', 'generation', 'contradicted'),
                                   ('omissions', 'reference', None)):
            key = 'omissions' if task == 'omissions' else 'mistakes'
            n = e = 0
            for l in lines:
                toks = labelled_tokens(docs[l[field]])
                sp = [(s['start'], s['end']) for s in l[key] if label is None or s['label'] == label]
                n += len(toks); e += sum(overlaps(t.start, t.end, sp) for t in toks)
            r[f'{task}_error_tokens'] = e; r[f'{field}_tokens'] = n
        rows.append(r)
    return rows


def md_table(rows:list[dict], cols:list[str], fmt=lambda v: f"{v:.3f}" if isinstance(v, float) else str(v)) -> str:
    return '\n'.join(['| ' + ' | '.join(cols) + ' |', '|' + '---|' * len(cols)] +
                     ['| ' + ' | '.join(fmt(r[c]) for c in cols) + ' |' for r in rows])


SHARED = """## Counts

Spans per label and task, and labelled tokens (the protocol's tokens: {parser} parser tokens without punctuation)
that fall in a span:

{counts}
{missing}
## Agreement

Rows {doubled}, {pri} (primary) against {sec} (second), on the tokens above. **Relaxed span F1**: a span of one annotator
matches a span of the other when at least 50% of the tokens of the shorter span lie in the other (the paper's
relaxed match); precision is the share of {pri}'s spans matched by one of {sec}'s, recall the share of {sec}'s
matched by one of {pri}'s. `contradicted` and `unsupported` compare only the spans of that label on both sides.
**Token macro F1**: {sec}'s token labels scored against {pri}'s as the evaluation scores a metric (macro F1 over
error / not error), a rough ceiling for the token F1 a metric can reach on this set.

{agreement}

Of the {both} mistake spans of {pri} that match a mistake span of {sec}, {same} carry the same label
(label agreement {label:.2f}).

Read these figures for what they are: two model sessions applying the same written conventions to the same texts.
High agreement says the conventions are applied consistently; it is not evidence that people would mark the same
spans (human annotators of detailed descriptions agree less).

"""   # the Counts and Agreement sections of both sets' READMEs


README = """# Granular dev set: mistakes and omissions marked by reading IIW-400 descriptions

**What it is.** {n} real pairs of `data/iiw400/p5b_vs_human_sxs.jsonl` (rows 61-90, 1-based lines), each the
description written by the IIW-P5B model (`generation`) and the human IIW description of the same image
(`reference`), annotated by hand in the manner of DOCENT granular (Ananthram et al., ICLR 2026): narrow spans on the
words that carry an error.

* **mistakes**, spans of the generation, with a label: `contradicted` (the reference says otherwise: a colour, a
  count, a position, another object) or `unsupported` (a specific visual claim the reference never makes);
* **omissions**, spans of the reference: details the generation lacks after mentally correcting its mistakes.

The reference stands in for the image, which the annotators did not have. The rules are in
[CONVENTIONS.md](CONVENTIONS.md), written before any pair was annotated.

**Who annotated, and how.** Three annotators, `A`, `B` and `C`, were helper sessions of this project (language
models working as annotators), each working alone, reading the two texts of each pair and following CONVENTIONS.md.
They never saw PoSh's, a baseline's or any tool's output on these pairs, and no annotator read another's files. `A`
annotated rows 61-75, `B` rows 76-90; `C` annotated rows 61-65 a second time, independently, to measure agreement
(CONVENTIONS.md, written beforehand, names the second annotator `B`; the second pass was given to a third session,
`C`, so that both passes of those rows come from annotators who never saw each other's work).
The annotations are written by quoting the texts (`annotations/<annotator>/<id>.json`, with a few words of `why`
per span); `tools/build_granular_dev.py` turns quotes into character offsets and fails on a quote it cannot find.
These are not expert human labels: they are careful readings by models, to be treated as a dev set for measuring
and fitting with cross-validation, not as a test set: the test set, 20 other pairs nothing is fitted or chosen on,
is `data/granular_test/` (same conventions, other annotators).

**Files.**

* `granular_dev.jsonl`: one line per item: `id`, `row`, `annotator` (the primary one: A for 61-75, B for 76-90),
  `generation`, `reference`, `mistakes` (`{{start, end, label, text, why}}`, offsets into the generation) and
  `omissions` (`{{start, end, text, why}}`, offsets into the reference). `start`/`end` are DOCENT's span schema;
  `text` repeats the quoted words for readers. Load it with `posh.data.load_granular_dev()`.
* `granular_dev_second.jsonl`: annotator C's second annotations of rows 61-65 (same schema; for agreement only).
* `agreement.json`: the agreement figures below, with their counts.
* `annotations/`: the quote-form source files.

{shared}## Rebuild

    python tools/build_granular_dev.py --complete

It checks every quote, writes the files above and this README. The evaluation on this set: `nbs/24_iiw400.ipynb`
(the IIW-400 report, in CI) and `python benchmarks/granular_dev.py` (any judge, fast, with cross-validation).
"""


TEST_README = """# Granular test set: mistakes and omissions marked by reading IIW-400 descriptions, for measuring only

**What it is.** {n} more real pairs of `data/iiw400/p5b_vs_human_sxs.jsonl` (lines 40-44, 46-50 and 91-100,
1-based), annotated exactly as the granular dev set (`data/granular_dev/`, its README and CONVENTIONS.md): in the
generation (IIW-P5B) **mistakes**, `contradicted` or `unsupported`; in the reference (the human IIW description)
**omissions**; narrow spans in the manner of DOCENT granular. The rules: [CONVENTIONS.md](CONVENTIONS.md), which
applies the dev set's conventions unchanged to these lines and was written before any of them was annotated.

**Why a second set.** The embedded judge's maps are fitted on the dev set's 30 pairs, and its rules and settings
were chosen looking at the dev set's figures (out of fold, but chosen all the same). This set is what nothing was
fitted or chosen on: its figures are the honest estimate of how the granular spans agree with careful readers on
new pairs. Measure on it, never fit or choose on it; a change that is chosen by its figures here makes it a second
dev set, and then it must be said.

**Who annotated, and how.** Five helper sessions of this project (language models working as annotators), each
alone, reading only the two texts of its items and the conventions, never PoSh's, a baseline's or any tool's output
and never another annotator's files: `D` lines 40-44, `E` 46-50, `F` 91-95, `G` 96-100, and `H` lines 91-95 a second
time, independently, for the agreement. Line 45 is left out: its reference is in the paraphrase set's dev half
(`data/judge_probe/paraphrase/`), which choices were made on. These are careful readings by models, not expert
human labels.

**Files.**

* `granular_test.jsonl`: one line per item, the dev set's schema (`id`, `row`, `annotator`, `generation`,
  `reference`, `mistakes` with `label`, `omissions`; offsets into the texts). Load it with
  `posh.data.load_granular_test()`.
* `granular_test_second.jsonl`: annotator {sec}'s second annotations of lines 91-95 (agreement only).
* `agreement.json`: the figures below, with their counts.
* `annotations/`: the quote-form source files.

{shared}## Rebuild and measure

    python tools/build_granular_dev.py --set test --complete
    python benchmarks/granular_dev.py --dev data/granular_test/granular_test.jsonl   # PoSh and the baselines

The IIW-400 report (`nbs/24_iiw400.ipynb`, in CI) prints this set's table beside the dev set's.
"""


READMES = {'dev': README, 'test': TEST_README}


def write_readme(primary, second, agree, cnt, missing, doubles:dict, template:str) -> str:
    "A set's README: its `template` (READMES) with the SHARED counts and agreement sections filled in."
    (sec, (pri, doubled)), = doubles.items()           # one second annotator, doubling one primary
    ag = agree.get(f"{pri} vs {sec}")
    rows = [dict(task=k, **{c: v[c] for c in ('n_a', 'n_b', 'matched_a', 'matched_b', 'precision', 'recall', 'f1',
                                               'token_macro_f1')}) for k, v in ag['views'].items()] if ag else []
    for r in rows: r[f'spans {pri}'], r[f'spans {sec}'] = r.pop('n_a'), r.pop('n_b')
    cols = ['task', f'spans {pri}', f'spans {sec}', 'precision', 'recall', 'f1', 'token_macro_f1']
    ccols = ['annotator', 'items', 'contradicted_spans', 'unsupported_spans', 'omission_spans', 'generation_tokens',
             'mistakes_error_tokens', 'contradicted_error_tokens', 'reference_tokens', 'omissions_error_tokens']
    miss = (f"\n**Incomplete build**: {len(missing)} annotation file(s) missing: " + ', '.join(missing) + "\n") if missing else ''
    shared = SHARED.format(parser=PARSER, counts=md_table(cnt, ccols), missing=miss, pri=pri, sec=sec,
                           doubled=f"{min(doubled)}-{max(doubled)}",
                           agreement=md_table(rows, cols) if rows else '(no doubly annotated item yet)',
                           both=ag['matched_mistakes'] if ag else 0, same=ag['same_label'] if ag else 0,
                           label=ag['label_agreement'] if ag else float('nan'))
    return template.format(n=len(primary), sec=sec, shared=shared)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--complete', action='store_true', help='fail unless every assigned annotation file exists')
    ap.add_argument('--check', action='store_true', help='check the annotations, write nothing')
    ap.add_argument('--set', default='dev', choices=sorted(SETS), help="which set: 'dev' (data/granular_dev) or 'test' (data/granular_test)")
    ap.add_argument('--annotations', default=None, help='folder of <annotator>/<id>.json (default: the set\'s annotations/)')
    ap.add_argument('--out', default=None, help="output folder (default: the set's folder)")
    args = ap.parse_args(argv)
    cfg = SETS[args.set]
    from posh.data import load_iiw400
    pairs = load_iiw400()
    primary, second, missing, problems = collect(Path(args.annotations or cfg['folder'] / 'annotations'), pairs,
                                                 cfg['primary'], cfg['second'])
    if problems:
        print(f"ERROR: {len(problems)} problem(s) in the annotations:\n" + '\n'.join(problems), file=sys.stderr)
        return 1
    if missing:
        print(f"{'ERROR' if args.complete else 'warning'}: {len(missing)} annotation file(s) missing: {', '.join(missing)}",
              file=sys.stderr)
        if args.complete: return 1
    print(f"{len(primary)} primary and {len(second)} second annotations, every quote found")
    if args.check: return 0
    from posh.scene_graph import load_parser
    from posh.meta_eval import parse_texts
    docs = parse_texts(load_parser(PARSER), [l[f] for d in (primary, second) for l in d.values()
                                             for f in ('generation', 'reference')])
    agree, cnt = agreement(primary, second, docs, cfg['second']), counts(primary, docs, cfg['primary'])
    out = Path(args.out or cfg['folder']); out.mkdir(parents=True, exist_ok=True)
    order = lambda d: [d[k] for k in sorted(d, key=lambda k: d[k]['row'])]
    names = [f"{cfg['stem']}.jsonl", f"{cfg['stem']}_second.jsonl"]
    for name, d in zip(names, (primary, second)):
        (out / name).write_text(''.join(json.dumps(l, ensure_ascii=False) + '\n' for l in order(d)), encoding='utf-8')
    (out / 'agreement.json').write_text(json.dumps(dict(agreement=agree, counts=cnt, missing=missing), indent=1) + '\n')
    (out / 'README.md').write_text(write_readme(primary, second, agree, cnt, missing, cfg['second'], READMES[args.set]),
                                   encoding='utf-8')
    for k, a in agree.items():
        print(f"agreement {k} on {len(a['items'])} items: " + ', '.join(
            f"{v}: span F1 {r['f1']:.3f} (token macro F1 {r['token_macro_f1']:.3f})" for v, r in a['views'].items()) +
            f"; label agreement {a['label_agreement']:.2f} of {a['matched_mistakes']}")
    print('wrote', *(out / n for n in (*names, 'agreement.json', 'README.md')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
