.PHONY: build install test test-go test-vscode test-nvim test-emacs test-newer-editors vsix bench

build:
	go build -o gemini-ls ./cmd/gemini-ls

install:
	go install ./cmd/gemini-ls

# Every test: the server's, the VS Code extension's unit tests and its
# scenarios in real VS Code (code-server + Debian's Chromium), the Neovim
# plugin's headless tests and the Emacs package's ERT tests with Debian
# bookworm's Neovim 0.7 and Emacs 28, then both again with Neovim 0.10 and
# Emacs 30 in a Debian trixie chroot, and the Neovim tests with Debian
# testing's newest Neovim. The first run installs what they need and makes
# the chroots (~/.cache/gemini-ls/{trixie,testing}), as root.
test: test-go test-vscode test-nvim test-emacs test-newer-editors

test-go:
	command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }
	go test -race -count=1 ./...

test-vscode: vsix
	cd editors/vscode && npm test
	bash editors/vscode/test/e2e/setup.sh
	GEMINI_VSIX=editors/vscode/dist/gemini-ls.vsix node editors/vscode/test/e2e/run.mjs

test-nvim:
	command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }
	bash editors/nvim/tests/run.sh

test-emacs:
	{ dpkg -s emacs-nox elpa-eglot elpa-markdown-mode >/dev/null 2>&1 && command -v emacs >/dev/null; } || \
		{ apt-get update -qq && apt-get install -y -qq emacs-nox elpa-eglot elpa-markdown-mode; }
	bash editors/emacs/test/run.sh

test-newer-editors:
	bash editors/newer-editors.sh trixie
	bash editors/newer-editors.sh testing

vsix:
	bash editors/vscode/scripts/package.sh

bench:
	bash bench/run.sh
