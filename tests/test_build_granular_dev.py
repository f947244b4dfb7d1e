"""tools/build_granular_dev.py: quotes become the right offsets, a bad quote stops the build naming the file and the
entry, and the committed dev set is what the committed annotations build (issue 17)."""
import importlib.util, json, shutil, subprocess, sys
from pathlib import Path

import pytest

from posh.data import load_iiw400, load_granular_dev, load_granular_test

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / 'tools' / 'build_granular_dev.py'


def tool():
    spec = importlib.util.spec_from_file_location('build_granular_dev', TOOL)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod


def test_quotes_become_offsets(tmp_path):
    b, pair = tool(), load_iiw400()[60]
    word = pair.generation.split()[3].strip('.,;')
    k = pair.generation.count(word)
    f = tmp_path / f"{pair.id}.json"
    f.write_text(json.dumps(dict(id=pair.id, annotator='A', omissions=[dict(quote=' ' + pair.reference.split()[1] + ' ')],
                                 mistakes=[dict(quote=word, occurrence=k, label='unsupported', why='x')])))
    line = b.read_annotation(f, pair, 61, 'A')
    m = line['mistakes'][0]
    assert pair.generation[m['start']:m['end']] == word and m['label'] == 'unsupported'
    assert m['start'] == [i for i in range(len(pair.generation)) if pair.generation.startswith(word, i)][k - 1]
    o = line['omissions'][0]                                            # blanks around a quote are not in the span
    assert pair.reference[o['start']:o['end']] == pair.reference.split()[1]


def test_bad_quotes_are_named(tmp_path):
    b, pair = tool(), load_iiw400()[60]
    f = tmp_path / f"{pair.id}.json"
    f.write_text(json.dumps(dict(id=pair.id, annotator='A', omissions=[],
                                 mistakes=[dict(quote='a purple elephant', label='contradicted'),
                                           dict(quote=pair.generation[:9].upper(), label='unsupported'),
                                           dict(quote=pair.generation.split()[0], label='wrong')])))
    with pytest.raises(b.AnnotationError) as e: b.read_annotation(f, pair, 61, 'A')
    msg = str(e.value)
    assert f"{f}: mistakes[0]: quote 'a purple elephant' occurrence 1 not found: it occurs 0 time(s) in the generation" in msg
    assert 'mistakes[1]' in msg and 'found ignoring case as' in msg
    assert "mistakes[2]: 'label' must be one of ('contradicted', 'unsupported'), got 'wrong'" in msg


def test_build_fails_on_a_bad_file(tmp_path):
    ann = tmp_path / 'annotations'
    shutil.copytree(ROOT / 'data' / 'granular_dev' / 'annotations', ann)
    f = sorted((ann / 'B').glob('*.json'))[0]
    d = json.loads(f.read_text()); d['omissions'].append(dict(quote='no such words here', occurrence=1, why='x'))
    f.write_text(json.dumps(d))
    p = subprocess.run([sys.executable, str(TOOL), '--check', '--annotations', str(ann)], capture_output=True, text=True)
    assert p.returncode == 1 and f"{f}: omissions[{len(d['omissions']) - 1}]: quote 'no such words here'" in p.stderr


def test_committed_set_matches_its_annotations(tmp_path):
    p = subprocess.run([sys.executable, str(TOOL), '--complete', '--out', str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for name in ('granular_dev.jsonl', 'granular_dev_second.jsonl', 'agreement.json', 'README.md'):
        assert (tmp_path / name).read_text() == (ROOT / 'data' / 'granular_dev' / name).read_text(), f"{name} is stale: rebuild"
    dev = load_granular_dev()
    assert len(dev) == 30 and sum(map(len, (a.mistakes for a in dev))) > 0


def test_committed_test_set_matches_its_annotations(tmp_path):
    "The granular test set (--set test) is built from its own annotations, shares no pair with the dev set and is current."
    p = subprocess.run([sys.executable, str(TOOL), '--set', 'test', '--complete', '--out', str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for name in ('granular_test.jsonl', 'granular_test_second.jsonl', 'agreement.json', 'README.md'):
        assert (tmp_path / name).read_text() == (ROOT / 'data' / 'granular_test' / name).read_text(), f"{name} is stale: rebuild"
    test, dev = load_granular_test(), load_granular_dev()
    assert len(test) == 20 and sum(map(len, (a.mistakes for a in test))) > 0 and sum(map(len, (a.omissions for a in test))) > 0
    assert not {a.uuid for a in test} & {a.uuid for a in dev}
