"""Build the short-caption set: one-sentence captions with their mistaken words marked (data/short_captions/).

    python tools/build_short_captions.py            # writes short_captions.jsonl, short_captions_second.jsonl, agreement.json
    python tools/build_short_captions.py --check    # checks the annotations only, writes nothing

The captions are the first and the second sentence of the IIW-P5B generations of `data/iiw400/p5b_vs_human_sxs.jsonl`
that are in neither granular set (lines 1-39, 45, 51-60), each judged against the pair's full reference. The marks
are read from `annotations.txt` (CONVENTIONS.md: `## <row>.<sentence>`, then `c <quote>` / `u <quote>` lines,
`cN`/`uN` for the N-th occurrence, ` | why` after the quote) and written in the granular sets' schema (`id`, `row`,
`annotator`, `generation` = the caption, `reference`, `mistakes` with `start`, `end`, `label`, `text`, `why`,
`omissions` = []), so `posh.data.load_short_captions` and the granular protocol read them unchanged.
`annotations_second.txt` is the second pass over a subset, for agreement (relaxed span F1 and token macro F1, as
tools/build_granular_dev.py measures them). A quote that is not found stops the build, naming the caption and quote.
"""
import argparse, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / 'data' / 'short_captions'
IIW = ROOT / 'data' / 'iiw400' / 'p5b_vs_human_sxs.jsonl'
ROWS = [*range(1, 40), 45, *range(51, 61)]           # 1-based lines in neither granular set
SENTENCE = r'(?<!U\.S\.)(?<=[.!?])\s+(?=[A-Z"])'     # a sentence ends at . ! ? before a capital or a quote ("U.S." does not end one)
LABELS = {'c': 'contradicted', 'u': 'unsupported'}


class AnnotationError(ValueError):
    "A problem in an annotation file (the message names the caption and the quote)."


def captions() -> dict:
    "`'<row>.<sentence>' -> (row, sentence number, caption, reference, IIW id)` for the 100 captions."
    rows = [json.loads(l) for l in IIW.read_text(encoding='utf-8').splitlines()]
    out = {}
    for i in ROWS:
        r = rows[i - 1]
        sents = re.split(SENTENCE, r['generation'].strip())
        for k in (1, 2): out[f"{i}.{k}"] = (i, k, sents[k - 1], r['reference'], r['id'])
    return out


def parse(path:Path) -> dict:
    "`'<row>.<sentence>' -> [(label, quote, occurrence, why)]` from an annotation file."
    out, cur = {}, None
    for n, line in enumerate(path.read_text(encoding='utf-8').splitlines(), 1):
        if not line.strip() or line.startswith('# '): continue
        if line.startswith('## '): cur = line[3:].strip(); out.setdefault(cur, []); continue
        m = re.match(r'^([cu])(\d*) (.*?)(?: \| (.*))?$', line)
        if not m or cur is None: raise AnnotationError(f"{path.name} line {n}: not a mark line: {line!r}")
        out[cur].append((LABELS[m.group(1)], m.group(3), int(m.group(2) or 1), m.group(4) or ''))
    return out


def to_rows(marks:dict, caps:dict, annotator:str, where:str) -> list[dict]:
    "The marked captions as granular-schema rows; fails on an unknown caption or a quote not found."
    rows, problems = [], []
    for cid, ms in marks.items():
        if cid not in caps: problems.append(f"{where}: caption {cid!r} is not one of the 100"); continue
        row, k, cap, ref, iid = caps[cid]
        spans = []
        for label, quote, occ, why in ms:
            starts = [m.start() for m in re.finditer(re.escape(quote), cap)]
            if len(starts) < occ: problems.append(f"{where}: caption {cid}: quote {quote!r} (occurrence {occ}) not found in {cap!r}"); continue
            s = starts[occ - 1]
            spans.append(dict(start=s, end=s + len(quote), label=label, text=quote, why=why))
        rows.append(dict(id=f"{iid}.s{k}", row=row, sentence=k, annotator=annotator, generation=cap, reference=ref,
                         mistakes=sorted(spans, key=lambda d: d['start']), omissions=[]))
    if problems: raise AnnotationError('\n'.join(problems))
    return rows


def agreement(first:list[dict], second:list[dict]) -> dict:
    "Relaxed span F1 and token macro F1 of `second` against `first` on the captions both annotated (tools/build_granular_dev.py's measures)."
    from dataclasses import asdict
    import numpy as np
    from posh.graphs import load_parser
    from posh.meta_eval import labelled_tokens, overlaps, macro_f1, relaxed_span_agreement
    nlp = load_parser('en_core_web_sm')                 # the protocol's tokens (tools/build_granular_dev.py's PARSER)
    by = {r['id']: r for r in first}
    pairs = [(by[r['id']], r) for r in second]
    out = {}
    for task, keep in (('mistakes', None), ('contradicted', 'contradicted'), ('unsupported', 'unsupported')):
        texts, ga, gb = [], [], []
        for a, b in pairs:
            toks = labelled_tokens(nlp(a['generation']))
            sa = [(m['start'], m['end']) for m in a['mistakes'] if keep in (None, m['label'])]
            sb = [(m['start'], m['end']) for m in b['mistakes'] if keep in (None, m['label'])]
            texts.append((toks, sa, sb))
            ga += [overlaps(t.start, t.end, sa) for t in toks]; gb += [overlaps(t.start, t.end, sb) for t in toks]
        r = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(relaxed_span_agreement(texts)).items()}
        out[task] = dict(r, token_macro_f1=round(float(macro_f1(np.array(ga, bool), np.array(gb, bool))), 3),
                         captions=len(pairs), tokens=len(ga), error_tokens_first=int(sum(ga)), error_tokens_second=int(sum(gb)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='check the annotations, write nothing')
    args = ap.parse_args(argv)
    caps = captions()
    try:
        first = to_rows(parse(FOLDER / 'annotations.txt'), caps, 'I', 'annotations.txt')
        missing = sorted(set(caps) - {f"{r['row']}.{r['sentence']}" for r in first}, key=lambda c: tuple(map(int, c.split('.'))))
        if missing: raise AnnotationError(f"annotations.txt: captions without a block: {missing}")
        second_path = FOLDER / 'annotations_second.txt'
        second = to_rows(parse(second_path), caps, 'I2', second_path.name) if second_path.is_file() else []
    except AnnotationError as e: print(e, file=sys.stderr); return 1
    first.sort(key=lambda r: (r['row'], r['sentence'])); second.sort(key=lambda r: (r['row'], r['sentence']))
    n = sum(len(r['mistakes']) for r in first)
    print(f"{len(first)} captions, {n} mistake spans ({sum(m['label'] == 'contradicted' for r in first for m in r['mistakes'])} contradicted), "
          f"{sum(not r['mistakes'] for r in first)} captions without a mistake; second pass: {len(second)} captions")
    if args.check: return 0
    dump = lambda rows: ''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in rows)
    (FOLDER / 'short_captions.jsonl').write_text(dump(first), encoding='utf-8')
    if second:
        (FOLDER / 'short_captions_second.jsonl').write_text(dump(second), encoding='utf-8')
        ag = agreement(first, second)
        (FOLDER / 'agreement.json').write_text(json.dumps(ag, indent=1) + '\n', encoding='utf-8')
        for t, r in ag.items(): print(t, r)
    return 0


if __name__ == '__main__':
    sys.exit(main())
