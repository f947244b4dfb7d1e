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
import argparse, gzip, json, math, os, resource, subprocess, sys, tempfile, time
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
    code = (f"import sys, time, json, resource\n"
            f"def cpu(): r = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN); "
            f"return sum(x.ru_utime + x.ru_stime for x in r)\n"
            f"t0, c0 = time.perf_counter(), cpu()\n"
            f"from posh.report import read_systems, build_report\n"
            f"t1, c1 = time.perf_counter(), cpu(); s = read_systems({files!r}, workers={workers})\n"
            f"t2, c2 = time.perf_counter(), cpu(); r = build_report(s); r.save({out!r})\n"
            f"t3, c3 = time.perf_counter(), cpu()\n"
            f"print(json.dumps(dict(imports=t1 - t0, read=t2 - t1, build=t3 - t2, total=t3 - t0, "
            f"imports_cpu=c1 - c0, read_cpu=c2 - c1, build_cpu=c3 - c2)))")
    t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={**os.environ, 'OMP_NUM_THREADS': '1'})
    if res.returncode: sys.exit(res.stderr)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    d = json.loads(res.stdout.strip().splitlines()[-1]); d['process'] = time.perf_counter() - t0
    d['cpu'] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)   # the process and its reading workers
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
        load = os.getloadavg()
        rows = [(w, run(files, str(Path(tmp)/'report.html'), w)) for w in (2, 1)]
        size = os.path.getsize(Path(tmp)/'report.html') / 1e6
    print(f"load average before: {load[0]:.1f} on {os.cpu_count()} CPUs (above {os.cpu_count()}: other work shares them, "
          "and the wall times stretch; the CPU seconds do not)")
    print("wall s (CPU s)      | imports     | read        | build       | whole process | 2 free cores* | vs target")
    for w, d in rows:
        free = d['imports_cpu'] + d['read_cpu'] * math.ceil(len(SYSTEMS) / w) / len(SYSTEMS) + d['build_cpu']
        print(f"{w} reading process{'es' if w > 1 else '  '} | " +
              ' | '.join(f"{d[k]:5.1f} ({d[k + '_cpu']:4.1f})" for k in ('imports', 'read', 'build')) +
              f" | {d['process']:5.1f} ({d['cpu']:4.1f})  | {free:5.1f}         | {free / TARGET:.2f}x ({'met' if free <= TARGET else 'MISSED'}; wall {d['process'] / TARGET:.2f}x)")
    print(f"* an estimate of the wall time on 2 cores with nothing else running: the CPU seconds of the imports and the "
          f"build (one process), plus the reading's CPU seconds of the files the busiest reading process gets (a file "
          f"per process at a time: {len(SYSTEMS)} files on 2 processes, 2 of them on one)")
    print(f"report: {size:.1f} MB; 1 process / 2 processes: {rows[1][1]['process'] / rows[0][1]['process']:.2f}x")

if __name__ == '__main__': main()
