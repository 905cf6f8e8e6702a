package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// testWorkspace is a workspace over a fresh temp directory holding files
// (slash-separated relative path → content; a name ending in "/" is an
// empty directory).
type testWorkspace struct {
	t    *testing.T
	root string
	ws   *workspace.Workspace
	docs *workspace.Documents
}

func newTestWorkspace(t *testing.T, files map[string]string) *testWorkspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWorkspace{t: t, root: root, docs: workspace.NewDocuments()}
	for name, content := range files {
		tw.write(name, content)
	}
	tw.ws, err = workspace.New([]string{root}, tw.docs)
	if err != nil {
		t.Fatal(err)
	}
	return tw
}

// abs is name under the root.
func (tw *testWorkspace) abs(name string) string {
	return filepath.Join(tw.root, filepath.FromSlash(name))
}

func (tw *testWorkspace) write(name, content string) {
	tw.t.Helper()
	p := tw.abs(name)
	if strings.HasSuffix(name, "/") {
		if err := os.MkdirAll(p, 0o755); err != nil {
			tw.t.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tw.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tw.t.Fatal(err)
	}
}

func (tw *testWorkspace) read(name string) string {
	tw.t.Helper()
	data, err := os.ReadFile(tw.abs(name))
	if err != nil {
		tw.t.Fatal(err)
	}
	return string(data)
}

// open opens name in the editor overlay with text.
func (tw *testWorkspace) open(name, text string) {
	tw.docs.Open(workspace.Document{Path: tw.abs(name), URI: "file://" + tw.abs(name), LanguageID: "text", Version: 1, Text: text})
}

// tool returns the built-in tool called name over this workspace.
func (tw *testWorkspace) tool(name string, opts Options) Tool {
	tw.t.Helper()
	opts.Workspace = tw.ws
	tool, ok := NewRegistry(Builtin(opts)...).Get(name)
	if !ok {
		tw.t.Fatalf("no tool %q", name)
	}
	return tool
}

// build builds a call, failing the test on a validation error.
func build(t *testing.T, tool Tool, args map[string]any) Call {
	t.Helper()
	call, err := tool.Build(args)
	if err != nil {
		t.Fatalf("Build(%v): %v", args, err)
	}
	return call
}

// run builds and executes a call, failing the test on any error.
func run(t *testing.T, tool Tool, args map[string]any) Result {
	t.Helper()
	res, err := build(t, tool, args).Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatalf("Execute(%v): %v", args, err)
	}
	return res
}

// buildError returns the validation error for args, failing when there is none.
func buildError(t *testing.T, tool Tool, args map[string]any) string {
	t.Helper()
	call, err := tool.Build(args)
	if err == nil {
		t.Fatalf("Build(%v) = %T, want an error", args, call)
	}
	return err.Error()
}

func wantOutput(t *testing.T, res Result, want string) {
	t.Helper()
	if res.Error != "" {
		t.Fatalf("Error = %q, want output %q", res.Error, want)
	}
	if res.Output != want {
		t.Errorf("Output:\n%q\nwant:\n%q", res.Output, want)
	}
}

func wantError(t *testing.T, res Result, want string) {
	t.Helper()
	if res.Error != want {
		t.Errorf("Error:\n%q\nwant:\n%q (output %q)", res.Error, want, res.Output)
	}
	if res.Status != dialog.StatusError && res.Status != dialog.StatusRejected {
		t.Errorf("Status = %q, want error or rejected", res.Status)
	}
}

func wantContains(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%q does not contain %q", got, want)
	}
}

// proposer plays the front end a proposal is landed by, as the agent has
// it landed.
type proposer interface {
	Propose(ctx context.Context, change workspace.FileChange) (dialog.Decision, error)
}

// proposing returns tool name whose calls settle their proposals with p,
// as the agent does with what became of a change.
func (tw *testWorkspace) proposing(p proposer, name string, opts Options) Tool {
	tw.t.Helper()
	return proposingTool{Tool: tw.tool(name, opts), p: p}
}

type proposingTool struct {
	Tool
	p proposer
}

func (t proposingTool) Build(args map[string]any) (Call, error) {
	c, err := t.Tool.Build(args)
	if err != nil {
		return nil, err
	}
	return proposingCall{Call: c, p: t.p}, nil
}

type proposingCall struct {
	Call
	p proposer
}

func (c proposingCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	res, err := c.Call.Execute(ctx, info)
	if err != nil || res.Proposal == nil {
		return res, err
	}
	d, err := c.p.Propose(ctx, res.Proposal.Change)
	if err != nil {
		return Result{}, fmt.Errorf("proposing change to %s: %w", res.Proposal.Change.Path, err)
	}
	return res.Proposal.Settle(d)
}

// fakeProposer answers every proposal with decision and records what it saw.
type fakeProposer struct {
	decision dialog.Decision
	err      error
	changes  []workspace.FileChange
}

func (p *fakeProposer) Propose(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	p.changes = append(p.changes, change)
	if p.err != nil {
		return dialog.Decision{}, p.err
	}
	d := p.decision
	if d.Outcome == dialog.Applied {
		d.Content = change.After
	}
	return d, nil
}

func (p *fakeProposer) only(t *testing.T) workspace.FileChange {
	t.Helper()
	if len(p.changes) != 1 {
		t.Fatalf("proposed %d changes, want 1", len(p.changes))
	}
	return p.changes[0]
}

// kindOf is the kind tool says its calls are (a proposing tool's, the
// tool's it wraps).
func kindOf(tool Tool) dialog.Kind {
	if p, ok := tool.(proposingTool); ok {
		tool = p.Tool
	}
	return AnnotationsOf(tool).Kind
}
