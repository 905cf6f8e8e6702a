package tools

import (
	"context"
	"strings"
)

// ContextDiscoverer finds the context files (GEMINI.md) around a path a
// tool touched that the session has not seen yet (memory.Loader).
type ContextDiscoverer interface {
	// Discover returns the newly found files' text, or "".
	Discover(ctx context.Context, sessionID, path string) string
}

// Gemini CLI's delimiters of context found while a tool ran.
const (
	jitContextPrefix = "\n\n--- Newly Discovered Project Context ---\n"
	jitContextSuffix = "\n--- End Project Context ---"
)

// discoverContext asks d (nil: off) about each path in turn, for the
// session sessionID, so a file
// shared by their parents comes once, and returns what it found delimited
// as Gemini CLI delimits it, for the model only; "" when nothing is new.
func discoverContext(ctx context.Context, d ContextDiscoverer, sessionID string, paths ...string) string {
	if d == nil {
		return ""
	}
	var found []string
	for _, p := range paths {
		if text := d.Discover(ctx, sessionID, p); text != "" {
			found = append(found, text)
		}
	}
	if len(found) == 0 {
		return ""
	}
	return jitContextPrefix + strings.Join(found, "\n") + jitContextSuffix
}
