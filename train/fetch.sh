#!/usr/bin/env bash
# Downloads the pinned Debian packages of train/debian-packages.txt (no install: `apt-get
# download` + `dpkg-deb -x` into $TRAIN_DATA/src/<language>/<package>/), so the system is
# never changed and each package's files stay apart. A package the mirror no longer serves at
# that version (a security update replaced it) is fetched from snapshot.debian.org, Debian's
# archive of every published version (train/snapshot-fetch.mjs); one that neither serves is
# listed in $TRAIN_DATA/missing.txt, never silently dropped.
#
#   TRAIN_DATA=/work/train-data bash train/fetch.sh
set -euo pipefail
cd "$(dirname "$0")"
data=${TRAIN_DATA:-$(pwd)/.data}
mkdir -p "$data/debs" "$data/src"
[ -n "$(find /var/lib/apt/lists -name '*Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
cd "$data/debs"
# already downloaded ones are kept
wanted() {
  awk '{print $2}' "$OLDPWD/debian-packages.txt" | while read -r spec; do
    name=${spec%%=*}
    ls "${name}_"*.deb >/dev/null 2>&1 || echo "$spec"
  done
}
download() {
  : > "$data/missing.txt"
  wanted | xargs -r -n 20 -P 8 sh -c 'apt-get download -q "$@" >/dev/null 2>&1 || for p in "$@"; do apt-get download -q "$p" >/dev/null 2>&1 || echo "$p" >> '"'$data/missing.txt'"'; done' sh
}
download
# a pinned security update (+deb12uN) is in bookworm-security's index only once apt's lists are
# newer than it: lists from before it make it look unserved
if [ -s "$data/missing.txt" ]; then
  echo "fetch: $(wc -l < "$data/missing.txt") pinned versions not in apt's lists; apt-get update, then again" >&2
  apt-get update -qq || echo "fetch: apt-get update failed" >&2
  download
fi
# a version the mirror no longer serves (a later update replaced it)
if [ -s "$data/missing.txt" ]; then
  echo "fetch: $(wc -l < "$data/missing.txt") pinned versions not on the mirror; from snapshot.debian.org" >&2
  # shellcheck disable=SC2046
  node "$OLDPWD/snapshot-fetch.mjs" . $(cat "$data/missing.txt") > "$data/missing.tmp"
  mv "$data/missing.tmp" "$data/missing.txt"
fi
while read -r lang spec; do
  name=${spec%%=*}
  deb=$(ls "${name}_"*.deb 2>/dev/null | head -1 || true)
  [ -n "$deb" ] || continue
  out="$data/src/$lang/$name"
  [ -d "$out" ] || { mkdir -p "$out" && dpkg-deb -x "$deb" "$out"; }
done < "$OLDPWD/debian-packages.txt"
echo "fetch: $(ls "$data/debs" | wc -l) packages, $(wc -l < "$data/missing.txt") missing, $(du -sh "$data/src" | cut -f1) of sources in $data/src"
