package completion

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/ctxtime"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Model streams a model's answer; auth's content generator is one.
type Model interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// Backend is what completions are asked of and how: the composition root
// makes it (setup), the front end hands it over and again after a
// settings change or a sign-in.
type Backend struct {
	// Model is nil when there are no credentials; Err then says why.
	Model    Model
	Err      error
	Settings settings.InlineCompletion
	// Project is the project's context (GEMINI.md), nil for none.
	Project func() string
}

// Trigger is how a completion was asked for.
type Trigger int

const (
	// Invoked: the user asked (a key); answered at once.
	Invoked Trigger = 1
	// Automatic: the editor asked as the user typed; debounced.
	Automatic Trigger = 2
)

// Request is one completion request.
type Request struct {
	Path string
	// Version is the document's version the request was made at, nil for
	// the current one: a request for a version that has moved on is
	// answered with nothing, as its position may not be where it was.
	Version  *int32
	Position workspace.Position
	Encoding workspace.Encoding
	Trigger  Trigger
	// Selected is the item selected in the editor's completion menu, if
	// one is: the suggestion then starts with it.
	Selected *Selected
	// Diagnostics are the editor's diagnostics for the document; those
	// near the cursor go in the prompt.
	Diagnostics []Diagnostic
}

// Selected is the completion menu's selected item: the range it replaces
// and its text.
type Selected struct {
	Range workspace.Range
	Text  string
}

// Diagnostic is one of the editor's diagnostics.
type Diagnostic struct {
	Line     int
	Severity string
	Message  string
}

// Suggestion is a completion: Text replaces Range (on one line).
type Suggestion struct {
	ID    string
	Text  string
	Range workspace.Range
}

// Config configures an Engine.
type Config struct {
	Workspace *workspace.Workspace
	Documents *workspace.Documents
	Logger    *zap.Logger
}

// Engine answers completion and next edit requests for one front end.
type Engine struct {
	ws   *workspace.Workspace
	docs *workspace.Documents
	log  *zap.Logger

	backendMu sync.Mutex
	backend   Backend

	history history
	viewed  viewed
	rhythm  rhythm
	cache   cache
	flights flights
	// predictions are the next edits foreseen and not yet answered.
	predictions predictions
	private     privacy
	counts      counts
	ids         atomic.Uint64
}

// New returns an engine with no backend: it answers nothing until
// SetBackend.
func New(cfg Config) *Engine {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	e := &Engine{ws: cfg.Workspace, docs: cfg.Documents, log: cfg.Logger}
	e.backend.Err = errors.New("completion is not set up yet")
	e.private.ws = cfg.Workspace
	return e
}

// SetBackend puts b in place of the backend before.
func (e *Engine) SetBackend(b Backend) {
	e.backendMu.Lock()
	defer e.backendMu.Unlock()
	e.backend = b
	e.private.setExclude(b.Settings.Exclude)
}

func (e *Engine) currentBackend() Backend {
	e.backendMu.Lock()
	defer e.backendMu.Unlock()
	return e.backend
}

// Changed records a document's change from before to after, for the
// recent edits the prompts show and next edit predicts from.
func (e *Engine) Changed(path, before, after string) {
	now := time.Now()
	e.history.record(path, before, after, now)
	e.rhythm.key(now)
}

// Focused records that the user is looking at the document at path.
func (e *Engine) Focused(path string) { e.viewed.focus(path) }

// Closed forgets what was kept for the document at path.
func (e *Engine) Closed(path string) {
	e.cache.forget(path)
	e.predictions.forget(path)
	e.private.forget(path)
}

// ErrNoModel wraps why a request could not be sent.
var ErrNoModel = errors.New("completion has no model")

// Complete answers req with at most one suggestion; none when completion
// is off, the file is private, the model has nothing to add or the
// document changed while it was asked.
func (e *Engine) Complete(ctx context.Context, req Request) ([]Suggestion, error) {
	e.counts.requests.Add(1)
	b := e.currentBackend()
	doc, ok := e.docs.Get(req.Path)
	if !ok {
		return nil, fmt.Errorf("completing %s: the document is not open", req.Path)
	}
	if !b.Settings.On(doc.LanguageID) {
		return nil, nil
	}
	if req.Version != nil && *req.Version != doc.Version {
		e.counts.stale.Add(1)
		e.flights.supersede(doc.Path)
		return nil, nil // typed on since: the next request is on its way
	}
	if e.private.isPrivate(ctx, doc.Path) {
		e.counts.private.Add(1)
		return nil, nil
	}
	cutStart := time.Now()
	w := cut(doc.Text, req.Position, req.Encoding, req.Selected)
	cutTime := time.Since(cutStart)
	if s, ok := e.cache.typedThrough(doc.Path, w); ok {
		return e.fromCache(doc, w, s), nil
	}
	key := w.key(doc.Path)
	if s, ok := e.cache.lookup(key); ok {
		e.cache.remember(doc.Path, w, s)
		return e.fromCache(doc, w, s), nil
	}
	if b.Model == nil {
		return nil, fmt.Errorf("%w: %v", ErrNoModel, b.Err)
	}
	ctx, done, err := e.flights.begin(ctx, doc.Path)
	if err != nil {
		return nil, nil // superseded before it began
	}
	defer done()
	if req.Trigger != Invoked {
		if d := e.debounce(b); d > 0 && ctxtime.Sleep(ctx, d) != nil {
			e.counts.debounced.Add(1)
			return nil, nil
		}
	}
	assembly := time.Now()
	prompt := e.prompt(ctx, doc, w, req, b)
	e.counts.assembly.add(cutTime + time.Since(assembly))
	e.counts.modelCalls.Add(1)
	raw, err := e.generate(ctx, b, completionSystem, prompt, completionBudget, w.midLine())
	if err != nil {
		if ctx.Err() != nil {
			e.counts.cancelled.Add(1)
			return nil, nil
		}
		return nil, fmt.Errorf("completing %s: %w", doc.Path, err)
	}
	if e.changedSince(doc) {
		return nil, nil
	}
	text := clean(raw, w)
	e.cache.store(key, text)
	if text == "" {
		return nil, nil
	}
	e.cache.remember(doc.Path, w, text)
	return e.answer(w, text), nil
}

// debounce is how long an Automatic request waits: the settings'
// debounceMs when they set it, else as the user's typing rhythm says.
func (e *Engine) debounce(b Backend) time.Duration {
	if d, set := b.Settings.Debounce(); set {
		return d
	}
	return e.rhythm.debounce()
}

// fromCache answers with text, found in the cache for doc at w: the
// request before it, still asking the model, is superseded as any new
// request supersedes it; and the answer is given only if doc is still the
// document's text.
func (e *Engine) fromCache(doc workspace.Document, w window, text string) []Suggestion {
	e.flights.supersede(doc.Path)
	if e.changedSince(doc) {
		return nil
	}
	e.counts.cacheHits.Add(1)
	return e.answer(w, text)
}

// changedSince reports, and counts as stale, that the document is no
// longer doc: an answer made from doc is not to be given.
func (e *Engine) changedSince(doc workspace.Document) bool {
	now, ok := e.docs.Get(doc.Path)
	if ok && now.Version == doc.Version && now.Text == doc.Text {
		return false
	}
	e.counts.stale.Add(1)
	return true
}

// answer is the suggestion of text at w's cursor: with a selected menu
// item, its range and text come first.
func (e *Engine) answer(w window, text string) []Suggestion {
	id := "gemini-" + strconv.FormatUint(e.ids.Add(1), 10)
	r := workspace.Range{Start: w.cursor, End: w.cursor}
	if w.selected != nil {
		r = w.selected.Range
		text = w.selected.Text + text
	}
	return []Suggestion{{ID: id, Text: text, Range: r}}
}
