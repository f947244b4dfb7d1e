"""How long one long pair takes, stage by stage, and how long the progress line stays silent (issue 48, item 4).

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/long_pair.py                 # a 10,000-word generation (about 15 min)
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/long_pair.py --words 1000    # a quick look
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/long_pair.py --words 1000 --chunk 0   # the same pair told per stage only

The generation is a real IIW-400 generation (pair 2 of data/iiw400/p5b_vs_human_sxs.jsonl) repeated to WORDS words;
the reference is that pair's reference. The embedded configuration scores it with a fresh cache, as `posh score`
does; printed: the texts' graph sizes, the judge calls `PoSh.estimate_calls` predicts (what `posh score` warns with,
--warn-calls) and those made, the seconds of each stage (parsing the graphs, the estimate, judging) and per judge call
(the figure behind `posh.cli.CALL_SECONDS`), and the longest stretch without a progress tick (`CachedJudge.progress`,
what `posh score`'s progress line counts).
"""
import argparse, json, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--words', type=int, default=10_000)
    ap.add_argument('--chunk', type=int, default=128, help="questions per judge call while progress is told (CachedJudge.chunk); 0: "
                    "each stage's questions in one call, as before issue 48")
    args = ap.parse_args()
    from posh.metric import PoSh
    rows = [json.loads(l) for l in (ROOT / 'data/iiw400/p5b_vs_human_sxs.jsonl').read_text().splitlines() if l.strip()]
    words = rows[2]['generation'].split()
    gen = ' '.join((words * (args.words // len(words) + 1))[:args.words])
    ref = rows[2]['reference']
    with tempfile.TemporaryDirectory() as cache:
        m = PoSh('embedded', cache_dir=cache)
        t0 = time.perf_counter()
        g, r = m.graphs([gen, ref])
        t_graphs = time.perf_counter() - t0
        t0 = time.perf_counter()
        est = m.estimate_calls([gen], [ref])
        t_est = time.perf_counter() - t0
        ticks = [time.perf_counter()]
        def tick(n): ticks.append(time.perf_counter())
        m.judge.progress, m.judge.chunk = tick, args.chunk
        t0 = time.perf_counter()
        s = m.evaluate([gen], [ref])[0]
        t_judge = time.perf_counter() - t0
        ticks.append(time.perf_counter())
        calls = m.judge.calls + m.judge.hits
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    print(f"generation {args.words:,} words: {len(g.entities)} entities; reference {len(ref.split())} words: {len(r.entities)} entities")
    print(f"judge calls: estimated {est:,}, made {calls:,} ({m.judge.calls:,} asked, {m.judge.hits:,} from the cache)")
    print(f"seconds: graphs {t_graphs:.0f}, estimate {t_est:.0f}, scoring {t_judge:.0f} (total {t_graphs + t_est + t_judge:.0f}); "
          f"per judge call {t_judge / max(calls, 1):.4f}; longest stretch without a progress tick {max(gaps):.0f} s "
          f"({len(ticks) - 2} ticks)")
    print(f"scores (chunk {args.chunk}): precision {s.precision!r} recall {s.recall!r} f1 {s.f1!r}")


if __name__ == '__main__':
    main()
