package lsp

import (
	"context"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/completion"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// promptCatcher is a completion model that keeps the prompts it is sent
// and answers nothing.
type promptCatcher struct {
	mu      sync.Mutex
	prompts []string
}

func (c *promptCatcher) GenerateContentStream(_ context.Context, _ string, contents []*genai.Content, _ *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	var text strings.Builder
	for _, content := range contents {
		for _, part := range content.Parts {
			text.WriteString(part.Text)
		}
	}
	c.mu.Lock()
	c.prompts = append(c.prompts, text.String())
	c.mu.Unlock()
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText("", genai.RoleModel)}}}, nil)
	}
}

func (c *promptCatcher) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.prompts) == 0 {
		return ""
	}
	return c.prompts[len(c.prompts)-1]
}

// The agent's edit arrives as a didChange while it lands (the editor
// applies it to show it, as Neovim's review and VS Code do; one file's,
// or several files' as one edit), or late, after the editor answered that
// it applied it (eglot): either way it is not one of the user's recent
// edits, which completion shows the model. The user's typing before and
// after it is.
func TestTheAgentsEditIsNotOneOfTheUsersRecentEdits(t *testing.T) {
	for _, tc := range []struct {
		name        string
		late, files bool
	}{
		{name: "while it lands"},
		{name: "synchronised late", late: true},
		{name: "several files as one edit", files: true},
	} {
		t.Run(tc.name, func(t *testing.T) { agentsEditNotRecent(t, tc.late, tc.files) })
	}
}

func agentsEditNotRecent(t *testing.T, late, files bool) {
	const (
		before   = "def add(a, b):\n    return a + b\n# user typed\n"
		proposed = "def add(a, b):\n    return a - b  # AGENT\n# user typed\n"
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	root := t.TempDir()
	path := filepath.Join(root, "app.py")
	docURI := string(uri.File(path))
	docs := workspace.NewDocuments()
	ws, err := workspace.New([]string{root}, docs)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{docs: docs, log: zap.NewNop(), life: ctx, edits: newEditQueue(),
		opts:     Options{ConfirmWait: 50 * time.Millisecond},
		features: negotiated{features: clientFeatures{ApplyEdit: true, DocumentChanges: true, EditPreview: true, Encoding: workspace.UTF16}}}
	s.agentState.setWorkspace(ws)
	model := &promptCatcher{}
	s.completion = completion.New(completion.Config{Workspace: ws, Documents: docs})
	s.completion.SetBackend(completion.Backend{Model: model})

	var mu sync.Mutex
	version := int32(1)
	typed := func(text string) {
		mu.Lock()
		defer mu.Unlock()
		version++
		var p didChangeParams
		p.TextDocument.URI, p.TextDocument.Version = docURI, version
		p.ContentChanges = append(p.ContentChanges, struct {
			Range *lspRange `json:"range"`
			Text  string    `json:"text"`
		}{Text: text})
		if err := s.didChange(p); err != nil {
			t.Error(err)
		}
	}
	// The editor shows the proposal by applying it to the document (or
	// applies it without telling yet), and answers that it was applied.
	serverEnd, editorEnd := jsonrpc2.NewChannelStreamPair(16)
	s.conn = jsonrpc2.NewConn(serverEnd)
	s.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	editor := jsonrpc2.NewConn(editorEnd)
	editor.Go(ctx, func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "workspace/applyEdit" {
			return nil, nil
		}
		if !late {
			typed(proposed)
		}
		return protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	})
	t.Cleanup(func() {
		_ = s.conn.Close()
		_ = editor.Close()
	})

	docs.Open(workspace.Document{Path: path, URI: docURI, LanguageID: "python", Version: 1, Text: "def add(a, b):\n    return a + b\n"})
	typed(before)
	change := workspace.FileChange{Path: path, Exists: true, Open: true, Version: version, Before: before, After: proposed}
	if files {
		got, err := (presenter{s: s}).LandFiles(ctx, dialog.LandFilesRequest{Title: "rename", CallID: "c1", Ask: true,
			Changes: []dialog.RevertChange{{FileChange: change}}})
		if err != nil || len(got) != 1 || got[0].Outcome != dialog.Applied {
			t.Fatalf("landing = %+v, %v; want applied", got, err)
		}
	} else {
		landing, err := (presenter{s: s}).Land(ctx, dialog.LandRequest{Change: change, Ask: true})
		if err != nil || landing.Decision.Outcome != dialog.Applied {
			t.Fatalf("landing = %+v, %v; want applied", landing, err)
		}
	}
	if late {
		typed(proposed)
	}
	typed(proposed + "# and more\n")

	if _, err := s.completion.Complete(ctx, completion.Request{Path: path, Position: workspace.Position{Line: 3}, Encoding: workspace.UTF16, Trigger: completion.Invoked}); err != nil {
		t.Fatal(err)
	}
	prompt := model.last()
	for _, want := range []string{"+# user typed", "+# and more"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt's recent edits lack the user's %q:\n%s", want, prompt)
		}
	}
	if i := strings.Index(prompt, "</recent_edits>"); i < 0 || strings.Contains(prompt[:i], "AGENT") {
		t.Errorf("the agent's edit is among the user's recent edits:\n%s", prompt)
	}
}
