package acp

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Two changes of one file made from the same text, by two sessions in
// one folder (or parallel subagents of one), and landed at once through
// fs/write_text_file: one lands, the other is stale, and the editor holds
// the one that landed. landChecked holds the
// first land that passed its check, before its write, until a second
// passes too or a while has gone: without the file's write lock both
// pass, and the second write undoes the first.
func TestLandTwoChangesOfOneFileAtOnceOneIsStale(t *testing.T) {
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	t.Cleanup(func() { toAgent.Close(); toClient.Close() })
	s := newServer(t.Context(), Options{})
	s.connect(toAgent, fromAgent)
	client := acptest.New(t, fromClient, toClient, acptest.Config{ReadTextFile: true, WriteTextFile: true})
	if _, err := client.Initialize(t.Context()); err != nil {
		t.Fatal(err)
	}
	sess := &session{srv: s, id: "s1", cwd: t.TempDir(), log: zap.NewNop(), attached: map[string][]sdk.ToolCallContent{}, shown: map[string]dialog.ToolCall{}}
	ws, err := sess.newWorkspace(sess.cwd)
	if err != nil {
		t.Fatal(err)
	}
	sess.ws = ws
	path := filepath.Join(sess.cwd, "f.txt")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c1, err := ws.PrepareChange(t.Context(), path, "A\nb\n")
	if err != nil {
		t.Fatal(err)
	}
	other := &session{srv: s, id: "s2", cwd: sess.cwd, log: zap.NewNop(), attached: map[string][]sdk.ToolCallContent{}, shown: map[string]dialog.ToolCall{}}
	if other.ws, err = other.newWorkspace(other.cwd); err != nil {
		t.Fatal(err)
	}
	c2, err := other.ws.PrepareChange(t.Context(), path, "a\nB\n")
	if err != nil {
		t.Fatal(err)
	}

	var passed atomic.Int32
	both := make(chan struct{})
	landChecked = func() {
		if passed.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
		case <-time.After(300 * time.Millisecond):
		}
	}
	t.Cleanup(func() { landChecked = nil })
	ds := make([]dialog.Decision, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, change := range []workspace.FileChange{c1, c2} {
		wg.Go(func() { ds[i], errs[i] = []*session{sess, other}[i].land(t.Context(), change) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("land: %v; %v", errs[0], errs[1])
	}
	buf, _ := client.Buffer(path)
	applied := 0
	for i, d := range ds {
		switch d.Outcome {
		case dialog.Applied:
			applied++
			if want := []string{c1.After, c2.After}[i]; buf != want {
				t.Errorf("the editor holds %q, not the change that landed (%q)", buf, want)
			}
		case dialog.Stale:
		default:
			t.Errorf("change %d: %s (%s)", i, d.Outcome, d.Reason)
		}
	}
	if applied != 1 {
		t.Errorf("%d changes landed (%+v); the editor holds %q: want one landed and the other stale", applied, ds, buf)
	}
}
