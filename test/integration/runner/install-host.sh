#!/usr/bin/env bash
# Installs a real VS Code extension host for the integration suite: code-server 4.100.3 (VS Code 1.100.3,
# runs on the system node 20) from npm, and Debian's headless Chromium to drive its web client.
# Nothing comes from Microsoft or GitHub servers; everything lands under PREFIX (default .vscode-test/host).
# Usage: test/integration/runner/install-host.sh [PREFIX]
set -euo pipefail
CS_VERSION=4.100.3
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
PREFIX="${1:-$ROOT/.vscode-test/host}"
mkdir -p "$PREFIX"
PREFIX="$(cd "$PREFIX" && pwd)"
export DEBIAN_FRONTEND=noninteractive

NEED_APT=(build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev chromium ripgrep unzip)
if ! dpkg -s "${NEED_APT[@]}" >/dev/null 2>&1; then
  echo "install-host: apt packages (native-module build deps, chromium, ripgrep)"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${NEED_APT[@]}" >/dev/null
fi

if [ -x "$PREFIX/bin/code-server" ] && XDG_CONFIG_HOME="$PREFIX/xdg" XDG_DATA_HOME="$PREFIX/xdg" "$PREFIX/bin/code-server" --version 2>/dev/null | grep -q "^$CS_VERSION "; then
  echo "install-host: code-server $CS_VERSION already in $PREFIX"
  exit 0
fi

# code-server's postinstall refuses root without unsafe-perm; node-pty's build runs `npx node-gyp`, which an
# npmrc with yes=false would cancel.
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
# @vscode/ripgrep (VS Code 1.100) downloads rg from GitHub unless its tmpdir cache already holds the archive:
# seed that cache with Debian's rg. The cache lives in a private TMPDIR under PREFIX, not in /tmp.
export TMPDIR="$PREFIX/tmp"
RG_CACHE="$TMPDIR/vscode-ripgrep-cache-1.15.11"
mkdir -p "$RG_CACHE" "$PREFIX/rgseed" "$PREFIX/cs" "$PREFIX/bin"
cp "$(command -v rg)" "$PREFIX/rgseed/rg"
tar czf "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$PREFIX/rgseed" rg
cd "$PREFIX/cs"
[ -f package.json ] || echo '{"name":"loop-sentinel-test-host","private":true}' > package.json
# npm's own cache also stays inside the prefix (CI caches nothing outside the repo).
npm install --no-save --cache "$PREFIX/npm-cache" "code-server@$CS_VERSION"
rm -rf "$PREFIX/npm-cache" "$PREFIX/rgseed" "$TMPDIR"

NODE_BIN="$(command -v node)"
cat > "$PREFIX/bin/code-server" <<WRAP
#!/bin/sh
# code-server $CS_VERSION pinned to the node it was built for
exec "$NODE_BIN" "$PREFIX/cs/node_modules/code-server/out/node/entry.js" "\$@"
WRAP
chmod +x "$PREFIX/bin/code-server"
# --version writes a default config file: keep it inside the prefix, not in ~/.config.
XDG_CONFIG_HOME="$PREFIX/xdg" XDG_DATA_HOME="$PREFIX/xdg" "$PREFIX/bin/code-server" --version
echo "install-host: code-server $CS_VERSION in $PREFIX ($(du -sh "$PREFIX" | cut -f1))"
