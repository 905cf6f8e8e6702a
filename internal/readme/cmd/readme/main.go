// Command readme rewrites the documentation's generated parts from the
// code (package readme): README.md's tool list, and, given a second
// file, docs/configuration.md's table of the settings gemini-ls does not
// read. Run at the module's root, as `go generate .` does:
//
//	go run ./internal/readme/cmd/readme [README.md [docs/configuration.md]]
package main

import (
	"fmt"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/readme"
)

func main() {
	path := "README.md"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := rewrite(path, readme.Update); err != nil {
		fmt.Fprintln(os.Stderr, "readme:", err)
		os.Exit(1)
	}
	if len(os.Args) > 2 {
		if err := rewrite(os.Args[2], readme.UpdateSettings); err != nil {
			fmt.Fprintln(os.Stderr, "readme:", err)
			os.Exit(1)
		}
	}
}

// rewrite updates path in place with update, leaving it untouched when
// nothing changed.
func rewrite(path string, update func(string) (string, error)) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	updated, err := update(string(old))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if updated == string(old) {
		return nil
	}
	if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
