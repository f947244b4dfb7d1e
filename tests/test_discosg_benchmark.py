"""benchmarks/discosg_graphs.py: the FACTUAL tuple parser, the per-kind matcher, the held-out split and the bootstrap on
hand-written graphs; then, where ../shared's DiscoSG file and FACTUAL's evaluator are here, a short run on real captions
(a few captions: well under a minute)."""
import importlib.util, json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location('discosg_graphs', ROOT / 'benchmarks/discosg_graphs.py')
D = importlib.util.module_from_spec(spec); spec.loader.exec_module(D)
from posh.scene_graph import parse_triples, load_parser

# written for this test: a description of a kite festival, not a DiscoSG caption
GOLD = "( kite , is , red ) , ( kites , is , 2 ) , ( kite , have , tails ) , ( girl , hold , kite ) , ( girl , stand on , hill )"
PRED = "( kite , is , red ) , ( kite , is , 2 ) , ( kite , have , tail ) , ( girl , holds , kite ) , ( girl , on , hill ) , ( sky )"


def test_parse_and_match():
    gold, pred = parse_triples(GOLD, 'gold'), parse_triples(PRED, 'pred')
    assert pred[-1] == ('sky',) and gold[3] == ('girl', 'hold', 'kite')
    with pytest.raises(ValueError, match='caption 3: tuple 2'):
        parse_triples('( a , is , b ) , ( a , b )', 'caption 3')
    g, p = D.kind_elements(gold), D.kind_elements(pred)   # as written: 'kites' and 'kite' differ, 'holds' and 'hold' too
    assert g['entities'] == {'kite', 'kites', 'girl', 'hill', 'tails'} and p['entities'] == {'kite', 'girl', 'hill', 'tail', 'sky'}
    c = D.match_counts(p, g)   # rows: entities, attributes, parts, relations; columns: predicted, gold, matched
    assert c.tolist() == [[5, 5, 3], [2, 2, 1], [1, 1, 0], [2, 2, 0]]
    nlp = load_parser('en_core_web_sm')
    name, word = D.normalizers(nlp, [gold, pred])   # lemmatized, both sides alike
    assert (name('kites'), name('tails'), word('holds'), word('stand on')) == ('kite', 'tail', 'hold', 'stand on')
    assert D.phrase_lemmas(nlp, ['building', 'ferris wheels'], names=True) == {'building': 'building', 'ferris wheels': 'ferris wheel'}
    c = D.match_counts(D.kind_elements(pred, name, word), D.kind_elements(gold, name, word))
    assert c.tolist() == [[5, 4, 4], [2, 2, 2], [1, 1, 1], [2, 2, 1]]   # 'kites' and 'kite' are one entity now
    errs = D.frequent_errors({0: D.kind_elements(pred, name, word)}, {0: D.kind_elements(gold, name, word)}, [0], 5)
    assert errs['relations'] == {'predicted only': [(('girl', 'on', 'hill'), 1)], 'gold only': [(('girl', 'stand on', 'hill'), 1)]}
    assert errs['entities'] == {'predicted only': [('sky', 1)], 'gold only': []}


def test_sort_relations():
    # written for this test: a harbour in two sentences ("Two boats float on the water. A gull perches on a post.")
    gold = {0: D.kind_elements([('boat', 'float on', 'water'), ('gull', 'perch on', 'post'), ('gull', 'above', 'boat'),
                                ('boat', 'near', 'post'), ('boat', 'under', 'sky')])}
    pred = {0: D.kind_elements([('boat', 'float on', 'water'), ('post', 'under', 'gull'), ('boat', 'near', 'water'),
                                ('post', 'is', 'wooden')])}
    nlp = load_parser('en_core_web_sm')
    sents = D.sentence_lemmas(nlp, {0: 'Two boats float on the water. A gull perches on a post near the boats.'})
    assert D.named_together(sents[0], 'gull', 'boat') and not D.named_together(sents[0], 'boat', 'water buffalo')
    res = D.sort_relations(pred, gold, [0], 3, sents)
    assert [res[m]['gold relations'] for m in D.MISS_KINDS] == [1, 1, 2, 1]   # matched; other predicate; unrelated; no sky
    assert res['same pair, other predicate']['commonest'] == [('perch on -> (reversed) under', 1)]
    assert res['both entities, no relation']['named in no common sentence'] == 0   # gull and boat, boat and post: sentence 2
    far = D.sort_relations(pred, gold, [0], 3, {0: [{'boat', 'water'}, {'gull', 'post'}]})
    assert far['both entities, no relation']['named in no common sentence'] == 2
    assert 'named in no common sentence' not in D.sort_relations(pred, gold, [0], 3)['both entities, no relation']
    assert res['an entity missing']['commonest'] == [('sky', 1)]


def test_split_and_bootstrap():
    parts = D.split_parts(300)
    assert (len(parts['dev']), len(parts['held'])) == (240, 60) and not set(parts['dev']) & set(parts['held'])
    assert D.split_parts(300) == parts and D.split_parts(300, seed=1)['held'] != parts['held']   # fixed by its seed
    counts = np.zeros((4, 4, 3), int)
    counts[:, 0] = [[2, 1, 1], [4, 2, 2], [1, 1, 0], [3, 2, 1]]   # entities of 4 captions: 10 predicted, 6 gold, 4 matched
    b = D.bootstrap(counts, np.array([0.2, 0.4, 0.6, 0.8]), rounds=200)
    assert b['entities']['precision'][0] == pytest.approx(0.4) and b['entities']['recall'][0] == pytest.approx(4 / 6)
    assert b['entities']['precision'][1] < 0.4 < b['entities']['precision'][2]
    assert b['spice_f1'][0] == pytest.approx(0.5) and b['spice_f1'][1] < 0.5 < b['spice_f1'][2]
    assert (b['entities']['predicted'], b['entities']['gold'], b['entities']['matched']) == (10, 6, 4)


DATA = (ROOT / D.DEFAULT_DATA).resolve()
has_factual = importlib.util.find_spec('factual_scene_graph') is not None


@pytest.mark.skipif(not DATA.is_file() or not has_factual,
                    reason="needs ../shared/data/discosg_train and factualscenegraph (make setup-discosg)")
def test_real_captions(tmp_path):
    rows = D.load_discosg(DATA)
    gold = [parse_triples(r['scene_graph'], f'caption {i}') for i, r in enumerate(rows)]   # every gold graph parses
    assert len(rows) == 300 and all(len(t) == 3 for g in gold for t in g)
    spice = D.load_spice()
    assert [spice([r['scene_graph']], [r['scene_graph']]) for r in rows[:3]] == [1.0] * 3   # a graph against itself
    out = tmp_path / 'o.json'
    D.main(['--rules', 'v2', 'reference', '--part', 'held', '--limit', '4', '--no-cache', '--sort-misses', '3', '--json', str(out)])
    res = json.loads(out.read_text())['parts']['held']
    assert res['captions'] == 4
    for r in ('v2', 'reference'):
        x = res['rules'][r]
        assert 0.1 < x['spice_f1'][0] < 0.9 and x['spice_f1'][1] <= x['spice_f1'][0] <= x['spice_f1'][2]
        assert x['entities']['recall'][0] > 0.5 and x['entities']['gold'] > 20 and x['graphs_per_second'] > 0
        sorted_ = x['relations_sorted']   # every gold relation in one sort; the matched ones are the relation recall's
        assert sum(v['gold relations'] for v in sorted_.values()) == x['relations']['gold']
        assert sorted_['matched']['gold relations'] == x['relations']['matched']
