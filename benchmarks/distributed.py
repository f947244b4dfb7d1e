"""Corpus scoring on Ray (posh.distributed): pairs per second with 1 and 2 actors side by side, and Ray's overhead
against local `PoSh.evaluate` on the same pairs, in one run.

Targets (issue 10): 2 actors >= 1.6x the pairs/s of 1 actor; at 1 actor, Ray's per-batch overhead (the steady
time spent outside PoSh.evaluate, per batch) < 10% of a local batch's time; the end-to-end difference is printed too.
Times are steady state: from the moment the first actor has loaded its models (model loading costs the same in both
engines and is printed apart) to the moment the output files are written.

Usage: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/distributed.py [--pairs 24] [--sentences N] [--batch-size 2]
"""
import argparse, json, os, re, shutil, tempfile, time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / 'data/iiw400/p5b_vs_human_sxs.jsonl'

def excerpt(text, n):
    return text if n is None else ' '.join(re.split(r'(?<=[.!?])\s+', text.strip())[:n])

def load_pairs(n, sentences):
    rows = [json.loads(l) for l in open(DATA)]
    return [{'id': r['id'], 'generation': excerpt(r['generation'], sentences), 'reference': excerpt(r['reference'], sentences)}
            for r in rows[:n + 1]]

def run_local(pairs, warm, batch_size):
    "Seconds of local PoSh.evaluate over `pairs` in batches (models loaded and warmed first), load seconds, calls."
    import torch
    from posh.metric import PoSh
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    m = PoSh('embedded', batch_size=batch_size); m.judge.judge; m.extractor
    m.evaluate([warm['generation']], [warm['reference']])
    load = time.perf_counter() - t0
    calls0, t0 = m.judge.calls, time.perf_counter()
    for s in range(0, len(pairs), batch_size):
        b = pairs[s:s + batch_size]
        m.evaluate([p['generation'] for p in b], [p['reference'] for p in b], ids=[p['id'] for p in b])
    return time.perf_counter() - t0, load, m.judge.calls - calls0, m.signature

def run_ray(pairs, workers, batch_size, out):
    import ray
    from posh.distributed import score_to_folder, progress_actor
    prog = progress_actor()
    t0 = time.time()
    s = score_to_folder(pairs, out, workers=workers, batch_size=batch_size, progress=prog)
    t_end = time.time()
    snap = ray.get(prog.snapshot.remote())
    first_ready = min(snap['ready'].values())
    return dict(steady=t_end - first_ready, load=first_ready - t0, total=t_end - t0, calls=s.judge_calls,
                in_actor=snap['seconds'], actors=s.actors, scored=s.scored)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pairs', type=int, default=24, help='IIW-400 pairs scored by each engine')
    ap.add_argument('--sentences', type=int, default=None, help='keep the first N sentences of each text (default: all)')
    ap.add_argument('--batch-size', type=int, default=2, help='rows per actor call (and per local evaluate call)')
    ap.add_argument('--cpus', type=int, default=2, help='CPUs of the local Ray instance')
    a = ap.parse_args()
    import ray
    from posh.distributed import _quiet_data
    pairs = load_pairs(a.pairs, a.sentences)
    warm, pairs = pairs[-1], pairs[:-1]
    load_avg = os.getloadavg()[0]
    local_s, local_load, local_calls, sig = run_local(pairs, warm, a.batch_size)
    ray.init(num_cpus=a.cpus, include_dashboard=False, object_store_memory=200 * 2**20, log_to_driver=False)
    _quiet_data()
    tmp = Path(tempfile.mkdtemp())
    try:
        r1 = run_ray(pairs, 1, a.batch_size, tmp / 'w1')
        r2 = run_ray(pairs, 2, a.batch_size, tmp / 'w2')
    finally:
        ray.shutdown(); shutil.rmtree(tmp, ignore_errors=True)
    n, nb = len(pairs), -(-len(pairs) // a.batch_size)
    assert r1['calls'] == r2['calls'] == local_calls, (r1['calls'], r2['calls'], local_calls)
    print(f"{sig}\n{n} IIW-400 pairs ({'full texts' if a.sentences is None else f'first {a.sentences} sentence(s)'}), "
          f"batches of {a.batch_size} ({nb} batches), {local_calls} judge calls per engine, Ray with {a.cpus} CPUs, "
          f"load average {load_avg:.1f} -> {os.getloadavg()[0]:.1f}")
    print("| engine | actors | model load s | steady s | pairs/s | vs 1 actor |")
    print("|---|---|---|---|---|---|")
    print(f"| local `PoSh.evaluate` | - | {local_load:.1f} | {local_s:.1f} | {n / local_s:.2f} | |")
    for r in (r1, r2):
        print(f"| Ray Data actor pool | {r['actors']} | {r['load']:.1f} | {r['steady']:.1f} | {n / r['steady']:.2f} | "
              f"{r1['steady'] / r['steady']:.2f}x |")
    scale = r1['steady'] / r2['steady']
    per_batch, local_batch = (r1['steady'] - r1['in_actor']) / nb, local_s / nb
    ratio, e2e = per_batch / local_batch, r1['steady'] / local_s - 1
    print(f"scaling, 2 actors vs 1: {scale:.2f}x (target >= 1.6x: {'met' if scale >= 1.6 else 'NOT met'})")
    print(f"Ray per-batch overhead at 1 actor (steady time outside PoSh.evaluate): {per_batch * 1000:.0f} ms per batch = "
          f"{ratio:.1%} of a local batch ({local_batch:.2f}s) (target < 10%: {'met' if ratio < 0.10 else 'NOT met'})")
    print(f"PoSh.evaluate time summed over the actors: {r1['in_actor']:.1f}s with 1 actor, {r2['in_actor']:.1f}s with 2 "
          f"({r2['in_actor'] / r1['in_actor']:.2f}x: above 1, the two actors got less than a core each, CPU contention "
          f"rather than Ray overhead)")
    print(f"end to end at 1 actor vs local: {e2e:+.1%} (PoSh.evaluate itself took {r1['in_actor']:.1f}s in the actor "
          f"vs {local_s:.1f}s locally: on a shared machine the scoring time itself varies between runs)")

if __name__ == '__main__': main()
