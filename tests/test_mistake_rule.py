"""The shipped mistake rule (posh.scoring.MISTAKE_RULE, posh/resources/mistake_rule.json) belongs to the shipped judge.

The rule is chosen by `python tools/choose_mistake_rule.py` on the granular dev set's human labels with the embedded
default's judge (a minute or two). This test is cheap: it fails when the judge was refitted (its signature changed)
and the rule was not chosen again, and when the file's choice is not the best cut of its own table.
"""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rule_is_for_the_shipped_judge():
    from posh.metric import PoSh
    from posh.scoring import MISTAKE_RULE
    judge = PoSh('embedded').judge.signature   # computed without loading a model
    assert MISTAKE_RULE.judge == judge, (f"posh/resources/mistake_rule.json was chosen with {MISTAKE_RULE.judge!r}, the "
                                         f"shipped judge is {judge!r}: run `python tools/choose_mistake_rule.py`")


def test_rule_is_the_best_cut_of_its_table():
    d = json.loads((ROOT / 'posh' / 'resources' / 'mistake_rule.json').read_text())
    best = max(d['table'], key=lambda r: ((r[1] + r[2]) / 2, -r[0]))
    assert best[0] == d['below'] and abs((best[1] + best[2]) / 2 - d['f1']) < 1e-9
    assert d['command'] == 'python tools/choose_mistake_rule.py' and len(d['table']) == 80
