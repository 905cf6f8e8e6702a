// Command readme rewrites README.md's generated parts from the code (the
// tool list: package readme). Run at the module's root, as `go generate .`
// does:
//
//	go run ./internal/readme/cmd/readme [README.md]
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
	if err := rewrite(path); err != nil {
		fmt.Fprintln(os.Stderr, "readme:", err)
		os.Exit(1)
	}
}

// rewrite updates path in place, leaving it untouched when nothing changed.
func rewrite(path string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the README: %w", err)
	}
	updated, err := readme.Update(string(old))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if updated == string(old) {
		return nil
	}
	if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
		return fmt.Errorf("writing the README: %w", err)
	}
	return nil
}
