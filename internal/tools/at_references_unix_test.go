//go:build unix

package tools

import (
	"context"
	"strings"
	"testing"
)

// An @path keeps hardening's guarantees: nothing outside the roots,
// no special file opened, no huge file read, and every skip told.
func TestReferencesInAHostileWorkspace(t *testing.T) {
	tw := newHostileWorkspace(t)
	// Without the default excludes, which would leave sparse.bin out.
	r, err := newReferenceReader(tw.ws, []string{"**", "*.txt", "fifo", "out.txt"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := bounded(t, "reading the references", func() (Result, error) {
		got, err := r.read(context.Background())
		return referenceResult(got), err
	})
	if strings.Contains(res.Output, "SECRET") {
		t.Error("a file outside the roots was read through a symlink")
	}
	wantContains(t, res.Output, "--- "+tw.abs("ok.txt")+" ---\n\nneedle\n")
	// A name with a newline cannot forge a separator.
	wantContains(t, res.Output, "--- "+quoteName(tw.abs("new\nline.txt"))+" ---\n\nneedle\n")
	wantContains(t, res.Output, "- out.txt (Reason: Security: Path not in workspace)")
	wantContains(t, res.Output, "- sparse.bin (Reason: Read error: File size exceeds the 20MB limit (2048.00MB))")
	wantContains(t, res.Output, "- fifo (Reason: Read error: reading "+tw.abs("fifo")+": it is a named pipe (FIFO), not a regular file)")
	// Counted once, though two patterns searched the root.
	wantContains(t, res.Output, "- the search (Reason: skipped 2 symlinks leading outside the workspace, 1 special file (device, FIFO or socket), 1 broken symlink or unreadable entry)")
	if !strings.HasSuffix(res.Output, "\n--- End of content ---") {
		t.Errorf("output does not end with the end marker")
	}
}
