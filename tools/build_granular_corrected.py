"""Build the corrected generations of the granular dev and test pairs from their hand edits.

    python tools/build_granular_corrected.py            # writes data/granular_corrected/granular_corrected.jsonl
    python tools/build_granular_corrected.py --check    # checks the edits only, writes nothing

Reads `data/granular_corrected/edits.txt` (a block per pair: `## <id>`, then `- <quote>` / `-N <quote>` (the N-th
occurrence) and `+ <replacement>` lines, `+` alone deleting the quote) and the pairs of `data/granular_dev` and
`data/granular_test`, applies the edits to each generation and writes one line per pair: `id`, `set`, `row`,
`generation`, `corrected`, `reference`, `edits` (how many) and `mistakes` (how many marked spans).
It fails, naming the pair and the edit, on a quote that is not found, on two edits that overlap, on a pair without
a block and on a marked mistake span that no edit's quote covers (every mistake must be corrected).
"""
import argparse, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / 'data' / 'granular_corrected'
SETS = {'dev': ROOT / 'data' / 'granular_dev' / 'granular_dev.jsonl',
        'test': ROOT / 'data' / 'granular_test' / 'granular_test.jsonl'}


class EditError(ValueError):
    "A problem in edits.txt (the message names the pair and the edit)."


def parse_edits(text:str) -> dict:
    "id -> list of (quote, occurrence, replacement), from edits.txt."
    out, cur, pending = {}, None, None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith('## '):
            if pending: raise EditError(f"edits.txt line {n}: the quote before it has no '+' line")
            cur = line[3:].strip(); out.setdefault(cur, [])
        elif m := re.match(r'^-(\d*) (.*)$', line):
            if cur is None or pending: raise EditError(f"edits.txt line {n}: a quote outside a block or after another quote")
            pending = (m.group(2), int(m.group(1) or 1))
        elif line == '+' or line.startswith('+ '):
            if not pending: raise EditError(f"edits.txt line {n}: a replacement without its quote")
            out[cur].append((pending[0], pending[1], line[2:])); pending = None
        elif line.strip() and not line.startswith('#'): raise EditError(f"edits.txt line {n}: not an edit line: {line!r}")
    if pending: raise EditError("edits.txt: the last quote has no '+' line")
    return out


def apply_edits(row:dict, edits:list) -> str:
    "The generation of `row` with `edits` applied; every marked mistake span must lie inside an edit's quote."
    g, where, spans = row['generation'], f"pair {row['id']}", []
    for quote, occ, rep in edits:
        starts = [m.start() for m in re.finditer(re.escape(quote), g)]
        if len(starts) < occ: raise EditError(f"{where}: quote {quote!r} (occurrence {occ}) not found in the generation")
        spans.append((starts[occ - 1], starts[occ - 1] + len(quote), rep))
    spans.sort()
    for (a, b, _), (c, d, _) in zip(spans, spans[1:]):
        if c < b: raise EditError(f"{where}: edits {g[a:b]!r} and {g[c:d]!r} overlap")
    for m in row['mistakes']:
        if not any(a <= m['start'] and m['end'] <= b for a, b, _ in spans):
            raise EditError(f"{where}: the mistake {m['text']!r} ({m['start']}-{m['end']}) is not corrected by any edit")
    out, last = [], 0
    for a, b, rep in spans: out += [g[last:a], rep]; last = b
    out.append(g[last:])
    fixed = re.sub(r' +([.,])', r'\1', re.sub(r'  +', ' ', ''.join(out)))   # a deletion leaves no double space
    return fixed.strip()


def build(edits_path:Path=FOLDER / 'edits.txt') -> list[dict]:
    edits = parse_edits(edits_path.read_text(encoding='utf-8'))
    rows, problems = [], []
    for name, path in SETS.items():
        for line in path.read_text(encoding='utf-8').splitlines():
            r = json.loads(line)
            if r['id'] not in edits: problems.append(f"pair {r['id']} ({name}): no block in edits.txt"); continue
            try: fixed = apply_edits(r, edits[r['id']])
            except EditError as e: problems.append(str(e)); continue
            rows.append(dict(id=r['id'], set=name, row=r['row'], generation=r['generation'], corrected=fixed,
                             reference=r['reference'], edits=len(edits[r['id']]), mistakes=len(r['mistakes'])))
    extra = set(edits) - {r['id'] for r in rows} - {p.split()[1] for p in problems}
    if extra: problems.append(f"edits.txt has blocks for pairs of no set: {sorted(extra)}")
    if problems: raise EditError('\n'.join(problems))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='check the edits, write nothing')
    args = ap.parse_args(argv)
    try: rows = build()
    except EditError as e: print(e, file=sys.stderr); return 1
    if not args.check:
        (FOLDER / 'granular_corrected.jsonl').write_text(
            ''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in rows), encoding='utf-8')
    print(f"{len(rows)} pairs, {sum(r['edits'] for r in rows)} edits covering {sum(r['mistakes'] for r in rows)} marked mistakes")
    return 0


if __name__ == '__main__':
    sys.exit(main())
