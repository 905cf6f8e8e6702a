// Package codeintel is the contract between the agent's code-intelligence
// tools (navigate_code, rename_symbol: package tools) and the language
// servers that answer them: the editor's own, asked through the front end
// (gemini/languageFeature, docs/protocol.md §9d), or ones gemini-ls starts
// itself where no editor answers (package codeintel/langclient).
//
// Invariant: a Provider answers in LSP's own JSON shapes (Location[],
// Hover, DocumentSymbol[] or SymbolInformation[], CallHierarchy*Call[],
// WorkspaceEdit), positions in the encoding its Answer names, so every
// provider is read by one decoder (decode.go) and the tools never know
// who answered but by Answer.Source.
//
// Invariant: a Request names a position in bytes (UTF-8) of the Text the
// tool read; each provider converts it to the encoding its server speaks,
// from that same Text, so the model never counts columns and no provider
// reads the file again to find the position.
//
// Invariant: a provider that has no language server for a file says so
// with a *NoServerError, at once, naming what to install; Chain then asks
// the next provider. Any other error is the server's own answer (a
// refusal to rename), and the tools tell it to the model word for word.
package codeintel
