package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go.lsp.dev/jsonrpc2"
	"os"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
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
	// Deleted: a DeleteFile of the file.
	Deleted bool
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
	// Refuse, when set, is the message of the JSON-RPC error the client
	// answers with instead of a result, having applied nothing: eglot's
	// "User cancelled server edit" when the user says n to its question.
	Refuse string
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
// VS Code and Helix do, skipping them as Neovim does), shows the user the
// result, and applies what the user accepts to its buffers, telling the
// server with didChange.
func (c *Client) applyEdit(ctx context.Context, raw json.RawMessage) (any, error) {
	var w wireEdit
	if err := json.Unmarshal(raw, &w); err != nil {
		return failed("malformed WorkspaceEdit: " + err.Error()), nil
	}
	p := c.newEditPlan(w, raw)
	if err := p.read(w); err != nil {
		return failed(err.Error()), nil
	}
	policy := c.OnApplyEdit
	if policy == nil {
		policy = Accept
	}
	ans := policy(ctx, p.e)
	if ans.Refuse != "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, ans.Refuse)
	}
	applied := ans.Apply
	if ans.Apply {
		if err := p.apply(ctx, ans); err != nil {
			return failed(err.Error()), nil
		}
	}
	if ans.Applied != nil {
		applied = *ans.Applied
	}
	return applyResult{Applied: applied}, nil
}

// editPlan is a workspace edit as the client reads it before the user
// answers: what it proposes for each file, and what it checked.
type editPlan struct {
	c        *Client
	e        Edit
	created  map[string]bool
	deleted  []string
	checked  map[string]versionCheck // the buffer versions the edit was made for
	edits    map[string][][]workspace.TextEdit
	proposed map[string]string
	order    []string // the edited paths, in the order the edit names them
}

func (c *Client) newEditPlan(w wireEdit, raw json.RawMessage) *editPlan {
	return &editPlan{
		c:        c,
		e:        Edit{Label: w.Label, Params: raw, Annotated: len(w.Edit.ChangeAnnotations) > 0},
		created:  map[string]bool{},
		checked:  map[string]versionCheck{},
		edits:    map[string][][]workspace.TextEdit{},
		proposed: map[string]string{},
	}
}

// read reads the document changes, then the changes, of w into p.
func (p *editPlan) read(w wireEdit) error {
	for i, dc := range w.Edit.DocumentChanges {
		if err := p.addDocumentChange(dc, i == 0); err != nil {
			return err
		}
	}
	for u, wire := range w.Edit.Changes {
		if err := p.addEdits(u, nil, false, wire); err != nil {
			return err
		}
	}
	for i := range p.e.Files {
		f := &p.e.Files[i]
		if f.Deleted {
			continue
		}
		f.Proposed = p.proposed[f.Path]
		f.Created = p.created[f.Path]
	}
	return nil
}

// addDocumentChange reads one of documentChanges: a resource operation
// or a text document edit.
func (p *editPlan) addDocumentChange(dc json.RawMessage, first bool) error {
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
		return err
	}
	switch op.Kind {
	case "create":
		p.created[uri.URI(op.URI).FsPath()] = true
	case "delete":
		path := uri.URI(op.URI).FsPath()
		p.deleted = append(p.deleted, path)
		before, _, _, err := p.c.textFor(path)
		if err != nil {
			return err
		}
		p.e.Files = append(p.e.Files, FileEdit{Path: path, Before: before, Deleted: true})
	case "":
		return p.addEdits(op.TextDocument.URI, op.TextDocument.Version, first, op.Edits)
	default:
		return errors.New("unsupported resource operation " + op.Kind)
	}
	return nil
}

// addEdits proposes the text edits wire of the document u, made for its
// version if that is given (first: the edit's first document change).
func (p *editPlan) addEdits(u string, version *int32, first bool, wire []wireTextEdit) error {
	path := uri.URI(u).FsPath()
	before, current, open, err := p.c.textFor(path)
	if err != nil {
		return err
	}
	if version != nil && open {
		check := versionCheck{version: *version, first: first}
		switch p.c.staleness(check, current) {
		case skipsEdit:
			return nil // "Buffer … newer than edits."
		case refusesEdit:
			return fmt.Errorf("%w: edit for version %d, buffer at %d", errVersion, *version, current)
		}
		p.checked[path] = check
	}
	if proposed, ok := p.proposed[path]; ok {
		before = proposed
	} else {
		p.order = append(p.order, path)
		p.e.Files = append(p.e.Files, FileEdit{Path: path, Before: before})
	}
	te := make([]workspace.TextEdit, len(wire))
	for i, x := range wire {
		te[i] = x.edit()
		if p.e.Annotated && x.AnnotationID == "" {
			p.e.Annotated = false
		}
	}
	after, err := p.c.applyText(before, te)
	if err != nil {
		return fmt.Errorf("applying edits to %s: %w", path, err)
	}
	p.edits[path] = append(p.edits[path], te)
	p.proposed[path] = after
	return nil
}

// apply puts the edit the user accepted into the buffers.
func (p *editPlan) apply(ctx context.Context, ans Answer) error {
	skip, err := p.staleNow()
	if err != nil {
		return err
	}
	for _, path := range p.order {
		if skip[path] {
			continue
		}
		text, err := p.textToPut(path, ans)
		if err != nil {
			return err
		}
		if err := p.c.put(ctx, path, text, p.created[path]); err != nil {
			return err
		}
	}
	for _, path := range p.deleted {
		if err := p.c.remove(ctx, path); err != nil {
			return err
		}
	}
	return nil
}

// staleNow checks the versions again: the document may have moved on
// while the user was looking at the edit. VS Code and Helix refuse the
// edit, Neovim skips the paths it returns.
func (p *editPlan) staleNow() (skip map[string]bool, err error) {
	skip = map[string]bool{}
	for path, check := range p.checked {
		current, open := p.c.bufferVersion(path)
		if !open {
			continue
		}
		switch p.c.staleness(check, current) {
		case skipsEdit:
			skip[path] = true
		case refusesEdit:
			return nil, fmt.Errorf("%s: %w: edit for version %d, buffer at %d", path, errVersion, check.version, current)
		}
	}
	return skip, nil
}

// bufferVersion is the version of path's buffer, if it is open.
func (c *Client) bufferVersion(path string) (int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, open := c.buffers[path]
	if !open {
		return 0, false
	}
	return b.version, true
}

// textToPut is path's text with the edit applied: the proposal (applied
// anew to the buffer as it is now for Neovim), or the user's own text if
// the answer has one.
func (p *editPlan) textToPut(path string, ans Answer) (string, error) {
	text := p.proposed[path]
	if p.c.Profile.VimLSP {
		now, _, _, err := p.c.textFor(path)
		for _, te := range p.edits[path] {
			if err == nil {
				now, err = p.c.applyText(now, te)
			}
		}
		if err != nil {
			return "", err
		}
		text = now
	}
	if t, ok := ans.Text[path]; ok {
		text = t
	}
	return text, nil
}

// applyText applies text edits the way the client does.
func (c *Client) applyText(text string, edits []workspace.TextEdit) (string, error) {
	if c.Profile.VimLSP {
		return applyAsNeovim(text, edits, c.Encoding())
	}
	return applyIndependently(text, edits, c.Encoding())
}

// versionCheck is the version a TextDocumentEdit was made for; first: it
// is the first of the edit's documentChanges.
type versionCheck struct {
	version int32
	first   bool
}

// What the client does with an edit made for another version than its
// buffer's.
const (
	appliesEdit = iota // the version is the buffer's, or not checked
	skipsEdit          // Neovim: skips it, answering applied all the same
	refusesEdit        // VS Code, Helix: refuses the whole edit
)

// staleness is what the client does with an edit made for check when
// its buffer is at version now.
func (c *Client) staleness(check versionCheck, now int32) int {
	switch {
	case now == check.version:
		return appliesEdit
	case !c.Profile.VimLSP:
		return refusesEdit
	case check.first && check.version > 0 && now > check.version:
		return skipsEdit
	default:
		return appliesEdit
	}
}

// textFor is the text an edit applies to: the open buffer and its version,
// else the text the editor loads from disk.
func (c *Client) textFor(path string) (text string, version int32, open bool, err error) {
	c.mu.Lock()
	b, open := c.buffers[path]
	if open {
		text, version = b.text, b.version
	}
	c.mu.Unlock()
	if open {
		return text, version, true, nil
	}
	text, err = c.load(path)
	return text, 0, false, err
}

// load is what a buffer holds when the editor opens path: the file (none
// is an empty one), except that Neovim holds an empty file as one empty
// line with its line break.
func (c *Client) load(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if len(data) == 0 && c.Profile.VimLSP {
		return "\n", nil
	}
	return string(data), nil
}

// remove deletes path as editors do for a DeleteFile: its buffer closed,
// then the file.
func (c *Client) remove(ctx context.Context, path string) error {
	c.mu.Lock()
	_, open := c.buffers[path]
	c.mu.Unlock()
	if open {
		if err := c.Close(ctx, path); err != nil {
			return err
		}
	}
	return os.Remove(path)
}

// put sets a buffer's text, opening it first (and creating the file for a
// CreateFile) the way editors load a file to apply an edit to it.
func (c *Client) put(ctx context.Context, path, text string, create bool) error {
	c.mu.Lock()
	_, open := c.buffers[path]
	c.mu.Unlock()
	if !open {
		if create {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				return err
			}
		}
		before, err := c.load(path)
		if err != nil {
			return err
		}
		if err := c.Open(ctx, path, before); err != nil {
			return err
		}
	}
	return c.Type(ctx, path, text)
}
