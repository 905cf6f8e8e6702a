#!/usr/bin/env bash
# make test-gemini-cli-suite: Gemini CLI's own integration suite
# (integration-tests/ of google-gemini/gemini-cli at $COMMIT, which the
# project may not commit) run against gemini-ls and against Gemini CLI
# 0.61 (make gemini-cli), side by side, through the suite's own test rig
# (packages/test-utils, INTEGRATION_TEST_GEMINI_BINARY_PATH). The
# tests that use a live model fail for both: the model's address is a
# local server refusing every request at once. Interactive tests (a
# terminal, node-pty) are skipped as they start one
# (scripts/gemini-cli-suite/left-out.ts), the rest of their file run.
#
# Prints each test's result for both, and exits 1 when a test 0.61
# passes fails against gemini-ls and scripts/gemini-cli-suite/divergences
# does not name it (a divergence on purpose, with its reason).
#
# The sources: $GEMINI_CLI_SUITE_SRC, a work tree of that commit; else
# $GEMINI_CLI_SUITE_GIT, a git directory holding it (blobs missing from a
# partial copy are left out); else a clone from GitHub where the network
# allows. They are kept, installed (npm ci) and built in the cache.
#   GEMINI_CLI_SUITE_FILTER   a regexp of the test files to run (all)
set -euo pipefail
cd "$(dirname "$0")/.."

COMMIT=5411f113cafae26161b4969b0237b8e1e024e2c2
here=$(pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gemini-ls/gemini-cli-suite/$COMMIT
src=${GEMINI_CLI_SUITE_SRC:-$cache/src}
out=$cache/results
mkdir -p "$cache" "$out"

fetch_sources() {
	if [[ -f $src/integration-tests/vitest.config.ts ]]; then
		return
	fi
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	if [[ -n ${GEMINI_CLI_SUITE_GIT:-} ]]; then
		echo "gemini-cli-suite: extracting $COMMIT from $GEMINI_CLI_SUITE_GIT"
		python3 scripts/gemini-cli-suite/extract.py "$GEMINI_CLI_SUITE_GIT" "$COMMIT" "$src.tmp"
	elif git clone --quiet --filter=blob:none --no-checkout https://github.com/google-gemini/gemini-cli "$src.tmp" 2>/dev/null &&
		git -C "$src.tmp" checkout --quiet "$COMMIT"; then
		:
	else
		echo "gemini-cli-suite: cannot fetch google-gemini/gemini-cli at $COMMIT (no network to github.com?): set GEMINI_CLI_SUITE_GIT to a git directory holding it, or GEMINI_CLI_SUITE_SRC to a work tree" >&2
		exit 2
	fi
	mv "$src.tmp" "$src"
}

install_rig() {
	local stamp=$src/.gemini-ls-installed
	[[ -f $stamp ]] && return
	echo "gemini-cli-suite: installing the suite's rig (npm ci) and building its core"
	(cd "$src" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
	# The core imports generated/git-commit.js, which npm's prepare would
	# write; with --ignore-scripts, and in a tree without .git, it is
	# written here from the pinned commit.
	(cd "$src" && GIT_COMMIT=${COMMIT:0:12} npm run --silent generate >/dev/null)
	(cd "$src/packages/core" && npm run build >/dev/null)
	(cd "$src/packages/test-utils" && npm run build >/dev/null)
	touch "$stamp"
}

fetch_sources
install_rig
make --no-print-directory gemini-cli >/dev/null
CGO_ENABLED=0 go build -o "$cache/bin/gemini-ls" ./cmd/gemini-ls
gemini_cli=$here/internal/geminicli/npm/node_modules/.bin/gemini

# The model's address: answers every request 400 at once, so a test that
# needs a live model fails quickly, without retries, for both.
node -e 'require("http").createServer((q,s)=>{s.writeHead(400,{"content-type":"application/json"});s.end(JSON.stringify({error:{code:400,message:"no live model in this suite run",status:"INVALID_ARGUMENT"}}))}).listen(0,"127.0.0.1",function(){console.log(this.address().port)})' >"$cache/refuser.port" &
refuser=$!
trap 'kill $refuser 2>/dev/null' EXIT
for _ in $(seq 50); do [[ -s $cache/refuser.port ]] && break; sleep 0.1; done
base_url=http://127.0.0.1:$(cat "$cache/refuser.port")

# Every file of the suite; a test that starts a terminal is skipped as it
# starts one (left-out.ts), so that a file's other tests run (the
# BeforeTool override is in hooks-system.test.ts, beside five that do).
cp scripts/gemini-cli-suite/left-out.ts scripts/gemini-cli-suite/vitest.gemini-ls.config.ts "$src/integration-tests/"
files=$(cd "$src/integration-tests" && ls -- *.test.ts | grep -E "${GEMINI_CLI_SUITE_FILTER:-.}")

run_suite() { # name binary
	echo "gemini-cli-suite: running $(echo "$files" | wc -l) files against $1"
	# RUN_FLAKY_INTEGRATION: the tests the suite calls flaky (hooks-system's
	# among them) run too; against fake responses they are not.
	(cd "$src" && GEMINI_API_KEY=suite-key GOOGLE_GEMINI_BASE_URL=$base_url GEMINI_SANDBOX=false RUN_FLAKY_INTEGRATION=1 \
		INTEGRATION_TEST_GEMINI_BINARY_PATH=$2 \
		npx vitest run --root ./integration-tests --config vitest.gemini-ls.config.ts --retry=0 --testTimeout=120000 \
		--poolOptions.threads.maxThreads=3 --poolOptions.threads.minThreads=1 \
		--reporter=json --outputFile="$out/$1.json" $files >"$out/$1.log" 2>&1) || true
}

run_suite gemini-cli-0.61 "$gemini_cli"
run_suite gemini-ls "$cache/bin/gemini-ls"
node scripts/gemini-cli-suite/compare.mjs "$out/gemini-cli-0.61.json" "$out/gemini-ls.json" scripts/gemini-cli-suite/divergences
