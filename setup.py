"""Packaging for posh: reads settings.ini (nbdev 2 layout)."""
from configparser import ConfigParser
import setuptools

cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']

def _reqs(key): return cfg.get(key, '').split()

# An SPDX license expression (PEP 639, setuptools >= 77: pyproject.toml); License :: classifiers are deprecated
licenses = {'apache2': 'Apache-2.0'}
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive']

setuptools.setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    author=cfg['author'], author_email=cfg['author_email'],
    url=cfg['git_url'], license_expression=licenses[cfg['license']], license_files=['LICENSE'],
    classifiers=[
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
        'Programming Language :: Python :: 3',
        'Topic :: Scientific/Engineering :: Artificial Intelligence',
    ],
    keywords=cfg['keywords'],
    # posh/resources holds data only (prompts, the bundled example, the lmms-eval tasks in lmms_eval/): a data package,
    # listed so that setuptools ships it
    packages=['posh', 'posh.resources'],
    package_data={'posh.resources': ['*', 'lmms_eval/*']},
    python_requires='>=' + cfg['min_python'],
    install_requires=_reqs('requirements'),
    extras_require={k: _reqs(f'{k}_requirements') for k in ('dev', 'paper', 'notebooks', 'smollm2', 'ray', 'report', 'lmms-eval')},
    entry_points={'console_scripts': cfg.get('console_scripts', '').split(),
                  'nbdev': [f'{cfg["lib_path"]}={cfg["lib_path"]}._modidx:d']},
    zip_safe=False,
)
