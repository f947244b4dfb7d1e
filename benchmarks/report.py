"""`posh report` on a large corpus: 10,000 pairs x 3 systems must build in 30 s or less on 2 cores (issue 50).

The input is the real scored data of data/report/ (100 IIW-400 pairs per system, `posh score --granular
--no-questions`, embedded default), each system's rows repeated to --pairs rows with ids made unique (`ID#k`), written
as plain JSONL (posh score's output) to a temporary folder. That is the size and shape of a real 10,000-pair run; the
scores repeat, which changes no step's cost. The report is then built end to end in a fresh process (reading, the
bootstrap, the figures, the highlight views, the page), as `posh report` does, once reading with 2 processes (the
default for files over 20 MB) and once with 1, side by side. With --questions the element records also carry a
question of the length `posh score --granular` writes without --no-questions (the real prompt text of each element's
kind, from the embedded default's prompts), the larger file a default run gives.
Usage: .venv/bin/python benchmarks/report.py [--pairs 10000] [--questions]
"""
import argparse, gzip, json, os, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ('iiw-p5b', 'iiw-p5b-lead2', 'iiw-p5b-lead1')
TARGET = 30.0

def build_inputs(folder:Path, pairs:int, with_questions:bool) -> list[str]:
    files = []
    q = None
    if with_questions:
        import string
        from posh.templates import load_prompts   # the embedded default's prompts (PoSh.prompts): its elements' questions
        prompts = load_prompts()
        def question(d, k):
            tpl = prompts.directions[d][k]
            return prompts.question(d, k, **{f: 'the white horse' for _, f, _, _ in string.Formatter().parse(tpl) if f})
        q = {(d, k): question(d, k) for d in ('precision', 'recall') for k in ('entity', 'attribute', 'relation')}
    for name in SYSTEMS:
        rows = [json.loads(l) for l in gzip.open(ROOT/'data'/'report'/f'{name}.jsonl.gz', 'rt', encoding='utf-8')]
        path = folder/f'{name}.jsonl'
        with open(path, 'w', encoding='utf-8') as f:
            for i in range(pairs):
                r = dict(rows[i % len(rows)]); r['id'] = f"{r['id']}#{i // len(rows)}"
                if q: r['elements'] = [dict(e, question=q.get((e['direction'], e['kind']), '')) for e in r['elements']]
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
        files.append(str(path))
    return files

def run(files:list[str], out:str, workers:int) -> dict:
    code = (f"import sys, time, json; t0 = time.perf_counter()\n"
            f"from posh.report import read_systems, build_report\n"
            f"t1 = time.perf_counter(); s = read_systems({files!r}, workers={workers})\n"
            f"t2 = time.perf_counter(); r = build_report(s); r.save({out!r})\n"
            f"t3 = time.perf_counter()\n"
            f"print(json.dumps(dict(imports=t1 - t0, read=t2 - t1, build=t3 - t2, total=t3 - t0)))")
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={**os.environ, 'OMP_NUM_THREADS': '1'})
    if res.returncode: sys.exit(res.stderr)
    d = json.loads(res.stdout.strip().splitlines()[-1]); d['process'] = time.perf_counter() - t0
    return d

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pairs', type=int, default=10_000, help='pairs per system (default 10,000)')
    ap.add_argument('--questions', action='store_true', help="elements carry their question text (posh score's default)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = build_inputs(Path(tmp), a.pairs, a.questions)
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        print(f"input: {a.pairs:,} pairs x {len(files)} systems, {mb:,.0f} MB of JSONL"
              f"{' (with questions)' if a.questions else ' (--no-questions)'}; {os.cpu_count()} CPUs")
        rows = [(w, run(files, str(Path(tmp)/'report.html'), w)) for w in (2, 1)]
        size = os.path.getsize(Path(tmp)/'report.html') / 1e6
    print(f"{'reading processes':>18} | {'imports':>7} | {'read':>6} | {'build':>6} | {'process':>7} | vs target {TARGET:.0f} s")
    for w, d in rows:
        print(f"{w:>18} | {d['imports']:6.1f}s | {d['read']:5.1f}s | {d['build']:5.1f}s | {d['process']:6.1f}s | "
              f"{d['process'] / TARGET:.2f}x ({'met' if d['process'] <= TARGET else 'MISSED'})")
    print(f"report: {size:.1f} MB; 1 process / 2 processes: {rows[1][1]['process'] / rows[0][1]['process']:.2f}x")

if __name__ == '__main__': main()
