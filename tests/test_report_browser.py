"""`posh report` and the highlight view in a real browser: Debian's chromium, headless, driven by Playwright.

`make test` installs chromium first where it is absent (`make chromium`: apt-get); Playwright (the [dev] extra) drives
that binary (`executable_path`): Playwright's own browser download is not used. The report is built by the `posh
report` command from the real scored IIW-400 files of data/report/ (three systems, their input files for the texts);
the highlight view is `posh score --html`'s page (`posh.cli.write_html`) of the worst pairs of one system, read from
the same files. Each page is opened from a file:// URL and checked: every image loads (naturalWidth > 0), the
console shows no error, no request leaves the page (file: and data: URLs only), the leaderboard table lists every
system, and a screenshot is not blank.
"""
import io, os, shutil, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT/'data'/'report'
SYSTEMS = ('iiw-p5b', 'iiw-p5b-lead2', 'iiw-p5b-lead1')
# as root (containers, CI) chromium needs --no-sandbox; the others keep a headless run off the network
ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync']


def chromium() -> str:
    "The chromium binary (POSH_CHROMIUM, else `chromium` on PATH), or a failure naming how to install it."
    path = os.environ.get('POSH_CHROMIUM') or shutil.which('chromium') or shutil.which('chromium-browser')
    if not path: pytest.fail("chromium is not installed: `make chromium` installs Debian's (apt-get install chromium)")
    return path


@pytest.fixture(scope='module')
def browser(tmp_path_factory):
    "A headless chromium (a fresh profile folder) driven by Playwright."
    sync_api = pytest.importorskip('playwright.sync_api', reason='Playwright is in the [dev] extra: pip install "posh[dev]"')
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(tmp_path_factory.mktemp('profile')), executable_path=chromium(),
                                                   args=ARGS, headless=True, viewport={'width': 1280, 'height': 800})
        yield ctx
        ctx.close()


def open_page(browser, path:Path):
    "Load a local page; (page, console errors, URLs requested)."
    page = browser.new_page()
    errors, urls = [], []
    page.on('console', lambda m: errors.append(m.text) if m.type == 'error' else None)
    page.on('pageerror', lambda e: errors.append(str(e)))
    page.on('request', lambda r: urls.append(r.url))
    page.goto(path.resolve().as_uri(), wait_until='load')
    return page, errors, urls


def check_rendered(page, errors, urls, shot:Path, min_images:int):
    "Every image loaded, no console error, no request but the page's own file and data: URLs, a screenshot that is not blank."
    widths = page.evaluate('[...document.images].map(i => i.complete ? i.naturalWidth : 0)')
    assert len(widths) >= min_images and all(w > 0 for w in widths), widths
    assert errors == [], errors
    assert all(u.startswith(('file:', 'data:')) for u in urls), urls
    page.screenshot(path=str(shot))
    from PIL import Image
    im = Image.open(shot).convert('L')
    lo, hi = im.getextrema()
    dark = sum(im.histogram()[:128]) / (im.width * im.height)
    assert hi - lo > 100 and 0.005 < dark < 0.5, (lo, hi, dark)   # text and figures on a light page


def test_report_in_chromium(browser, tmp_path):
    out = tmp_path/'report.html'
    cmd = [sys.executable, '-m', 'posh', 'report', *[str(DATA/f'{s}.jsonl.gz') for s in SYSTEMS],
           *[a for s in SYSTEMS for a in ('--pairs', str(DATA/'inputs'/f'{s}.jsonl'))], '-o', str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    page, errors, urls = open_page(browser, out)
    check_rendered(page, errors, urls, tmp_path/'report.png', min_images=4)
    listed = page.eval_on_selector_all('table.leaderboard td.col-system', 'cells => cells.map(c => c.textContent)')
    assert sorted(listed) == sorted(SYSTEMS), listed
    assert page.locator('.pair .posh-pair').count() >= len(SYSTEMS) * 3   # the highlight views are on the page
    # readable figures: shown at their own size or larger (their text as drawn), under a title that says what they are,
    # none with overlapping texts or a legend over its bars (posh.report.text_overlaps, on the same data's figures)
    sizes = page.evaluate('[...document.images].map(i => [i.alt, i.clientWidth, i.naturalWidth])')
    assert all(shown >= natural * 0.95 for _, shown, natural in sizes), sizes
    assert page.title() == 'PoSh report' and page.locator('h1').inner_text() == 'PoSh report'
    assert 'PoSh report: PoSh leaderboard' not in page.content()
    from posh.report import read_systems, corpus_board, per_pair, error_shares, errors_figure, f1_figure, text_overlaps, LEADERBOARD_TITLE
    from posh.leaderboard import leaderboard_figure
    systems = read_systems([str(DATA/f'{s}.jsonl.gz') for s in SYSTEMS])
    order, per = list(SYSTEMS), per_pair(systems)
    for fig in (leaderboard_figure(corpus_board(systems), LEADERBOARD_TITLE, 'note', system='system'),
                errors_figure(error_shares(systems), order), f1_figure(per, order)):
        assert text_overlaps(fig) == []
    # the one mistake rule is stated on the page, and framing claims are shown apart from the kinds that count
    from posh.scoring import MISTAKE_RULE
    assert MISTAKE_RULE.text() in page.locator('#rule').inner_text()
    assert page.locator('table.shares td.col-kind').all_inner_texts() and 'framing' not in page.locator('table.shares').inner_text()
    assert page.locator('table.framing').count() == 1


def test_highlight_view_in_chromium(browser, tmp_path):
    from posh.cli import write_html
    from posh.report import read_scored, pair_scores, worst_pairs
    from posh.rows import read_rows
    s = read_scored(str(DATA/'iiw-p5b.jsonl.gz'))
    ids = list(worst_pairs(s, 3).id)
    rows = [r for r in read_rows(str(DATA/'inputs'/'iiw-p5b.jsonl')) if r.name in ids]
    scores = pair_scores(s, ids)
    out = tmp_path/'highlight.html'
    write_html(str(out), rows, {r.number: scores[r.name] for r in rows})
    page, errors, urls = open_page(browser, out)
    check_rendered(page, errors, urls, tmp_path/'highlight.png', min_images=0)
    assert page.locator('.posh-pair').count() == 3
    marked = page.evaluate('[...document.querySelectorAll(".posh-pair span[title]")].length')
    assert marked > 10, marked
