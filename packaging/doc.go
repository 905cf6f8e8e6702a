// Package packaging holds no code: its tests check the files that the
// editors' registries take from this repository, by the registries' own
// rules, so that a release is never refused.
//
//   - acp-registry/gemini-ls/: the entry of agentclientprotocol/registry
//     (agent.json and icon.svg), which Zed, JetBrains IDEs and other ACP
//     clients install agents from;
//   - mason/package.yaml: the package of mason-org/mason-registry, which
//     mason.nvim installs from;
//   - melpa/gemini-ls: the recipe of melpa/melpa;
//   - editors/vscode: the extension's manifest and icon, and the README
//     its .vsix carries, the page the VS Code Marketplace and Open VSX
//     show, whose every link must lead to a file of the packaged commit.
//   - action.yml, at the repository's top: the GitHub Action that
//     installs a release's server on a runner and runs `gemini-ls
//     action`, and the workflow /setup-github writes that uses it
//     (internal/conversation/builtin/workflows/gemini-ls.yml).
//
// Invariants the tests hold: every archive these files name is one that
// `make dist` (scripts/dist.sh) builds, on an https release URL of the
// version the server reports, for every platform make dist builds; the
// ACP entry's command answers the registry's initialize handshake with an
// auth method the registry accepts. The action's install script asks for
// the archive make dist builds for each runner and refuses one that is not
// the bytes the release's SHA256SUMS names; its key reaches the step that
// runs gemini-ls alone, masked first; it and the workflow name the one
// version. The release workflow
// (.github/workflows/release.yml) runs the registries' own validators on
// the same files at pinned commits, and docs/releasing.md says which.
package packaging
