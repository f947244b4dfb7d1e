"""Build data/judge_probe/paraphrase/paraphrase.jsonl from the hand-written paraphrases (paraphrases.jsonl) and the
IIW-400 references: per reference, its faithful paraphrase and three automatic variants of the reference.

    .venv/bin/python tools/build_paraphrase.py          # deterministic; rewrites paraphrase.jsonl

* colour_swapped: every colour word of the reference replaced by another colour (the fixed map COLOURS, applied in
  one pass, case kept: "blue-gray" -> "orange-yellow");
* object_swapped: one depicted noun replaced by an unrelated one throughout: the most frequent noun lemma of the
  reference (spaCy en_core_web_sm, the embedded parser; first occurrence breaks ties; nouns that name the picture or a place in it, such
  as shot, frame, background, are skipped), every token with that lemma replaced by a noun of UNRELATED (the first one
  whose word does not occur in the reference, counted from the reference's position in the list), plural kept
  (a plural tag or a number other than one: "two fish" -> "two kettles");
* repeated: the reference said twice.
"""
import json, re, sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / 'data' / 'judge_probe' / 'paraphrase'   # the hand-written paraphrases and the built set
IIW = ROOT / 'data/iiw400/p5b_vs_human_sxs.jsonl'

COLOURS = {'red': 'green', 'green': 'red', 'orange': 'blue', 'blue': 'orange', 'yellow': 'purple', 'purple': 'yellow',
           'pink': 'green', 'brown': 'blue', 'black': 'white', 'white': 'black', 'gray': 'yellow', 'grey': 'yellow',
           'tan': 'blue', 'silver': 'red', 'gold': 'green', 'golden': 'green', 'violet': 'orange',
           'reddish': 'greenish', 'greenish': 'reddish', 'bluish': 'orangish', 'yellowish': 'purplish',
           'brownish': 'bluish', 'whitish': 'blackish', 'blackish': 'whitish', 'grayish': 'yellowish',
           'greyish': 'yellowish', 'purplish': 'yellowish', 'pinkish': 'greenish'}
UNRELATED = ['bicycle', 'piano', 'telephone', 'guitar', 'kettle', 'helmet', 'tractor', 'lamp', 'saxophone', 'toaster']
NOT_DEPICTED = {'shot', 'view', 'image', 'photo', 'picture', 'frame', 'background', 'foreground', 'scene', 'side',
                'center', 'centre', 'top', 'bottom', 'left', 'right', 'area', 'edge', 'corner', 'part', 'color', 'colour',
                'shade', 'tone', 'half', 'middle', 'impression', 'detail', 'angle', 'level', 'lighting', 'light', 'style',
                'lens', 'distance', 'spot', 'point', 'way', 'kind', 'number', 'one', 'lot'}


def match_case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def swap_colours(text: str) -> str:
    "Every colour word of COLOURS replaced in one pass (so no word is swapped twice)."
    pat = re.compile(r'\b(' + '|'.join(sorted(COLOURS, key=len, reverse=True)) + r')\b', re.I)
    return pat.sub(lambda m: match_case(COLOURS[m.group().lower()], m.group()), text)


def swap_object(text: str, nlp, k: int = 0) -> tuple[str, str, str]:
    "(swapped text, the noun lemma replaced, its replacement): the most frequent depicted noun lemma, throughout."
    doc = nlp(text)
    nouns = [t for t in doc if t.pos_ == 'NOUN' and t.lemma_.lower() not in NOT_DEPICTED and t.is_alpha]
    if not nouns: raise ValueError(f"no depicted noun to swap in {text[:60]!r}")
    counts = Counter(t.lemma_.lower() for t in nouns)
    first = {}
    for i, t in enumerate(nouns): first.setdefault(t.lemma_.lower(), i)
    lemma = max(counts, key=lambda l: (counts[l], -first[l]))
    low = text.lower()
    order = UNRELATED[k % len(UNRELATED):] + UNRELATED[:k % len(UNRELATED)]
    new = next(w for w in order if w not in low)
    out, last = [], 0
    for t in doc:
        if t.pos_ == 'NOUN' and t.lemma_.lower() == lemma:
            plural = t.tag_ == 'NNS' or any(c.dep_ == 'nummod' and c.lower_ not in ('one', '1') for c in t.children)
            w = new + ('s' if plural else '')
            out += [text[last:t.idx], match_case(w, t.text)]; last = t.idx + len(t.text)
    out.append(text[last:])
    return ''.join(out), lemma, new


def main():
    from posh.scene_graph import load_parser
    nlp = load_parser('en_core_web_sm')   # the embedded configuration's parser
    refs = {r['id']: r['reference'] for r in map(json.loads, open(IIW))}
    hand = [json.loads(l) for l in open(HERE / 'paraphrases.jsonl')]
    rows = []
    for k, h in enumerate(hand):
        if h['id'] not in refs: sys.exit(f"{h['id']}: not an IIW-400 image")
        ref = refs[h['id']]
        obj, lemma, new = swap_object(ref, nlp, k)
        cs = swap_colours(ref)
        if cs == ref: sys.exit(f"{h['id']}: the reference has no colour word to swap")
        rows.append(dict(id=h['id'], split=h['split'], reference=ref, paraphrase=h['paraphrase'], colour_swapped=cs,
                         object_swapped=obj, object_swap=f"{lemma} -> {new}", repeated=ref + ' ' + ref))
    with open(HERE / 'paraphrase.jsonl', 'w') as f:
        for r in rows: f.write(json.dumps(r, ensure_ascii=False) + '\n')
    for r in rows: print(r['id'], r['split'], '|', r['object_swap'], '|', r['colour_swapped'][:90])
    print(f"wrote {HERE / 'paraphrase.jsonl'}: {len(rows)} references "
          f"({sum(r['split'] == 'dev' for r in rows)} dev, {sum(r['split'] == 'test' for r in rows)} test)")


if __name__ == '__main__':
    main()
