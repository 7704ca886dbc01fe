#!/usr/bin/env bash
# Rebuilds Fathom's code-search model (resources/model/fathom-code-search.bin) from the pinned
# sources: `npm run train:model`. Steps, each visible:
#   1. train/fetch.sh: the Debian packages of train/debian-packages.txt, unpacked (not installed)
#   2. the npm packages of train/npm-packages.json, installed with --ignore-scripts
#   3. train/extract.ts: (doc sentence, code) pairs with Fathom's own chunkers, every unit that
#      also occurs in a benchmark's sources dropped (--exclude-tree), manifest written
#   4. train/train.py (Debian's python3-torch under /usr/bin/python3, CPU): the model, int8
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

say "2/4 npm packages into $data/npm"
mkdir -p "$data/npm"
cp train/npm-packages.json "$data/npm/package.json"
(cd "$data/npm" && npm install --ignore-scripts --no-audit --no-fund --legacy-peer-deps --no-package-lock --loglevel=error >/dev/null)

say "3/4 pairs (the benchmarks' sources kept out)"
# the sources bench/ranking.ts measures on: prepared by it (installed packages, npm corpus, .debs)
node --import tsx bench/ranking.ts --prepare-only
# and the trees of the agent benchmark (bench/agent.ts: Debian source packages, unpacked)
node bench/agent-setup.mjs
exclude=()
for d in /usr/lib/python3/dist-packages/{oauthlib,jwt,httplib2,pyparsing,toml} \
  /usr/share/gocode/src/github.com/{spf13/cobra,spf13/pflag,spf13/afero,spf13/viper,google/go-cmp,pkg/errors,pkg/sftp,BurntSushi/toml,pelletier/go-toml,magiconair/properties,fsnotify/fsnotify} \
  bench/ranking-corpus/node_modules/{lodash,date-fns} bench/.ranking/debs/*/ bench/.agent/src/*/tree/; do
  if [ -d "$d" ]; then exclude+=(--exclude-tree "$d"); else say "not there, not excluded: $d"; fi
done
node --import tsx train/extract.ts --data "$data" --npm "$data/npm" --out "$data/pairs.jsonl" --manifest train/manifest.json "${exclude[@]}"

say "4/4 training"
mkdir -p resources/model
/usr/bin/python3 train/train.py --pairs "$data/pairs.jsonl" --out resources/model/fathom-code-search.bin --report train/report.json "$@"
say "done: resources/model/fathom-code-search.bin ($(du -h resources/model/fathom-code-search.bin | cut -f1)); model card: docs/MODEL.md"
