.PHONY: build install demo dist lint actionlint fuzz fuzz-smoke test test-dist test-go langservers rootless-user test-linear test-windows gemini-cli test-gemini-cli-suite otelcol test-acp test-acp-clients test-vscode test-nvim test-emacs test-newer-editors test-emacs-newer test-helix vsix emacs-package screenshots bench bench-check stress

# Static (no cgo): no dynamic loader to run at start-up, about a tenth
# quicker from spawn to initialize (docs/benchmarks.md), and the binary runs
# on any Linux.
build:
	CGO_ENABLED=0 go build -o gemini-ls ./cmd/gemini-ls

install:
	CGO_ENABLED=0 go install ./cmd/gemini-ls

# The README's offline demo: the agent, headless, against the fake model
# the tests use (fakegemini, serving internal/agent/geminitest/testdata/demo.json),
# running the real grep_search on this checkout; its answer quotes what
# the tool found. No key, no network. It says what it does first: the
# first build downloads the modules and compiles both programs, a minute
# or two, whose chatter (go: downloading …) is kept in
# build/demo/build.log and shown only if the build fails.
demo:
	@echo "building gemini-ls and the fake model (a minute or two the first time)…"
	@mkdir -p build/demo
	@# A line every 10 s while Go builds, so a first build (no cache) is
	@# seen to move: go build -v names each package it compiles.
	@go build -v -o build/demo/ ./cmd/gemini-ls ./internal/agent/geminitest/cmd/fakegemini >build/demo/build.log 2>&1 & pid=$$!; \
	  start=$$(date +%s); \
	  while ! { sleep 10 & wait $$!; ! kill -0 $$pid 2>/dev/null; }; do \
	    echo "  still building: $$(grep -c . build/demo/build.log) packages compiled in $$(( $$(date +%s) - start )) s"; \
	  done; \
	  wait $$pid || { cat build/demo/build.log; exit 1; }
	@echo 'asking the fake model "Where are the TODOs?" about this checkout (gemini-ls run -C . --skip-trust -p …)'
	@build/demo/fakegemini --script internal/agent/geminitest/testdata/demo.json -- build/demo/gemini-ls run -C . --skip-trust -p "Where are the TODOs?"

# The release artefacts, in dist/: the server for Linux, macOS and Windows
# on amd64 and arm64, a VS Code .vsix per platform carrying its server, the
# Neovim plugin and the Emacs package, and SHA256SUMS (scripts/dist.sh).
# `make dist VERSION=1.2.0` names the version; else git describe does.
dist:
	@bash scripts/debs.sh zip
	bash scripts/dist.sh

# make dist in a clean clone of this commit: every artefact, SHA256SUMS
# verified with sha256sum -c, each .vsix carrying its server, and the
# server's --version naming the version and the commit (scripts/test-dist.sh).
test-dist:
	@bash scripts/debs.sh zip unzip
	bash scripts/test-dist.sh

# actionlint, go vet, and staticcheck at a pinned version (built into Go's
# cache by go run; staticcheck.conf says which checks are off and why); no tracked file
# over 1 MiB unless .ci/large-files allows it (build outputs never are).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: actionlint
	bash .ci/tracked-sizes
	go vet ./...
	GOOS=windows go vet ./...
	GOOS=darwin go vet ./...
	go run $(STATICCHECK) ./...

# The GitHub workflows (.github/workflows) and the one /setup-github writes
# by actionlint at a pinned version, built into Go's cache by go run: a
# workflow GitHub would refuse or misread fails here first; the written one
# again against action.yml's inputs (scripts/actionlint.sh).
ACTIONLINT := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
actionlint:
	ACTIONLINT=$(ACTIONLINT) bash scripts/actionlint.sh

# Every Go fuzz target in the tree (each func FuzzX(*testing.F), found by
# scripts/fuzz.sh, so a new one joins by itself), FUZZTIME each, as many
# at a time as there are CPUs: fuzz-smoke a few seconds, as CI runs it,
# fuzz longer before a release: `make fuzz FUZZTIME=5m`; `FUZZ=Dotenv`
# runs the targets that regexp matches.
FUZZTIME ?= 1m
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$${FUZZMINIMIZETIME:-5s} bash scripts/fuzz.sh

fuzz-smoke:
	FUZZTIME=3s bash scripts/fuzz.sh

# Every test: the server's, `make dist` from a clean clone (test-dist), the
# VS Code extension's unit tests and its
# scenarios in real VS Code (code-server + Debian's Chromium), `gemini-ls
# acp` driven by the ACP reference client (npm) and by codecompanion.nvim
# and agent-shell in real Neovim 0.12 and Emacs 30, the Neovim
# plugin's headless tests and the Emacs package's ERT tests with Debian
# bookworm's Neovim 0.7 and Emacs 28, then both again with Neovim 0.10 and
# Emacs 30 in a Debian trixie chroot, and the Neovim tests with Debian
# testing's newest Neovim, real Helix 25.07 from Debian sid, and the
# Windows build's Go tests under Wine (test-windows). Each target
# first installs the Debian packages its suite needs (apt-get, so as root),
# and the first run makes the chroots
# (~/.cache/gemini-ls/{trixie,testing,sid,trixie-wine}). Test pictures go to
# build/screenshots; `make screenshots` takes them afresh and copies into
# docs/screenshots those that changed.
test: test-go test-dist test-acp test-editors test-windows

# The editors' suites wait on an editor's screen far more than they
# compute, so they run in two lanes at once (scripts/lanes.sh): Neovim's,
# Emacs's and the ACP clients', one after another, beside VS Code's and
# then Helix's, whose output is printed whole when they end. The ACP
# clients' and test-newer-editors share chroots, so they share a lane.
# Each make there keeps this one's flags (-k goes on past a failing
# target).
test-editors:
	bash scripts/lanes.sh '$(MAKE) test-nvim test-emacs test-acp-clients test-newer-editors' '$(MAKE) test-vscode test-helix'

# -race needs cgo, so a C compiler and libc's headers; ripgrep is one of
# grep_search's engines, tested against the others. Gemini CLI 0.61 is what
# the interoperability tests run gemini-ls against (internal/geminicli).
# bubblewrap is the Linux sandbox (internal/sandbox) the sandbox tests run;
# podman (with crun, and catatonit for --init) the container one, in an
# image made of busybox-static and bash-static (sandboxtest.Podman), as
# root and rootless (uidmap's newuidmap, sandboxtest.RootlessPodman).
# GNU patch is what the memory inbox's patches are checked against, with
# git apply (internal/memory). strace traces a start of gemini-ls for the
# files it reads, each of which internal/configfiles must declare
# (TestEveryConfigurationReadIsDeclared). js-yaml 4.1.0, Gemini CLI's YAML
# reader, from a committed lockfile, is what agent and skill front matter
# is typed against (internal/frontmatter's TestScalarsAsJSYAML).
# python3 is the interpreter pyright looks for: without one on PATH, pyright
# 1.1.414 leaves its analysis' progress open for good, and gemini-ls then
# reports it still indexing at every question (a fresh machine's test-go
# failed so).
# curl, unzip and perl's shasum are what the GitHub Action's install step
# runs on a runner (packaging's TestActionInstallsTheServerOfEachRunner
# runs it against a fake release, as a Mac without sha256sum too).
# -timeout 30m: the README's commands (readme_commands_test.go) compile
# gemini-ls as a reader would, static too, which on a fresh machine's cold
# cache takes longer than go test's default 10 minutes for one package.
test-go: gemini-cli otelcol langservers rootless-user
	@bash scripts/debs.sh gcc libc6-dev ripgrep bubblewrap python3 podman crun catatonit uidmap busybox-static bash-static patch strace curl unzip perl
	npm ci --prefix internal/frontmatter/testdata/jsyaml --no-audit --no-fund --loglevel=error
	npm ci --prefix internal/tools/mcp/testdata/tsserver --no-audit --no-fund --loglevel=error
	go test -race -count=1 -timeout 30m ./...
	$(MAKE) test-linear

# The user that runs podman rootless in the tests (sandboxtest.RootlessPodman):
# unprivileged, with subordinate ids; made by root only.
ROOTLESS_USER = gemini-ls-rootless
rootless-user:
	@if [ "$$(id -u)" = 0 ]; then \
	  id $(ROOTLESS_USER) >/dev/null 2>&1 || useradd --create-home --shell /bin/sh $(ROOTLESS_USER); \
	  grep -q '^$(ROOTLESS_USER):' /etc/subuid 2>/dev/null || usermod --add-subuids 1000000-1065535 $(ROOTLESS_USER); \
	  grep -q '^$(ROOTLESS_USER):' /etc/subgid 2>/dev/null || usermod --add-subgids 1000000-1065535 $(ROOTLESS_USER); \
	fi

# The parsers of what a repository holds timed for linearity
# (internal/lineartest) without the race detector, whose own work swamps
# a parser's, so that under -race those tests tell only a hang: the
# packages with a Test...IsLinear, found by their use of lineartest.
test-linear:
	go test -count=1 -run 'IsLinear$$' $$(grep -rl --include='*_test.go' 'lineartest.Linear(' internal | xargs -n1 dirname | sort -u | sed 's|^|./|')

# Every package's tests cross-built for windows/amd64 and run under Wine 10
# in a Debian trixie chroot, with a Windows user's environment (no HOME):
# scripts/test-windows.sh, which prints each package's pass/skip/fail
# counts and every skip's reason.
test-windows:
	bash scripts/test-windows.sh

# A real OpenTelemetry Collector (OTLP receiver, file exporter) that the
# telemetry tests send to: internal/otelcol, its own module, pinned by its
# go.sum, built once into the cache under a name that its sources' hash
# ends (internal/telemetry/collector_test.go finds it there, or builds it itself).
# About 6.5 minutes cold on a 2-core machine, seconds once Go's cache has it.
otelcol:
	@src=internal/otelcol; \
	hash=$$(cat $$src/main.go $$src/go.mod $$src/go.sum | sha256sum | cut -c1-12); \
	dir=$${XDG_CACHE_HOME:-$$HOME/.cache}/gemini-ls/otelcol-0.165.0-$$hash; \
	if [ ! -x $$dir/otelcol ]; then \
	  echo "make $@: building the collector into $$dir"; \
	  mkdir -p $$dir && cd $$src && CGO_ENABLED=0 GOWORK=off go build -trimpath -o $$dir/otelcol.tmp . && mv $$dir/otelcol.tmp $$dir/otelcol; \
	fi

# The language servers internal/codeintel/langclient's tests start, at
# pinned versions: gopls (go install) and pyright (npm ci from
# scripts/langservers' lockfile), into
# ~/.cache/gemini-ls/langservers/bin (scripts/langservers.sh).
langservers:
	@bash scripts/langservers.sh

# Gemini CLI 0.61 from npm, pinned by its lockfile, for the tests that check
# that each tool reads what the other writes (internal/geminicli).
gemini-cli:
	cd internal/geminicli/npm && npm ci --no-audit --no-fund --loglevel=error

# Gemini CLI's own integration suite (its integration-tests/, at the
# commit scripts/gemini-cli-suite.sh pins, which the project may not
# commit: fetched from GitHub where the network allows, else from
# GEMINI_CLI_SUITE_GIT, a git directory holding it) run through its own
# rig against gemini-ls and against Gemini CLI 0.61, side by side; fails
# on a test 0.61 passes that gemini-ls does not, unless
# scripts/gemini-cli-suite/divergences says why. Not in `make test`: CI's
# machines reach no GitHub. About 10 minutes once installed.
test-gemini-cli-suite: gemini-cli
	bash scripts/gemini-cli-suite.sh

# `gemini-ls acp` driven by the protocol's reference client, the npm
# package @agentclientprotocol/sdk (installed with npm ci into
# editors/acp/test from its lockfile), against the fake model; run.sh builds
# gemini-ls, fakegemini and the test MCP server. `make test-acp
# ACP_TRANSCRIPT=docs/acp.md` also rewrites the transcript in docs/acp.md.
test-acp:
	bash editors/acp/test/run.sh

# Third-party ACP clients, unchanged, as their users run them, configured
# with README.md's snippets: codecompanion.nvim in Debian testing's Neovim
# (0.12) and agent-shell in Debian trixie's Emacs 30, each in tmux driving
# `gemini-ls acp` against the fake model. The clients are the pinned
# snapshots in editors/acp-clients/vendor; the chroots are
# test-newer-editors' (newer-editors.sh makes them the first time). Both
# run, whatever the first's result.
test-acp-clients:
	status=0; \
	bash editors/newer-editors.sh testing acp-clients || status=1; \
	bash editors/newer-editors.sh trixie acp-clients || status=1; \
	exit $$status

# setup.sh installs Chromium, code-server and what they need.
test-vscode: vsix
	cd editors/vscode && npm test
	bash editors/vscode/test/e2e/setup.sh
	GEMINI_VSIX=editors/vscode/dist/gemini-ls.vsix node editors/vscode/test/e2e/run.mjs

# tmux runs the real, interactive editor of the screen tests.
test-nvim: langservers
	@bash scripts/debs.sh neovim tmux
	bash editors/nvim/tests/run.sh

test-emacs: langservers
	@bash scripts/debs.sh emacs-nox elpa-eglot elpa-markdown-mode elpa-package-lint tmux python3
	bash editors/emacs/test/run.sh

# newer-editors.sh installs debootstrap and makes its chroots itself.
test-newer-editors: langservers
	bash editors/newer-editors.sh trixie
	bash editors/newer-editors.sh testing

# The Emacs package's tests in Debian trixie's Emacs 30 alone (part of
# test-newer-editors), which take its emacs-*-30.txt pictures.
test-emacs-newer: langservers
	bash editors/newer-editors.sh trixie emacs

# Real Helix (Debian sid's hx: Helix is in no other suite) in tmux, with only
# editors/helix/languages.toml; its chroot is ~/.cache/gemini-ls/sid.
test-helix:
	bash editors/newer-editors.sh sid

vsix:
	bash editors/vscode/scripts/package.sh

# The Emacs package from this clone, for M-x package-install-file in Emacs
# 28 and newer: build/gemini-ls-VERSION.tar (editors/emacs/make-package.sh),
# the same package make dist ships, but naming this clone, where
# gemini-ls-install-server offers go build offline. It prints the tar's path.
emacs-package:
	@bash editors/emacs/make-package.sh build --from-clone

# The committed pictures change only here: takes them afresh (the suites
# that take pictures, into an emptied build/screenshots), then copies into
# docs/screenshots those that differ once what changes from run to run
# (ids, temporary directories) is masked (internal/screens). Run twice, the
# second leaves git status clean. Copying alone, after a test run: go run
# ./internal/screens/cmd/screens.
screenshots:
	rm -rf build/screenshots
	$(MAKE) test-nvim test-emacs test-emacs-newer test-helix test-vscode test-acp-clients
	bash editors/newer-editors.sh testing
	go run ./internal/screens/cmd/screens
	@git status --short docs/screenshots

bench:
	bash bench/run.sh

# The figures docs/benchmarks.md follows ("Guarding the figures": spawn to
# initialize against a trivial server, the 8-call turn's overhead, CPU and
# peak RSS, the sandbox against bare bwrap, the soak's flatness, each
# token task's input against Gemini CLI 0.61) against their previous values
# in bench/figures.json: each printed with the change, REGRESSION and exit
# status 1 for one more than 20% worse (a task's tokens: 5%). Not in CI
# (the machine's load moves them); run before each release. About 15
# minutes (TOKENS=0: 4). `make bench-check UPDATE=1` records this run's
# figures instead.
bench-check:
	UPDATE=$(UPDATE) bash bench/check.sh

# The race of the file tools against a command swapping a workspace
# directory with a symlink out of the roots (issue 65), with many more
# calls than every test run makes (GEMINI_LS_STRESS calls of each tool,
# and a checkpoint per hundred calls; STRESS=n to choose), under the race
# detector.
STRESS ?= 20000
stress:
	@bash scripts/debs.sh ripgrep
	GEMINI_LS_STRESS=$(STRESS) go test -race -count=1 -timeout 60m -run 'TestFileToolsCannotBeRacedOutOfTheRoots|TestCheckpointsCannotBeRacedOutOfTheRoot' -v ./internal/tools ./internal/agent/checkpoint
