// Package langclient runs the language servers gemini-ls starts itself
// (gopls, pyright-langserver, typescript-language-server…) where no
// editor answers the code-intelligence tools, and asks them: its Manager
// is a codeintel.Provider, and a dialog.DiagnosticsReader of what those
// servers publish.
//
// New makes a Manager for a workspace and the settings' servers; Ask is
// codeintel.Provider's, Diagnostics dialog.DiagnosticsReader's; Changed
// tells the running servers of files the agent wrote; Available says
// whether a server installed serves a file the workspace holds (among
// the first entries read breadth first); Close ends them all.
//
// Servers come from a table: built-in defaults by language, overridden
// and extended by the settings' codeIntelligence.servers (ServerConfig,
// in the shape of Neovim's vim.lsp.config). A file's server is the first
// of its filetype's whose command is on PATH; its root is the nearest
// directory above the file holding one of the server's root markers,
// never above the workspace root holding the file. workspace_symbols,
// which names a root and no file, asks the servers running in it, or
// else starts those whose own markers (not .git, which marks every
// project) are at the root.
//
// Invariant: a server gemini-ls starts is a program that may run the
// workspace's code (a workspace's TypeScript, build scripts, a project's
// interpreter). Each starts through the session's door (package spawn)
// for a spawn.LanguageServer: in the session's sandbox whenever there is
// one, and, unless its switches keep it from running the workspace's
// code (confine.go: the user's TypeScript for typescript-language-server,
// an interpreter outside the workspace for pyright; gopls, whose go
// command runs none of the module's code), only once the user said yes,
// asked once a session through the request's Ask; nobody to ask is a
// refusal the model is told. Its command, and what it runs in turn, are
// found on a PATH without the workspace's directories.
//
// Invariant: one process per (root, server), started at the first
// question that needs it (diagnostics never start one), in a process
// group of its own so that it ends with the session (Close, or the
// group's kill); its stderr goes to the log, never to the user's
// terminal. One that stops is started again once, at the next question;
// if it stops again, questions are told so.
//
// Invariant: no call waits on a server without end. Every call ends with
// its context; the connection's end (the server exiting, breaking the
// protocol, announcing a message over the cap) fails every pending call
// with the reason; a server still indexing after the bound is reported
// as such rather than asked for a possibly partial answer, unless it has
// said nothing of that work for progressStale: then it is asked, and the
// answer's Caveat says the work is unfinished.
//
// Invariant: before a question about a file, the server holds the text
// the question's position was counted in (didOpen, or didChange with
// the whole text when it changed), and positions are sent in UTF-16,
// the only encoding the client declares.
//
// JSON-RPC is hand-rolled (jsonrpc.go) rather than go.lsp.dev/jsonrpc2,
// which the LSP side of gemini-ls uses: that one accepts, and allocates
// at once, any Content-Length up to a fixed 1 GiB; a language server is
// a program from the user's PATH, not an editor we answer, so each frame
// is checked against a cap of our own (64 MiB) before it is read. The
// protocol needed (requests, notifications, the few server requests
// answered, no batches) is small.
package langclient
