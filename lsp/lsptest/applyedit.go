package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/workspace"
)

// Edit is one workspace/applyEdit as the user sees it: each touched file's
// text now and with the edit applied.
type Edit struct {
	Label string
	Files []FileEdit
	// Annotated: every change carries a change annotation that needs
	// confirmation.
	Annotated bool
	Params    json.RawMessage
}

// FileEdit is one file of an Edit.
type FileEdit struct {
	Path     string
	Before   string
	Proposed string
	Created  bool
}

// Answer is what the user does with an Edit.
type Answer struct {
	// Apply puts Text (or each file's Proposed text) into the buffers.
	Apply bool
	// Text overrides the applied text of each path: the user's own version.
	Text map[string]string
	// Applied overrides what the client answers (Apply by default), to
	// imitate clients that answer untruthfully.
	Applied *bool
}

// EditPolicy decides an Edit. It may block until ctx ends.
type EditPolicy func(ctx context.Context, e Edit) Answer

// Accept applies every edit as proposed.
func Accept(context.Context, Edit) Answer { return Answer{Apply: true} }

// Decline applies nothing.
func Decline(context.Context, Edit) Answer { return Answer{} }

// Modify lets the user change the proposal before accepting it.
func Modify(change func(path, proposed string) string) EditPolicy {
	return func(_ context.Context, e Edit) Answer {
		a := Answer{Apply: true, Text: map[string]string{}}
		for _, f := range e.Files {
			a.Text[f.Path] = change(f.Path, f.Proposed)
		}
		return a
	}
}

// Hold blocks until release is closed or ctx ends, then declines: the user
// who never answers.
func Hold(release <-chan struct{}) EditPolicy {
	return func(ctx context.Context, _ Edit) Answer {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return Answer{}
	}
}

type wireEdit struct {
	Label string `json:"label"`
	Edit  struct {
		Changes           map[string][]wireTextEdit  `json:"changes"`
		DocumentChanges   []json.RawMessage          `json:"documentChanges"`
		ChangeAnnotations map[string]json.RawMessage `json:"changeAnnotations"`
	} `json:"edit"`
}

// annotated: some change annotation of the edit needs confirmation.
func (w wireEdit) annotated() bool {
	for _, raw := range w.Edit.ChangeAnnotations {
		var a struct {
			NeedsConfirmation bool `json:"needsConfirmation"`
		}
		if json.Unmarshal(raw, &a) == nil && a.NeedsConfirmation {
			return true
		}
	}
	return false
}

type wireTextEdit struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
	NewText      string `json:"newText"`
	AnnotationID string `json:"annotationId"`
}

func (e wireTextEdit) edit() workspace.TextEdit {
	return workspace.TextEdit{
		Range: workspace.Range{
			Start: workspace.Position{Line: e.Range.Start.Line, Character: e.Range.Start.Character},
			End:   workspace.Position{Line: e.Range.End.Line, Character: e.Range.End.Character},
		},
		NewText: e.NewText,
	}
}

type applyResult struct {
	Applied       bool    `json:"applied"`
	FailureReason *string `json:"failureReason,omitempty"`
}

func failed(reason string) applyResult { return applyResult{FailureReason: &reason} }

// applyEdit plays an editor: it checks versions (refusing stale edits as
// VS Code and Helix do), shows the user the result, and applies what the
// user accepts to its buffers, telling the server with didChange.
func (c *Client) applyEdit(ctx context.Context, raw json.RawMessage) (any, error) {
	var w wireEdit
	if err := json.Unmarshal(raw, &w); err != nil {
		return failed("malformed WorkspaceEdit: " + err.Error()), nil
	}
	e := Edit{Label: w.Label, Params: raw, Annotated: len(w.Edit.ChangeAnnotations) > 0}
	created := map[string]bool{}
	versions := map[string]int32{} // the buffer versions the edit was made for
	proposed := map[string]string{}
	var order []string
	addEdits := func(u string, version *int32, edits []wireTextEdit) error {
		path := uri.URI(u).FsPath()
		before, err := c.textFor(path, version)
		if err != nil {
			return err
		}
		if version != nil {
			versions[path] = *version
		}
		if p, ok := proposed[path]; ok {
			before = p
		} else {
			order = append(order, path)
			e.Files = append(e.Files, FileEdit{Path: path, Before: before})
		}
		te := make([]workspace.TextEdit, len(edits))
		for i, x := range edits {
			te[i] = x.edit()
			if e.Annotated && x.AnnotationID == "" {
				e.Annotated = false
			}
		}
		after, err := applyIndependently(before, te, c.Encoding())
		if err != nil {
			return fmt.Errorf("applying edits to %s: %w", path, err)
		}
		proposed[path] = after
		return nil
	}
	for _, dc := range w.Edit.DocumentChanges {
		var op struct {
			Kind         string `json:"kind"`
			URI          string `json:"uri"`
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits []wireTextEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &op); err != nil {
			return failed(err.Error()), nil
		}
		switch op.Kind {
		case "create":
			created[uri.URI(op.URI).FsPath()] = true
		case "":
			if err := addEdits(op.TextDocument.URI, op.TextDocument.Version, op.Edits); err != nil {
				return failed(err.Error()), nil
			}
		default:
			return failed("unsupported resource operation " + op.Kind), nil
		}
	}
	for u, edits := range w.Edit.Changes {
		if err := addEdits(u, nil, edits); err != nil {
			return failed(err.Error()), nil
		}
	}
	for i := range e.Files {
		e.Files[i].Proposed = proposed[e.Files[i].Path]
		e.Files[i].Created = created[e.Files[i].Path]
	}

	policy := c.OnApplyEdit
	if policy == nil {
		policy = Accept
	}
	ans := policy(ctx, e)
	applied := ans.Apply
	if ans.Apply {
		// VS Code and Helix refuse an edit whose document moved on while
		// the user was looking at it.
		for path, v := range versions {
			c.mu.Lock()
			b, open := c.buffers[path]
			moved := open && b.version != v
			c.mu.Unlock()
			if moved {
				return failed(fmt.Sprintf("%s: %v: edit for version %d, buffer at %d", path, errVersion, v, b.version)), nil
			}
		}
		for _, path := range order {
			text := proposed[path]
			if t, ok := ans.Text[path]; ok {
				text = t
			}
			if err := c.put(ctx, path, text, created[path]); err != nil {
				return failed(err.Error()), nil
			}
		}
	}
	if ans.Applied != nil {
		applied = *ans.Applied
	}
	return applyResult{Applied: applied}, nil
}

// textFor is the text an edit applies to: the open buffer (whose version
// must match), else the file on disk.
func (c *Client) textFor(path string, version *int32) (string, error) {
	c.mu.Lock()
	b, open := c.buffers[path]
	c.mu.Unlock()
	if open {
		if version != nil && *version != b.version {
			return "", fmt.Errorf("%w: edit for version %d, buffer at %d", errVersion, *version, b.version)
		}
		return b.text, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return string(data), err
}

// put sets a buffer's text, opening it first (and creating the file for a
// CreateFile) the way editors load a file to apply an edit to it.
func (c *Client) put(ctx context.Context, path, text string, create bool) error {
	c.mu.Lock()
	_, open := c.buffers[path]
	c.mu.Unlock()
	if !open {
		before := ""
		if create {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				return err
			}
		} else if data, err := os.ReadFile(path); err == nil {
			before = string(data)
		}
		if err := c.Open(ctx, path, before); err != nil {
			return err
		}
	}
	return c.Type(ctx, path, text)
}
