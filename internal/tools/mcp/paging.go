package mcp

import (
	"context"
	"encoding/json"
	"fmt"
)

// A listing (tools/list, resources/list, prompts/list) is read page by
// page, bounded: a server that always answers with another cursor would
// otherwise be read until its timeout (ten minutes by default), every page
// kept meanwhile. Gemini CLI 0.61 reads one page of tools, and every page
// of resources with no bound.
const (
	maxListPages = 100
	maxListItems = 10_000
	// maxListBytes bounds what one listing holds, all its pages together,
	// as its items' JSON (what of a page is kept: members gemini-ls does
	// not know are left out): as much as one message of a remote server
	// may hold. Each page within the message bound, a hundred of them held
	// 1.2 GiB.
	maxListBytes = maxMessage
)

// listAll is every item of a listing list reads a page of (at cursor, ""
// for the first), or why the listing was given up: past maxListPages,
// maxListItems or maxListBytes, or at a cursor the server gave before.
// It asks for no page past a bound, and keeps nothing of a listing given
// up.
func listAll[T any](ctx context.Context, what string, list func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursor, size := "", 0
	for page := 1; ; page++ {
		items, next, err := list(ctx, cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		encoded, err := json.Marshal(items)
		if err != nil {
			return nil, fmt.Errorf("listing %s: measuring a page: %w", what, err)
		}
		if size += len(encoded); size > maxListBytes {
			return nil, fmt.Errorf("listing %s: the server offers more than %d MiB of %s, which gemini-ls does not read", what, maxListBytes>>20, what)
		}
		switch {
		case next == "":
			return out, nil
		case seen[next]:
			return nil, fmt.Errorf("listing %s: the server gave the cursor %q twice", what, next)
		case page >= maxListPages || len(out) > maxListItems:
			return nil, fmt.Errorf("listing %s: the server offers more than %d pages or %d %s, which gemini-ls does not read", what, maxListPages, maxListItems, what)
		}
		seen[next] = true
		cursor = next
	}
}
