#!/usr/bin/env python3
"""Chooses the Debian packages whose sources train Fathom's model, from `apt-cache dumpavail`.

    apt-cache dumpavail | python3 train/select-packages.py > train/debian-packages.txt

Libraries only (no applications, docs or debug symbols), by name and size, with the projects
that measure Fathom left out: Flask and Gin, and every package the repository's own benchmarks
index (bench/ranking.ts, bench/agent-setup.mjs). The output is pinned (`name=version`) and
committed; train/fetch.sh downloads exactly that list.
"""
import re
import sys

EXCLUDE = re.compile(
    r'^(python3-(flask|oauthlib|jwt|httplib2|pyparsing|toml|django|jinja2|pylint|urllib3|requests|cryptography|calibre)($|-)'
    r'|golang-github-gin-gonic-.*'
    r'|golang-github-(spf13-(cobra|pflag|afero|viper)|google-go-cmp|pkg-errors|pkg-sftp|burntsushi-toml|pelletier-go-toml|magiconair-properties|fsnotify-fsnotify)-dev'
    r'|golang-github-prometheus-prometheus-dev|golang-github-syncthing-.*|golang-github-rclone-.*|golang-github-docker-docker-dev'
    r'|node-(webpack|axios|undici|lodash.*|date-fns)'
    r')$')

RULES = [
    # (language, name pattern, min .deb bytes, max .deb bytes, cap)
    ('python', re.compile(r'^python3-[a-z0-9.+-]+$'), 6_000, 1_500_000, 1400),
    ('go', re.compile(r'^golang-[a-z0-9.+-]+-dev$'), 6_000, 3_000_000, 1000),
    ('rust', re.compile(r'^librust-[a-z0-9.+-]+-dev$'), 12_000, 3_000_000, 900),
    ('js', re.compile(r'^node-[a-z0-9.+-]+$'), 6_000, 3_000_000, 700),
]
SKIP = re.compile(r'-(dbg|doc|docs|examples|tests?|dbgsym)$')


def main() -> None:
    packages = {}
    for block in sys.stdin.read().split('\n\n'):
        fields = dict(m.groups() for m in re.finditer(r'^([A-Za-z-]+): (.*)$', block, re.M))
        if 'Package' in fields:
            packages[fields['Package']] = fields
    for lang, pattern, lo, hi, cap in RULES:
        chosen = [
            f for n, f in sorted(packages.items())
            if pattern.match(n) and not EXCLUDE.match(n) and not SKIP.search(n)
            and lo <= int(f.get('Size', 0)) <= hi and f.get('Architecture') in ('all', 'amd64')
        ]
        # spread the cap over the alphabet rather than taking the first names
        step = max(1, len(chosen) / cap)
        picked = [chosen[int(i * step)] for i in range(min(cap, len(chosen)))]
        for f in picked:
            print(f"{lang} {f['Package']}={f['Version']}")


if __name__ == '__main__':
    main()
