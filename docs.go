// Package geminils is what the binary carries of the repository itself:
// its documentation, which the cli_help agent reads (get_internal_docs).
// It lives at the module's root because go:embed reaches only files at or
// below its package, and README.md is here.
package geminils

import (
	"embed"
	"io/fs"
)

//go:generate go run ./internal/readme/cmd/readme README.md docs/configuration.md
//go:generate go run ./internal/lsp/cmd/protocol docs/protocol.schema.json docs/protocol.md
//go:generate node editors/vscode/scripts/gen-protocol.mjs
//go:generate go run ./internal/models/cmd/vscodemodels editors/vscode/package.json

//go:embed README.md docs/*.md
var docs embed.FS

// Docs is gemini-ls's own documentation, README.md and docs/*.md, by
// their paths in the repository.
func Docs() fs.FS { return docs }
