package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// recordingProposer applies every change and keeps it.
type recordingProposer struct{ changes []workspace.FileChange }

func (p *recordingProposer) Propose(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	p.changes = append(p.changes, change)
	return dialog.Decision{Outcome: dialog.Applied, Content: change.After}, nil
}

// The LLM fix end to end: the real genai client asks the fake Gemini API
// for a JSON {search, replace} with one generateContent request to the
// utility model, and the corrected edit lands.
func TestReplaceLLMFixThroughGemini(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn(
		`{"search": "\ttimeout := 30\n", "replace": "\ttimeout := 60\n", "explanation": "The file has 30, not 10."}`))
	gen := auth.NewGenerator(auth.Auth{
		Type:   auth.GeminiAPIKey,
		Config: genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}},
	})
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "serve.go"), []byte("func serve() {\n\ttimeout := 30\n\tlisten(timeout)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, workspace.NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProposer{}
	reg := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Utility: agent.NewUtility(gen, dialog.RetryPolicy{})})...)
	replace, _ := reg.Get(tools.ReplaceName)
	call, err := replace.Build(map[string]any{
		// Too far from the file's line for the fuzzy stage.
		"file_path": "serve.go", "old_string": "\ttimeout := 10 * time.Second\n", "new_string": "\ttimeout := 60\n",
		"instruction": "Double the timeout to 60.",
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Execute(t.Context(), tools.CallInfo{})
	if err != nil || res.Proposal == nil {
		t.Fatalf("result = %+v, %v; want a proposal", res, err)
	}
	d, err := p.Propose(t.Context(), res.Proposal.Change)
	if err != nil {
		t.Fatal(err)
	}
	if res, err = res.Proposal.Settle(d); err != nil {
		t.Fatal(err)
	}
	if res.Error != "" || !strings.HasSuffix(res.Output, "old_string matched after an LLM correction of old_string and new_string. The correction: The file has 30, not 10.") {
		t.Fatalf("result = %+v", res)
	}
	if len(p.changes) != 1 || p.changes[0].After != "func serve() {\n\ttimeout := 60\n\tlisten(timeout)\n}\n" {
		t.Fatalf("changes = %+v", p.changes)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	// 0.61's llm-edit-fixer model config: gemini-3-flash-base.
	if req.Method != "generateContent" || req.Model != models.Gemini3FlashPreview || req.Problem != "" {
		t.Errorf("request %s to %s (%s)", req.Method, req.Model, req.Problem)
	}
	if gc := req.GenerationConfig; gc == nil || gc.Temperature == nil || *gc.Temperature != 0 || gc.TopP == nil || *gc.TopP != 1 {
		t.Errorf("generationConfig = %+v, want temperature 0, topP 1", gc)
	}
	if gc := req.GenerationConfig; gc == nil || gc.ResponseMIMEType != "application/json" || gc.ResponseJsonSchema == nil {
		t.Errorf("generationConfig = %+v", req.GenerationConfig)
	}
	if si := req.SystemInstruction; si == nil || !strings.Contains(si.Parts[0].Text, "failed search-and-replace operations") {
		t.Errorf("systemInstruction = %+v", si)
	}
	if len(req.Contents) != 1 || !strings.Contains(req.Contents[0].Parts[0].Text, "<instruction>\nDouble the timeout to 60.\n</instruction>") {
		t.Errorf("contents = %+v", req.Contents)
	}
}
