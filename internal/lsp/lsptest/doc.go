// Package lsptest is a scripted LSP client for testing gemini-ls the way
// editors drive it: it starts the server (the real binary or in process),
// initializes with a capability profile of a real editor (VS Code, Neovim
// 0.7 and 0.11, Emacs eglot, Helix 25.07, our own plugins), keeps buffers
// like an editor, applies or declines workspace/applyEdit as a scripted user
// decides, and records every notification the server sends. Where an
// editor's client is not what the protocol promises (Neovim answering
// applied to an edit it skipped, eglot's late didChange), the profile
// behaves as the real one does.
package lsptest
