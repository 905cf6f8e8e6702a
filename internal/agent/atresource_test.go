package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// testResources are the resources of running MCP servers, by SERVER:URI;
// a resource whose content is failing fails to read with it.
type testResources struct {
	listed  map[string][]ResourceContent
	failing error
	read    []string // the identifiers read, in order
}

func (r *testResources) ResourceURI(identifier string) (string, bool) {
	if _, ok := r.listed[identifier]; !ok {
		return "", false
	}
	_, uri, _ := strings.Cut(identifier, ":")
	return uri, true
}

func (r *testResources) ReadResource(_ context.Context, identifier string) ([]ResourceContent, error) {
	r.read = append(r.read, identifier)
	if r.failing != nil {
		return nil, r.failing
	}
	return r.listed[identifier], nil
}

func expandResources(t *testing.T, ws *workspace.Workspace, prompt string, from Resources) []string {
	t.Helper()
	parts, err := expandReferences(context.Background(), ws, prompt, referents{resources: from})
	if err != nil {
		t.Fatalf("expandReferences(%q): %v", prompt, err)
	}
	return texts(parts)
}

// An @SERVER:URI naming a resource a running server lists is read from it
// and attached as 0.61's readMcpResources attaches it: "Content from
// @URI:" and its text, binary data as a line naming its type and size,
// ahead of the files' content; the reference stays in the prompt as typed.
func TestAtResourceAttachesItsContent(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"a.go": "package a\n"})
	from := &testResources{listed: map[string][]ResourceContent{
		"docs:file:///notes.txt": {{Text: "the notes"}},
		"db:db://users":          {{Blob: []byte{1, 2, 3}, MIMEType: "application/x-sqlite3"}, {Blob: []byte{4}}},
	}}
	wantParts(t, expandResources(t, ws, " read @docs:file:///notes.txt ", from), []string{
		"read @docs:file:///notes.txt",
		"\n--- Content from referenced files ---",
		"\nContent from @file:///notes.txt:\n", "the notes",
		"\n--- End of content ---",
	})
	wantParts(t, expandResources(t, ws, "compare @db:db://users with @a.go", from), []string{
		"compare @db:db://users with @a.go",
		"\n--- Content from referenced files ---",
		"\nContent from @db://users:\n",
		"[Binary resource content application/x-sqlite3, 3 bytes]",
		"[Binary resource content application/octet-stream, 1 bytes]",
		"\nContent from @a.go:\n", "package a",
		"\n--- End of content ---",
	})
}

// An @SERVER:URI no running server lists is a path, as in 0.61: here one
// that leads nowhere, so the prompt goes as typed, the model told it was
// not attached, and nothing is read from a server.
func TestAtResourceUnknownIsAPath(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"a.go": "package a\n"})
	from := &testResources{listed: map[string][]ResourceContent{"docs:file:///notes.txt": {{Text: "the notes"}}}}
	for _, ref := range []string{"@other:file:///notes.txt", "@docs:file:///missing.txt", "@file:///notes.txt"} {
		wantParts(t, expandResources(t, ws, "read "+ref, from), []string{"read " + ref, skippedNote([]tools.SkippedFile{{Path: ref, Reason: notFoundReason}})})
	}
	if len(from.read) > 0 {
		t.Errorf("read %q from a server", from.read)
	}
}

// A resource that cannot be read fails the prompt, in 0.61's words, and
// nothing is sent.
func TestAtResourceReadFailure(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"a.go": "package a\n"})
	from := &testResources{listed: map[string][]ResourceContent{"docs:file:///notes.txt": nil}, failing: errors.New("connection closed")}
	parts, err := expandReferences(context.Background(), ws, "read @docs:file:///notes.txt and @a.go", referents{resources: from})
	const want = "Exiting due to an error processing the @ command: Error reading resource file:///notes.txt: connection closed"
	if err == nil || err.Error() != want || !isReferenceError(err) {
		t.Fatalf("parts %q, error %v; want the error %q", texts(parts), err, want)
	}
}
