"""benchmarks/graph_refit.py: the scratch copy of the checkout, the candidate's rule set made the embedded one there
(checked by importing the copy's posh in a fresh interpreter), the steps with the shipped map versions, and the
parsing of what the steps print, and the tables. The refit itself (about 7 minutes per rule set) and the graph
figures (`--graphs`, a few minutes) are the benchmark's, not a test's."""
import importlib.util, json, os, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location('graph_refit', ROOT / 'benchmarks/graph_refit.py')
G = importlib.util.module_from_spec(spec); spec.loader.exec_module(G)


def test_shipped_versions_and_steps():
    v = G.shipped_versions()
    from posh.graphs import EMBEDDED_GRAPHS
    assert v['rules'] == EMBEDDED_GRAPHS['rules']
    cal = json.loads((ROOT / 'posh/resources/embedding_judge_calibration.json').read_text())
    assert v['calibration'] == cal['version'] and v['probe'].endswith('-probe')
    steps = dict(G.steps(v))
    assert steps['maps'] == ['tools/fit_judge.py', '--version', v['calibration']]
    for _, args in G.steps(v): assert (ROOT / args[0]).is_file(), args[0]
    assert G.shipped_judge().startswith('embedding:all-MiniLM-L6-v2:cal')


def test_copy_sets_the_candidate_rules(tmp_path):
    G.copy_checkout(tmp_path)
    assert (tmp_path / 'tools/fit_judge.py').is_file() and (tmp_path / 'posh/resources/mistake_rule.json').is_file()
    assert not (tmp_path / '.venv').exists() and not (tmp_path / '.git').exists()
    G.set_rules(tmp_path, 'v6-spatial_preps')
    code = "from posh.graphs import EMBEDDED_GRAPHS; from posh.metric import PoSh; print(EMBEDDED_GRAPHS['rules'])"
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, '-c', code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == 'v6-spatial_preps'
    (tmp_path / 'posh/graphs.py').write_text('EMBEDDED_GRAPHS = None\n')
    with pytest.raises(SystemExit, match='expected one EMBEDDED_GRAPHS line, found 0'): G.set_rules(tmp_path, 'v5')


def test_probe_aucs_and_table():
    printed = ("  dev AUC entity: probe 0.997, with the paraphrase questions 0.997; weights {}\n"
               "  dev AUC attribute: probe 0.980, with the paraphrase questions 0.971; weights {}\n"
               "  dev AUC relation: probe 0.995, with the paraphrase questions 0.939; weights {}\n")
    assert G.probe_aucs(printed) == {'entity': 0.997, 'attribute': 0.98, 'relation': 0.995}
    row = dict(rules='v6', judge='embedding:all-MiniLM-L6-v2:cal18-e33920a8+aligned2', probe_auc=G.probe_aucs(printed),
               cut=3.65, rule_f1=(0.672, 0.666), rule_test=(0.657, 0.658), rule_short=0.700, corrected=1.0,
               short_auroc=0.744, short_spearman=0.186, dev={'PoSh': {'mistakes': (0.674, 0.719), 'omissions': (0.665, 0.652)}})
    row['map_difference'] = 2e-6
    t = G.table([row, dict(row, rules='v5', judge='embedding:all-MiniLM-L6-v2:cal18-0000+aligned2')], {'judge': row['judge']})
    lines = t.splitlines()
    assert lines[1].count('---') == lines[0].count('|') - 1 and lines[2].count('|') == lines[0].count('|')
    assert '| 3.65 | 0.672 / 0.666 |' in lines[2] and '0.674 / 0.719 | 0.665 / 0.652 | - |' in lines[2]
    assert t.endswith('reproduces the shipped maps: largest weight difference 2.0e-06.')
    assert 'does NOT reproduce' in G.table([dict(row, map_difference=0.01)], {'judge': row['judge']})


def test_largest_difference():
    shipped = json.loads((ROOT / 'posh/resources/embedding_judge_calibration.json').read_text())
    assert G.largest_difference(shipped, shipped) == 0.0 and G.map_difference(ROOT) == 0.0
    moved = json.loads(json.dumps(shipped)); moved['fitted_on'] = 'elsewhere'
    k = next(iter(moved['weights'])); moved['weights'][k][0] += 0.25
    assert abs(G.largest_difference(moved, shipped) - 0.25) < 1e-9
    moved['weights'][k] = moved['weights'][k][:-1]
    assert G.largest_difference(moved, shipped) == float('inf')


def test_graph_table():
    g = {'v6': {'gold': (0.739, 0.623, 0.497), 'spans': (0.725, 0.648)},
         'v5': {'gold': (0.737, 0.6, 0.5), 'spans': (0.723, 0.644), 'discosg': (0.554, 0.236, 0.251)}}
    lines = G.graph_table(g).splitlines()
    assert all(l.count('|') == lines[0].count('|') for l in lines)
    assert lines[2] == '| `v6` | 0.739 / 0.623 / 0.497 | 0.725 / 0.648 | - |'
    assert lines[3].endswith('| 0.554 / 0.236 / 0.251 |')
    why = G.discosg_ready()   # '' where ../shared has the captions and FACTUAL is installed (make setup-discosg)
    assert why == '' or 'DiscoSG' in why or 'FACTUAL' in why


def test_resume_reads_back_a_finished_copy(tmp_path):
    state = G.checkout_state()
    assert state == G.checkout_state() and len(state) == 16
    copy = tmp_path / 'v6-spatial_preps'; copy.mkdir()
    (copy / 'figures.json').write_text(json.dumps({'rules': 'v6-spatial_preps', 'state': state, 'cut': 3.5}))
    assert G.measure('v6-spatial_preps', G.shipped_versions(), tmp_path, state)['cut'] == 3.5   # no refit: read back
    with pytest.raises(SystemExit, match='another state of the checkout'):
        G.measure('v6-spatial_preps', G.shipped_versions(), tmp_path, 'f' * 16)
