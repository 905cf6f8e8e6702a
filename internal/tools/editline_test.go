package tools

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// An edit's call, prepared as the agent prepares a call it is about to
// run, names the line its change starts at beside its file: replace the
// line old_string starts at, by the matching the edit uses, in the text
// the edit runs on (the editor's buffer where open); write_file the
// first line it changes. Where that is not known before the call runs,
// no line.
func TestEditCallsNameTheLineTheyChange(t *testing.T) {
	files := map[string]string{
		"a.txt":    "one\ntwo\nthree\nfour\ntwo\n",
		"go.go":    "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"open.txt": "on disk\n",
		"crlf.txt": "a\r\nb\r\nc\r\n",
	}
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
		line int
	}{
		{"replace: the first occurrence", ReplaceName, map[string]any{"file_path": "a.txt", "old_string": "two\n", "new_string": "2\n", "allow_multiple": true}, 2},
		{"replace: a match in other indentation", ReplaceName, map[string]any{"file_path": "go.go", "old_string": "    return 1", "new_string": "    return 2"}, 4},
		{"replace: the editor's text, not disk's", ReplaceName, map[string]any{"file_path": "open.txt", "old_string": "in the buffer", "new_string": "changed"}, 3},
		{"replace: old_string not found", ReplaceName, map[string]any{"file_path": "a.txt", "old_string": "nowhere", "new_string": "x"}, 0},
		{"replace: a new file", ReplaceName, map[string]any{"file_path": "new.txt", "old_string": "", "new_string": "hi\n"}, 1},
		{"replace: creating a file that exists", ReplaceName, map[string]any{"file_path": "a.txt", "old_string": "", "new_string": "hi\n"}, 0},
		{"write_file: a new file", WriteFileName, map[string]any{"file_path": "new.txt", "content": "hi\n"}, 1},
		{"write_file: the first line that differs", WriteFileName, map[string]any{"file_path": "a.txt", "content": "one\ntwo\nTHREE\nfour\ntwo\n"}, 3},
		{"write_file: lines added at the end", WriteFileName, map[string]any{"file_path": "a.txt", "content": "one\ntwo\nthree\nfour\ntwo\nsix\n"}, 6},
		{"write_file: lines cut from the end", WriteFileName, map[string]any{"file_path": "a.txt", "content": "one\ntwo\n"}, 3},
		{"write_file: the file's line endings kept", WriteFileName, map[string]any{"file_path": "crlf.txt", "content": "a\nb\nC\n"}, 3},
		{"write_file: the editor's text, not disk's", WriteFileName, map[string]any{"file_path": "open.txt", "content": "first\nsecond\nin the buffer\nmore\n"}, 4},
		{"write_file: the same content", WriteFileName, map[string]any{"file_path": "a.txt", "content": files["a.txt"]}, 0},
	} {
		tw := newTestWorkspace(t, files)
		tw.open("open.txt", "first\nsecond\nin the buffer\n")
		call := build(t, tw.tool(c.tool, Options{}), c.args)
		Prepare(context.Background(), call)
		var d dialog.ToolCall
		Present(tw.tool(c.tool, Options{}), call, &d)
		if d.Path != tw.abs(c.args["file_path"].(string)) || d.Line != c.line {
			t.Errorf("%s: presented at %s:%d, want %s:%d", c.name, d.Path, d.Line, tw.abs(c.args["file_path"].(string)), c.line)
		}
	}
}

// A call presented without being prepared (a transcript's, whose file has
// changed since) reads nothing and names its file alone; so does one
// whose file is too large to edit, which is not read at all.
func TestEditCallsNameNoLineUnread(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "one\ntwo\n", "big.txt": ""})
	if err := os.Truncate(tw.abs("big.txt"), workspace.MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	reads := &countingBuffers{}
	tw.ws.SetBuffers(reads)
	replace := tw.tool(ReplaceName, Options{})
	call := build(t, replace, map[string]any{"file_path": "a.txt", "old_string": "two", "new_string": "2"})
	if path, line := LocationOf(call); path != tw.abs("a.txt") || line != 0 || reads.of(tw.abs("a.txt")) != 0 {
		t.Errorf("unprepared: at %s:%d after %d reads, want the file alone, unread", path, line, reads.of(tw.abs("a.txt")))
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{ReplaceName, map[string]any{"file_path": "big.txt", "old_string": "x", "new_string": "y"}},
		{WriteFileName, map[string]any{"file_path": "big.txt", "content": "y"}},
	} {
		call := build(t, tw.tool(c.tool, Options{}), c.args)
		start := time.Now()
		Prepare(context.Background(), call)
		if path, line := LocationOf(call); path != tw.abs("big.txt") || line != 0 || time.Since(start) > time.Second {
			t.Errorf("%s of a file over the limit: at %s:%d after %v, want the file alone, at once", c.tool, path, line, time.Since(start))
		}
	}
}

// The file an edit names the line of is read once: the call runs on the
// read Prepare made, so a prepared call asks the editor for the file as
// often as one run unprepared (replace twice: to find old_string, then
// to make the change from; write_file once).
func TestPreparedEditsReadTheirFileOnce(t *testing.T) {
	for _, c := range []struct {
		tool  string
		args  map[string]any
		reads int
	}{
		{ReplaceName, map[string]any{"file_path": "a.txt", "old_string": "two", "new_string": "2"}, 2},
		{WriteFileName, map[string]any{"file_path": "a.txt", "content": "one\n2\n"}, 1},
	} {
		tw := newTestWorkspace(t, map[string]string{"a.txt": "one\ntwo\n"})
		reads := &countingBuffers{}
		tw.ws.SetBuffers(reads)
		p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
		tool := tw.proposing(p, c.tool, Options{})
		call := build(t, tool, c.args)
		Prepare(context.Background(), call.(proposingCall).Call)
		if _, err := call.Execute(context.Background(), CallInfo{}); err != nil {
			t.Fatal(err)
		}
		if n := reads.of(tw.abs("a.txt")); n != c.reads {
			t.Errorf("%s prepared, then run: the editor was asked for the file %d times, want %d", c.tool, n, c.reads)
		}
		if ch := p.only(t); ch.Before != "one\ntwo\n" || ch.After != "one\n2\n" {
			t.Errorf("%s proposed %q → %q", c.tool, ch.Before, ch.After)
		}
	}
}

// A replace prepared before its file changed (a BeforeTool hook's edit)
// does not land on the text it read: it fails, saying the file changed.
func TestReplacePreparedBeforeTheFileChangedFails(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "one\ntwo\n"})
	call := build(t, tw.tool(ReplaceName, Options{}), map[string]any{"file_path": "a.txt", "old_string": "two", "new_string": "2"})
	Prepare(context.Background(), call)
	tw.write("a.txt", "zero\none\ntwo\n")
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res, "Failed to edit: "+tw.abs("a.txt")+" changed while this edit was being prepared. No edits made. Read the file again and retry.")
}

// countingBuffers is an editor with no buffers of its own that counts
// how often it is asked for each file.
type countingBuffers struct {
	mu    sync.Mutex
	asked map[string]int
}

func (b *countingBuffers) ReadBuffer(_ context.Context, path string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.asked == nil {
		b.asked = map[string]int{}
	}
	b.asked[path]++
	return "", false, nil
}

func (b *countingBuffers) of(path string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked[path]
}
