"""Score the real IIW-400 descriptions for `posh report` (nbs/07b_report.ipynb, tests/test_report_browser.py).

    python tools/build_report_data.py [--data DATA_DIR] [--pairs N] [--cache-dir DIR]

Three systems, each scored against the same human IIW descriptions (data/iiw400, 100 images) with the embedded
default and `posh score --granular --no-questions`:

- `iiw-p5b`: the IIW fine-tuned PaLI-5B descriptions, as published (a real model's output);
- `iiw-p5b-lead2`: the same descriptions cut to their first two sentences;
- `iiw-p5b-lead1`: cut to their first sentence (a caption-length system).

The cut systems are the real model's text, shortened by a fixed rule (the sentence splitter of build_fixtures.py); they
show what a terser system loses (omissions) and keeps (mistakes). Writes data/report/<system>.jsonl.gz (the scored
files, gzipped: `posh report` reads them as they are) and data/report/inputs/<system>.jsonl (the pairs scored, for
`posh report --pairs`). Standard library only; runs `posh score` through `python -m posh` of the interpreter running it.
"""
import argparse, gzip, json, os, shutil, subprocess, sys
from pathlib import Path
from build_fixtures import DATA, iiw_file, sentences

SYSTEMS = {'iiw-p5b': None, 'iiw-p5b-lead2': 2, 'iiw-p5b-lead1': 1}   # system: sentences kept (None: all)

def lead(text:str, n:int|None) -> str:
    "The first `n` sentences of `text` (all of it for None)."
    if n is None: return text
    spans = sentences(text)
    return text[spans[0][0]:spans[min(n, len(spans)) - 1][1]]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--data', type=Path, default=DATA, help='data folder holding iiw400/ (default: the repository\'s)')
    ap.add_argument('--pairs', type=int, default=100, help='first N images (default: all 100)')
    ap.add_argument('--cache-dir', default=None, help='posh score --cache-dir (default: none)')
    args = ap.parse_args()
    rows = [json.loads(l) for l in iiw_file(args.data).read_text(encoding='utf-8').splitlines() if l.strip()][:args.pairs]
    out = args.data/'report'; (out/'inputs').mkdir(parents=True, exist_ok=True)
    for system, n in SYSTEMS.items():
        src = out/'inputs'/f'{system}.jsonl'
        src.write_text(''.join(json.dumps({'id': r['id'], 'generation': lead(r['generation'], n),
                                           'reference': r['reference']}, ensure_ascii=False) + '\n' for r in rows),
                       encoding='utf-8')
        cmd = [sys.executable, '-m', 'posh', 'score', str(src), '-o', str(out/f'{system}.jsonl'), '--granular',
               '--no-questions'] + (['--cache-dir', args.cache_dir] if args.cache_dir else [])
        print('+', ' '.join(cmd), flush=True)
        subprocess.run(cmd, check=True, env={**os.environ, 'OMP_NUM_THREADS': os.environ.get('OMP_NUM_THREADS', '1')})
        with open(out/f'{system}.jsonl', 'rb') as f, gzip.GzipFile(out/f'{system}.jsonl.gz', 'wb', 9, mtime=0) as g:
            shutil.copyfileobj(f, g)
        (out/f'{system}.jsonl').unlink()

if __name__ == '__main__': main()
