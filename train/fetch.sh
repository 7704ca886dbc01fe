#!/usr/bin/env bash
# Downloads the pinned Debian packages of train/debian-packages.txt (no install: `apt-get
# download` + `dpkg-deb -x` into $TRAIN_DATA/src/<language>/<package>/), so the system is
# never changed and each package's files stay apart. A package the mirror no longer serves at
# that version is listed in $TRAIN_DATA/missing.txt, never silently dropped.
#
#   TRAIN_DATA=/work/train-data bash train/fetch.sh
set -euo pipefail
cd "$(dirname "$0")"
data=${TRAIN_DATA:-$(pwd)/.data}
mkdir -p "$data/debs" "$data/src"
: > "$data/missing.txt"
[ -n "$(find /var/lib/apt/lists -name '*Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
cd "$data/debs"
# already downloaded ones are kept
awk '{print $2}' "$OLDPWD/debian-packages.txt" | while read -r spec; do
  name=${spec%%=*}; ver=${spec#*=}
  ls "${name}_"*.deb >/dev/null 2>&1 || echo "$spec"
done | xargs -r -n 20 -P 8 sh -c 'apt-get download -q "$@" >/dev/null 2>&1 || for p in "$@"; do apt-get download -q "$p" >/dev/null 2>&1 || echo "$p" >> '"'$data/missing.txt'"'; done' sh
while read -r lang spec; do
  name=${spec%%=*}
  deb=$(ls "${name}_"*.deb 2>/dev/null | head -1 || true)
  [ -n "$deb" ] || continue
  out="$data/src/$lang/$name"
  [ -d "$out" ] || { mkdir -p "$out" && dpkg-deb -x "$deb" "$out"; }
done < "$OLDPWD/debian-packages.txt"
echo "fetch: $(ls "$data/debs" | wc -l) packages, $(wc -l < "$data/missing.txt") missing, $(du -sh "$data/src" | cut -f1) of sources in $data/src"
