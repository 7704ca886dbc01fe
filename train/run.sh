#!/usr/bin/env bash
# Rebuilds Fathom's code-search model (resources/model/fathom-code-search.bin) from the pinned
# sources: `npm run train:model`. Steps, each visible:
#   1. train/fetch.sh: the Debian packages of train/debian-packages.txt, unpacked (not installed)
#   2. the npm packages of train/npm-packages.json, installed with --ignore-scripts
#   3. train/extract.ts: (doc sentence, code) pairs with Fathom's own chunkers, every unit that
#      also occurs in a benchmark's sources dropped (--exclude-tree), manifest written
#   4. train/train.py (Debian's python3-torch under /usr/bin/python3, CPU): the model, int8,
#      compared with the one it replaces (train/compare-model.ts: the same term rows or not)
# About 15 minutes on 2 cores once the packages are downloaded (2.7 GB of sources).
#   TRAIN_DATA=/big/disk npm run train:model     # where sources and pairs go (default train/.data)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
data=${TRAIN_DATA:-$repo/train/.data}
export TRAIN_DATA=$data
say() { echo "[train:model] $*" >&2; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || { say "needs Debian's python3-torch: apt-get install python3-torch"; exit 1; }

say "1/4 Debian packages into $data/src"
bash train/fetch.sh
if [ -s "$data/missing.txt" ] && [ "${FATHOM_TRAIN_ALLOW_MISSING:-}" != 1 ]; then
  say "$(wc -l < "$data/missing.txt") pinned packages could be fetched neither from the mirror nor from snapshot.debian.org (listed in $data/missing.txt):"
  sed 's/^/  /' "$data/missing.txt" >&2
  say "without them the model is not the shipped one (docs/MODEL.md, Data). FATHOM_TRAIN_ALLOW_MISSING=1 trains without them anyway."
  exit 1
fi

say "2/4 npm packages into $data/npm"
mkdir -p "$data/npm"
cp train/npm-packages.json "$data/npm/package.json"
(cd "$data/npm" && npm install --ignore-scripts --no-audit --no-fund --legacy-peer-deps --no-package-lock --loglevel=error >/dev/null)

say "3/4 pairs (the benchmarks' sources kept out)"
# The Debian packages whose installed trees are kept out below (py-doc's and go-doc's sources;
# go-toml v2 installs under pelletier/go-toml/v2 and was kept out of the shipped model with
# it): installed if they are not, so that what is kept out does not depend on what this
# machine happens to have (without go-toml v2, 92 more pairs and another model).
bench_debs=(python3-oauthlib python3-jwt python3-httplib2 python3-pyparsing python3-toml
  golang-github-spf13-cobra-dev golang-github-spf13-pflag-dev golang-github-spf13-afero-dev golang-github-spf13-viper-dev
  golang-github-google-go-cmp-dev golang-github-pkg-errors-dev golang-github-pkg-sftp-dev golang-github-burntsushi-toml-dev
  golang-github-pelletier-go-toml-dev golang-github-pelletier-go-toml.v2-dev golang-github-magiconair-properties-dev
  golang-github-fsnotify-fsnotify-dev)
absent=()
for p in "${bench_debs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || absent+=("$p"); done
if [ ${#absent[@]} -gt 0 ]; then
  say "installing the benchmarks' packages kept out of training: ${absent[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${absent[@]}" >/dev/null || {
    say "could not install ${absent[*]}: their sources would not be kept out, and the model would not be the shipped one"
    [ "${FATHOM_TRAIN_ALLOW_MISSING:-}" = 1 ] || exit 1
  }
fi
# the sources bench/ranking.ts measures on: prepared by it (installed packages, npm corpus, .debs)
node --import tsx bench/ranking.ts --prepare-only
# and the trees of the agent benchmark (bench/agent.ts: Debian source packages, unpacked)
node bench/agent-setup.mjs
# The agent benchmark's trees kept out are the shipped model's: the 11 the mirror served when it
# was built. The other packages of bench/agent-setup.mjs (python-urllib3, requests, flask,
# node-axios, node-undici; none of them a training source) were unreachable: where they are
# fetched they are not kept out, so that the pairs, and the model, stay the same.
agent_trees=(python-django jinja2 pylint node-webpack golang-github-spf13-cobra prometheus syncthing rclone docker.io python-cryptography calibre)
for d in bench/.agent/src/*/; do
  t=$(basename "$d")
  [[ " ${agent_trees[*]} " == *" $t "* ]] || say "bench/.agent/src/$t: not kept out of training (not among the shipped model's trees)"
done
exclude=()
absent=0
for d in /usr/lib/python3/dist-packages/{oauthlib,jwt,httplib2,pyparsing,toml} \
  /usr/share/gocode/src/github.com/{spf13/cobra,spf13/pflag,spf13/afero,spf13/viper,google/go-cmp,pkg/errors,pkg/sftp,BurntSushi/toml,pelletier/go-toml,magiconair/properties,fsnotify/fsnotify} \
  bench/ranking-corpus/node_modules/{lodash,date-fns} bench/.ranking/debs/*/ "${agent_trees[@]/#/bench/.agent/src/}"; do
  case "$d" in bench/.agent/src/*) d=$d/tree/ ;; esac
  if [ -d "$d" ]; then exclude+=(--exclude-tree "$d"); else say "not there, not kept out: $d"; absent=$((absent + 1)); fi
done
if [ "$absent" -gt 0 ] && [ "${FATHOM_TRAIN_ALLOW_MISSING:-}" != 1 ]; then
  say "$absent of the trees the shipped model kept out are not here: the pairs would differ. FATHOM_TRAIN_ALLOW_MISSING=1 goes on anyway."
  exit 1
fi
node --import tsx train/extract.ts --data "$data" --npm "$data/npm" --out "$data/pairs.jsonl" --manifest train/manifest.json "${exclude[@]}"

say "4/4 training"
mkdir -p resources/model
model=resources/model/fathom-code-search.bin
rm -f "$data/replaced.bin"
[ -f "$model" ] && cp "$model" "$data/replaced.bin"
/usr/bin/python3 train/train.py --pairs "$data/pairs.jsonl" --out "$model" --report train/report.json "$@"
# the same pinned sources and settings give the same model: say whether this one is
[ -f "$data/replaced.bin" ] && { node --import tsx train/compare-model.ts "$model" "$data/replaced.bin" >&2 || true; }
say "done: resources/model/fathom-code-search.bin ($(du -h resources/model/fathom-code-search.bin | cut -f1)); model card: docs/MODEL.md"
