#!/usr/bin/env bash
# Installs a real VS Code (code-server, from the npm registry) for `npm start` and the
# end-to-end tests, plus the Debian packages it and the tests need. Idempotent and cached:
# the first run takes minutes (code-server's npm install and four native rebuilds), later runs
# find the stamp file and return in about a second.
#
# code-server's own postinstall cannot work on these machines (it wants npm_config_unsafe_perm
# as root, kerberos needs libkrb5-dev, and @vscode/ripgrep downloads ripgrep from GitHub), so
# this does by hand what that postinstall would do: install without scripts, rebuild only the
# native modules VS Code's server loads, and take ripgrep from Debian.
#
# Cache: $FATHOM_E2E_CACHE (default ~/.cache/fathom-e2e), outside the clone on purpose, since
# CI starts from a fresh clone each time. Prints the code-server folder as its last stdout line;
# progress goes to stderr.
#
# Env: FATHOM_E2E_CACHE (cache root), FATHOM_CODE_SERVER_VERSION (default 4.100.3, the last
# release whose engines.node is 20), FATHOM_SKIP_APT=1 (never call apt-get; fail if missing).
#
# The same whoever calls it: run from `npm start` (or any npm script), the environment carries
# the calling project's npm settings as npm_config_* variables, among them this repository's
# `ignore-scripts=true` (.npmrc), which would make `npm rebuild` below build nothing. So the npm
# settings of the caller are dropped here, except where packages come from (registry, proxy,
# certificates, cache); the rebuilds also pass --ignore-scripts=false, against a user's
# ~/.npmrc; and every native binary is checked after its build, by name, with a clear error.
set -euo pipefail

for name in $(compgen -e); do
  case "${name,,}" in
    npm_config_registry | npm_config_cache | npm_config_userconfig | npm_config_globalconfig | \
      npm_config_cafile | npm_config_ca | npm_config_proxy | npm_config_https_proxy | npm_config_noproxy | \
      npm_config_strict_ssl | npm_config_nodedir) ;;
    npm_config_* | npm_package_* | npm_lifecycle_* | npm_command) unset "$name" ;;
  esac
done

VERSION="${FATHOM_CODE_SERVER_VERSION:-4.100.3}"
CACHE="${FATHOM_E2E_CACHE:-$HOME/.cache/fathom-e2e}"
DEST="$CACHE/code-server-$VERSION"
# Bump when the recipe below changes, so that caches made by an older recipe are rebuilt.
RECIPE=2
STAMP="$DEST/.fathom-setup-ok"
APT_PACKAGES=(libkrb5-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium)

log() { printf '[setup-code-server] %s\n' "$*" >&2; }
die() { printf '[setup-code-server] error: %s\n' "$*" >&2; exit 1; }

# --- Debian packages, only the missing ones -------------------------------------------------
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  [[ "${FATHOM_SKIP_APT:-}" == 1 ]] && die "missing Debian packages: ${missing[*]} (FATHOM_SKIP_APT=1 forbids installing them)"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "missing Debian packages: ${missing[*]}; run as root or install them: apt-get install -y ${missing[*]}"
    SUDO=(sudo)
  fi
  # apt-get's and dpkg's chatter ("Selecting…", "Unpacking…", "Setting up…") goes to a log
  # file; its tail is shown only if the install fails.
  mkdir -p "$CACHE"
  APT_LOG="$CACHE/apt-get.log"
  log "installing Debian packages: ${missing[*]} (output: $APT_LOG)"
  if ! { "${SUDO[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${missing[@]}"; } >"$APT_LOG" 2>&1; then
    tail -n 30 "$APT_LOG" >&2
    die "apt-get could not install ${missing[*]} (the whole output: $APT_LOG)"
  fi
fi
command -v rg >/dev/null || die "ripgrep (rg) not found after installing Debian's ripgrep"
[[ -x /usr/bin/chromium ]] || die "/usr/bin/chromium not found after installing Debian's chromium"

# --- code-server, cached ---------------------------------------------------------------------
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "recipe $RECIPE" && -f "$DEST/out/node/entry.js" ]]; then
  log "code-server $VERSION is ready (cached in $DEST)"
  echo "$DEST"
  exit 0
fi

mkdir -p "$CACHE"
# One builder at a time (two test runs started together would otherwise build twice, racing).
exec 9>"$CACHE/.lock"
flock 9
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "recipe $RECIPE" && -f "$DEST/out/node/entry.js" ]]; then
  log "code-server $VERSION is ready (built by a concurrent run)"
  echo "$DEST"
  exit 0
fi

started=$SECONDS
BUILD="$CACHE/.build-$VERSION-$$"
rm -rf "$BUILD"
mkdir -p "$BUILD"
trap 'rm -rf "$BUILD"' EXIT
log "installing code-server $VERSION into $DEST (first run: several minutes)"

(cd "$BUILD" && npm pack --silent "code-server@$VERSION" >&2)
tar -xzf "$BUILD"/code-server-*.tgz -C "$BUILD"
PKG="$BUILD/package"
node -e 'const p=require(process.argv[1]);const want=String(p.engines&&p.engines.node||"");const have=process.versions.node.split(".")[0];if(want&&!want.split(/[^0-9]+/).filter(Boolean).includes(have)){console.error(`[setup-code-server] warning: code-server ${p.version} wants node ${want}, this is node ${process.versions.node}`)}' "$PKG/package.json"

# Plain npm flags: no audit/fund noise, no lifecycle scripts (rebuilt one by one below).
NPM_FLAGS=(--omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
# The rebuilds must run the modules' install scripts, whatever an .npmrc says.
REBUILD_FLAGS=(--ignore-scripts=false --loglevel=error)
log "npm install (code-server root)"
(cd "$PKG" && npm install "${NPM_FLAGS[@]}" >&2)
log "npm install (lib/vscode)"
(cd "$PKG/lib/vscode" && npm install "${NPM_FLAGS[@]}" >&2)
# lib/vscode/extensions has its own package.json: the TypeScript that VS Code's built-in
# TypeScript/JavaScript extension runs as its tsserver. code-server's postinstall installs it;
# without it that extension says "VS Code's tsserver was deleted by another application" on
# every start. Its postinstall.mjs (upstream's) only trims the package down to lib/.
log "npm install (lib/vscode/extensions: the built-in tsserver)"
(cd "$PKG/lib/vscode/extensions" && npm install "${NPM_FLAGS[@]}" >&2 && node postinstall.mjs >/dev/null)
TSSERVER="$PKG/lib/vscode/extensions/node_modules/typescript/lib/tsserver.js"
[[ -f "$TSSERVER" ]] || die "VS Code's built-in tsserver is missing after npm install: lib/vscode/extensions/node_modules/typescript/lib/tsserver.js"

log "rebuilding argon2"
(cd "$PKG" && npm rebuild argon2 "${REBUILD_FLAGS[@]}" >&2)
mkdir -p "$PKG/node_modules/argon2/lib/binding/napi-v3"
ARGON2_BUILT="$PKG/node_modules/argon2/build-tmp-napi-v3/Release/argon2.node"
ARGON2_BINDING="$PKG/node_modules/argon2/lib/binding/napi-v3/argon2.node"
[[ -f "$ARGON2_BUILT" ]] || die "argon2 was not built: $ARGON2_BUILT (npm rebuild argon2 ran no build; is npm's ignore-scripts or allowScripts forbidding it?)"
# npm may already have hard-linked the build there; cp refuses to copy a file onto itself.
cmp -s "$ARGON2_BUILT" "$ARGON2_BINDING" || cp "$ARGON2_BUILT" "$ARGON2_BINDING"

log "rebuilding @vscode/spdlog kerberos native-watchdog"
(cd "$PKG/lib/vscode" && npm rebuild @vscode/spdlog kerberos native-watchdog "${REBUILD_FLAGS[@]}" >&2)
log "rebuilding node-pty"
# node-pty's last post-install step (compile_commands.json, through npx) fails here harmlessly:
# pty.node is built before it. Its output goes to a log; the binding itself is checked below.
(cd "$PKG/lib/vscode" && npm rebuild node-pty "${REBUILD_FLAGS[@]}" >"$BUILD/node-pty.log" 2>&1) ||
  log "node-pty's post-install reported an error (its compile_commands step is known to); checking pty.node"
for f in node-pty/build/Release/pty.node @vscode/spdlog/build/Release/spdlog.node kerberos/build/Release/kerberos.node native-watchdog/build/Release/watchdog.node; do
  [[ -f "$PKG/lib/vscode/node_modules/$f" ]] || { cat "$BUILD/node-pty.log" >&2; die "native module not built: lib/vscode/node_modules/$f (npm rebuild ran no build for it)"; }
done

mkdir -p "$PKG/lib/vscode/node_modules/@vscode/ripgrep/bin"
cp "$(command -v rg)" "$PKG/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
ln -sfn node_modules "$PKG/lib/vscode/node_modules.asar"
ln -sfn code-linux.sh "$PKG/lib/vscode/bin/remote-cli/code-server"
ln -sfn browser-linux.sh "$PKG/lib/vscode/bin/helpers/browser.sh"

node "$PKG/out/node/entry.js" --version >/dev/null 2>&1 || die "code-server does not start: node $PKG/out/node/entry.js --version"
echo "recipe $RECIPE" >"$PKG/.fathom-setup-ok"
rm -rf "$DEST"
mv "$PKG" "$DEST"
log "code-server $VERSION installed in $((SECONDS - started)) s"
echo "$DEST"
