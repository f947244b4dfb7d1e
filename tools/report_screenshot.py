"""A screenshot of a local HTML page (a `posh report` page) in Debian's headless chromium, for the README.

    python tools/report_screenshot.py report.html figures/screenshots/report_iiw400.png [--width 1100] [--height 1400]

Drives /usr/bin/chromium (or POSH_CHROMIUM) through Playwright, as tests/test_report_browser.py does (`make chromium`
installs it), and saves the top WIDTH x HEIGHT CSS pixels of the page as an 8-bit palette PNG (small enough to commit).
"""
import argparse, os, shutil, tempfile
from pathlib import Path

ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync']

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('page'); ap.add_argument('png')
    ap.add_argument('--width', type=int, default=1100); ap.add_argument('--height', type=int, default=1400)
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright
    from PIL import Image
    exe = os.environ.get('POSH_CHROMIUM') or shutil.which('chromium') or '/usr/bin/chromium'
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(profile, executable_path=exe, args=ARGS, headless=True,
                                                   viewport={'width': a.width, 'height': a.height})
        page = ctx.new_page()
        page.goto(Path(a.page).resolve().as_uri(), wait_until='load')
        page.screenshot(path=a.png)
        ctx.close()
    Image.open(a.png).convert('RGB').quantize(colors=128).save(a.png, optimize=True)
    print(a.png, f"{os.path.getsize(a.png) / 1e3:.0f} kB")

if __name__ == '__main__': main()
