// Command protocol writes the wire schema and docs/protocol.md's table
// of update kinds from the server's types (package lsp). Run at the
// module's root, as `go generate .` does:
//
//	go run ./internal/lsp/cmd/protocol docs/protocol.schema.json docs/protocol.md
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/readme"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: protocol SCHEMA.json PROTOCOL.md")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "protocol:", err)
		os.Exit(1)
	}
}

func run(schemaPath, docPath string) error {
	schema, err := lsp.ProtocolSchema()
	if err != nil {
		return err
	}
	if err := write(schemaPath, schema); err != nil {
		return err
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		return fmt.Errorf("reading %s: %w", docPath, err)
	}
	updated, err := readme.Replace(string(doc), lsp.UpdateKindsBegin, lsp.UpdateKindsEnd, "update kinds table", "\n"+lsp.UpdateKindsTable())
	if err != nil {
		return fmt.Errorf("%s: %w", docPath, err)
	}
	return write(docPath, []byte(updated))
}

// write writes b to path, leaving it untouched when it holds b already.
func write(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
