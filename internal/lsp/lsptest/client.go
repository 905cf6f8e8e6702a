package lsptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Message is a notification or request the server sent.
type Message struct {
	Method string
	Params json.RawMessage
}

// Client is a scripted editor connected to a gemini-ls server.
type Client struct {
	t       testing.TB
	conn    jsonrpc2.Conn
	stream  *stream
	Profile Profile

	// OnApplyEdit decides each workspace/applyEdit, as the user would;
	// Accept when nil.
	OnApplyEdit EditPolicy
	// OnShowMessageRequest picks the title of an action, "" to dismiss;
	// the first action when nil.
	OnShowMessageRequest func(message string, actions []string) string
	// OnConfirm answers gemini/confirm (plugin profile); proceed_once when nil.
	OnConfirm func(ctx context.Context, params json.RawMessage) string
	// OnAsk answers gemini/ask (plugin profile) with its result
	// ({chosen, text, declined}); the first option when nil.
	OnAsk func(ctx context.Context, params json.RawMessage) any
	// Lint is the editor's other language servers: the diagnostics they
	// report in the buffer of path holding text, which the client tells
	// gemini/diagnostics (Profile.Diagnostics). None when nil.
	Lint func(path, text string) []Diagnostic
	// Pending says the editor knows a language server has not yet
	// published diagnostics of the text the buffer of path holds now
	// (gemini/diagnostics' pending). Never when nil.
	Pending func(path string) bool
	// OnLanguageFeature is the editor's other language servers answering
	// gemini/languageFeature (Profile.LanguageFeatures): its result, or an
	// error such as jsonrpc2.NewError(-32001, …) for a file no server
	// answers. Every request is answered -32001 when nil.
	OnLanguageFeature func(ctx context.Context, params json.RawMessage) (any, error)
	// OnTrust answers the folder trust question, however it comes
	// (window/showMessageRequest, gemini/ask of kind "trust"), with the
	// label of an answer ("Trust folder", "Trust parent folder", "Don't
	// trust"), "" to dismiss it; dismissed when nil, as a scripted user
	// trusts no folder unless the test says so. OnShowMessageRequest and
	// OnAsk never see it.
	OnTrust func(message string) string

	mu       sync.Mutex
	calls    map[string]context.CancelFunc // the server's in-flight requests, for $/cancelRequest
	enc      workspace.Encoding
	buffers  map[string]*buffer
	messages []Message // notifications and requests from the server, in order
	nullIDs  [][]byte
	changed  chan struct{} // closed and replaced when messages grow
	// commands counts the client's workspace/executeCommand requests in
	// flight; held are the didChange params kept back meanwhile
	// (Profile.SyncWhenIdle).
	commands int
	held     []map[string]any
}

type buffer struct {
	uri     string
	version int32
	text    string
}

// New connects a client speaking profile over rwc. The connection closes
// when the test ends.
func New(t testing.TB, rwc io.ReadWriteCloser, profile Profile) *Client {
	c := &Client{t: t, Profile: profile, buffers: map[string]*buffer{}, calls: map[string]context.CancelFunc{}, changed: make(chan struct{})}
	c.stream = &stream{rwc: rwc, in: bufio.NewReader(rwc), onRaw: func(b []byte) {
		var r struct {
			ID *string `json:"id"`
		}
		_ = json.Unmarshal(b, &r)
		if r.ID == nil {
			c.mu.Lock()
			c.nullIDs = append(c.nullIDs, b)
			c.mu.Unlock()
			c.record(Message{Method: nullIDResponse, Params: b})
			return
		}
		c.record(Message{Method: rawResponse + *r.ID, Params: b})
	}}
	c.conn = jsonrpc2.NewConn(c.stream)
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		// A user still deciding gives up: Close waits for handlers.
		c.mu.Lock()
		for _, cancel := range c.calls {
			cancel()
		}
		c.mu.Unlock()
		_ = c.conn.Close()
	})
	return c
}

// Initialize sends initialize (with roots as workspaceFolders and opts as
// initializationOptions) and initialized. It returns the result.
func (c *Client) Initialize(ctx context.Context, roots []string, opts map[string]any) (map[string]any, error) {
	folders := make([]map[string]string, len(roots))
	for i, r := range roots {
		folders[i] = map[string]string{"uri": string(uri.File(r)), "name": filepath.Base(r)}
	}
	var rootURI any
	if len(roots) > 0 {
		rootURI = string(uri.File(roots[0]))
	}
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            c.Profile.ClientInfo,
		"rootUri":               rootURI,
		"workspaceFolders":      folders,
		"capabilities":          c.Profile.Capabilities,
		"initializationOptions": opts,
	}
	var res map[string]any
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return nil, err
	}
	caps, _ := res["capabilities"].(map[string]any)
	switch caps["positionEncoding"] {
	case "utf-8":
		c.enc = workspace.UTF8
	case "utf-32":
		c.enc = workspace.UTF32
	default:
		c.enc = workspace.UTF16
	}
	return res, c.Notify(ctx, "initialized", map[string]any{})
}

// Encoding is the position encoding the server chose.
func (c *Client) Encoding() workspace.Encoding {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc
}

// Call sends a request and decodes its result into result (may be nil).
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	if method == "workspace/executeCommand" && c.Profile.SyncWhenIdle {
		c.mu.Lock()
		c.commands++
		c.mu.Unlock()
		defer c.commandAnswered()
	}
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

// commandAnswered sends the changes held while the last command was in
// flight: the editor is idle again.
func (c *Client) commandAnswered() {
	c.mu.Lock()
	c.commands--
	var held []map[string]any
	if c.commands == 0 {
		held, c.held = c.held, nil
	}
	c.mu.Unlock()
	for _, params := range held {
		if err := c.Notify(context.Background(), "textDocument/didChange", params); err != nil {
			c.t.Logf("sending a held didChange: %v", err)
		}
	}
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// WriteRaw sends body as one frame, valid JSON-RPC or not.
func (c *Client) WriteRaw(body string) error { return c.stream.WriteFrame([]byte(body)) }

const (
	nullIDResponse = "(response with id null)"
	rawResponse    = "(response to) "
)

// RawCall sends a request with id "raw-"+id, whatever params holds, and
// returns without waiting; RawResponse waits for its answer.
func (c *Client) RawCall(id, method string, params any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "raw-" + id, "method": method, "params": params})
	if err != nil {
		return err
	}
	return c.WriteRaw(string(body))
}

// RawResponse waits for the response to RawCall(id, ...).
func (c *Client) RawResponse(ctx context.Context, id string) (json.RawMessage, error) {
	m, err := c.WaitMessage(ctx, rawResponse+"raw-"+id, nil)
	return m.Params, err
}

// NullIDResponses are the error responses with id null the server sent
// (answers to frames it could not parse).
func (c *Client) NullIDResponses() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]json.RawMessage, len(c.nullIDs))
	for i, b := range c.nullIDs {
		out[i] = b
	}
	return out
}

// Open opens path in the editor with text (not necessarily what is on disk).
func (c *Client) Open(ctx context.Context, path, text string) error {
	u := string(uri.File(path))
	version := int32(1)
	if c.Profile.VimLSP {
		version = 0
	}
	c.mu.Lock()
	c.buffers[path] = &buffer{uri: u, version: version, text: text}
	c.mu.Unlock()
	return c.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": languageID(path), "version": version, "text": text},
	})
}

// Type replaces the buffer's text with text the way a user's typing
// arrives: incremental didChange events, last range first. Under
// Profile.SyncWhenIdle they wait for the client's commands to be answered.
func (c *Client) Type(ctx context.Context, path, text string) error {
	c.mu.Lock()
	b, ok := c.buffers[path]
	if !ok {
		c.mu.Unlock()
		return fmt.Errorf("%s is not open", path)
	}
	params := c.changeLocked(b, text)
	hold := c.Profile.SyncWhenIdle && c.commands > 0
	if hold {
		c.held = append(c.held, params)
	}
	c.mu.Unlock()
	if hold {
		return nil
	}
	return c.Notify(ctx, "textDocument/didChange", params)
}

func (c *Client) changeLocked(b *buffer, text string) map[string]any {
	r, newText := typedChange(b.text, text, c.enc)
	b.text = text
	b.version++
	return map[string]any{
		"textDocument":   map[string]any{"uri": b.uri, "version": b.version},
		"contentChanges": []map[string]any{{"range": wireRange(r), "text": newText}},
	}
}

// Save writes the buffer to disk and sends didSave.
func (c *Client) Save(ctx context.Context, path string) error {
	c.mu.Lock()
	b, ok := c.buffers[path]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s is not open", path)
	}
	if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
		return err
	}
	return c.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
}

// Close closes the buffer.
func (c *Client) Close(ctx context.Context, path string) error {
	c.mu.Lock()
	b, ok := c.buffers[path]
	delete(c.buffers, path)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s is not open", path)
	}
	return c.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
}

// Buffer returns the editor's text for path and whether it is open.
func (c *Client) Buffer(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.buffers[path]
	if !ok {
		return "", false
	}
	return b.text, true
}

// Messages returns what the server sent with method ("" for all), in order.
func (c *Client) Messages(method string) []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Message
	for _, m := range c.messages {
		if method == "" || m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// WaitMessage waits until the server sent a message with method whose
// params satisfy match (nil matches any).
func (c *Client) WaitMessage(ctx context.Context, method string, match func(json.RawMessage) bool) (Message, error) {
	return c.WaitMessageAfter(ctx, method, 0, match)
}

// WaitMessageAfter is WaitMessage skipping the first skip messages with
// method: it waits for one sent after them.
func (c *Client) WaitMessageAfter(ctx context.Context, method string, skip int, match func(json.RawMessage) bool) (Message, error) {
	for {
		c.mu.Lock()
		ch := c.changed
		seen := 0
		for _, m := range c.messages {
			if m.Method != method {
				continue
			}
			seen++
			if seen > skip && (match == nil || match(m.Params)) {
				c.mu.Unlock()
				return m, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		}
	}
}

func (c *Client) record(m Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages = append(c.messages, m)
	close(c.changed)
	c.changed = make(chan struct{})
}

// handle answers the server's requests as the profile's editor would.
// Handlers get a context of the client's own, cancelled by the server's
// $/cancelRequest: jsonrpc2's pooled request context must not be derived from.
func (c *Client) handle(rq context.Context, req *jsonrpc2.Request) (any, error) {
	m := Message{Method: req.Method(), Params: append(json.RawMessage(nil), req.Params()...)}
	c.record(asRecorded(m))
	if !req.IsCall() {
		switch m.Method {
		case "$/cancelRequest", "gemini/cancelRequest":
			var p struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				c.cancelCall(m.Method, p.ID)
			}
		case "gemini/request":
			c.tunneled(m.Params)
		}
		return nil, nil
	}
	if c.Profile.RequestNotifications && waitsForUser(m.Method, m.Params) {
		c.t.Errorf("the server sent %s as a request to a client that takes it as gemini/request: Neovim would answer it at once", m.Method)
	}
	ctx, done := c.track("$/cancelRequest", fmt.Sprint(req.ID()))
	defer done()
	// The user may take their time: do not hold up the read loop.
	jsonrpc2.Async(rq)
	return c.answer(ctx, m.Method, m.Params)
}

// track registers a server request cancellable by the given notification.
func (c *Client) track(via, id string) (context.Context, func()) {
	key := via + " " + id
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.calls[key] = cancel
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		delete(c.calls, key)
		c.mu.Unlock()
		cancel()
	}
}

func (c *Client) cancelCall(via string, rawID json.RawMessage) {
	id := string(rawID)
	var str string
	if json.Unmarshal(rawID, &str) == nil {
		id = str
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cancel, ok := c.calls[via+" "+id]; ok {
		cancel()
	}
}

// waitsForUser reports whether a request is one the plugins ask the user about.
func waitsForUser(method string, params json.RawMessage) bool {
	switch method {
	case "gemini/confirm", "gemini/ask":
		return true
	case "workspace/applyEdit":
		var p wireEdit
		return json.Unmarshal(params, &p) == nil && p.annotated()
	}
	return false
}

// tunneled answers a gemini/request with a gemini/response, once the user
// has decided; gemini/cancelRequest withdraws it.
func (c *Client) tunneled(raw json.RawMessage) {
	var req struct {
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil || req.ID == "" || req.Method == "" {
		c.t.Errorf("malformed gemini/request %s: %v", raw, err)
		return
	}
	if !c.Profile.RequestNotifications {
		c.t.Errorf("gemini/request sent to a client that did not declare requestNotifications: %s", raw)
		return
	}
	// Helpers look requests up by method, however they came.
	c.record(asRecorded(Message{Method: req.Method, Params: req.Params}))
	ctx, done := c.track("gemini/cancelRequest", req.ID)
	go func() {
		defer done()
		result, err := c.answer(ctx, req.Method, req.Params)
		if ctx.Err() != nil {
			return // withdrawn: nobody waits for the answer
		}
		resp := map[string]any{"id": req.ID}
		if err != nil {
			resp["error"] = err
		} else {
			resp["result"] = result
		}
		if err := c.conn.Notify(context.Background(), "gemini/response", resp); err != nil {
			c.t.Logf("sending gemini/response: %v", err)
		}
	}()
}

// answer is what the user and the editor make of a server request: a
// request the client's profile does not declare is not found.
func (c *Client) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/applyEdit":
		return c.applyEdit(ctx, params)
	case "window/showMessageRequest":
		if c.Profile.ShowMessageRequest {
			return c.showMessageRequest(params)
		}
	case "gemini/confirm":
		if c.Profile.Custom {
			return c.confirm(ctx, params), nil
		}
	case "gemini/ask":
		if c.Profile.Custom {
			return c.ask(ctx, params)
		}
	case "gemini/diagnostics":
		if c.Profile.Diagnostics {
			return c.diagnostics(params)
		}
	case "gemini/languageFeature":
		if c.Profile.LanguageFeatures {
			return c.languageFeature(ctx, params)
		}
	case "window/showDocument":
		return map[string]bool{"success": true}, nil
	case "window/workDoneProgress/create":
		return nil, nil
	case "workspace/configuration":
		return []any{nil}, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
}

// showMessageRequest answers the trust question with OnTrust, any other
// with OnShowMessageRequest, or by default its first action.
func (c *Client) showMessageRequest(params json.RawMessage) (any, error) {
	var p struct {
		Message string `json:"message"`
		Actions []struct {
			Title string `json:"title"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	titles := make([]string, len(p.Actions))
	for i, a := range p.Actions {
		titles[i] = a.Title
	}
	choice := ""
	if slices.Equal(titles, trustAnswers) {
		if c.OnTrust != nil {
			choice = c.OnTrust(p.Message)
		}
	} else if c.OnShowMessageRequest != nil {
		choice = c.OnShowMessageRequest(p.Message, titles)
	} else if len(titles) > 0 {
		choice = titles[0]
	}
	if choice == "" {
		return nil, nil
	}
	return map[string]string{"title": choice}, nil
}

// confirm answers gemini/confirm with OnConfirm, or by default proceeds
// once.
func (c *Client) confirm(ctx context.Context, params json.RawMessage) map[string]string {
	outcome := "proceed_once"
	if c.OnConfirm != nil {
		outcome = c.OnConfirm(ctx, params)
	}
	return map[string]string{"outcome": outcome}
}

// ask answers gemini/ask: the folder trust question with OnTrust, any
// other with OnAsk, or by default its first option.
func (c *Client) ask(ctx context.Context, params json.RawMessage) (any, error) {
	if trust, ok := c.trustAsked(params); ok {
		return trust, nil
	}
	if c.OnAsk != nil {
		return c.OnAsk(ctx, params), nil
	}
	var p struct {
		Options []struct {
			ID string `json:"id"`
		} `json:"options"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Options) == 0 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("gemini/ask without options: %s", params))
	}
	return map[string]any{"chosen": []string{p.Options[0].ID}}, nil
}

// languageFeature answers with OnLanguageFeature, or as a client without
// a language server for the file.
func (c *Client) languageFeature(ctx context.Context, params json.RawMessage) (any, error) {
	if c.OnLanguageFeature == nil {
		return nil, jsonrpc2.NewError(-32001, "no language server for this file")
	}
	return c.OnLanguageFeature(ctx, params)
}

func languageID(path string) string {
	switch filepath.Ext(path) {
	case ".go":
		return "go"
	case ".md":
		return "markdown"
	case ".txt":
		return "plaintext"
	}
	return "plaintext"
}

func wireRange(r workspace.Range) map[string]any {
	return map[string]any{
		"start": map[string]int{"line": r.Start.Line, "character": r.Start.Character},
		"end":   map[string]int{"line": r.End.Line, "character": r.End.Character},
	}
}

// WaitIdle returns after no message arrived for quiet, or when ctx ends.
func (c *Client) WaitIdle(ctx context.Context, quiet time.Duration) {
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(quiet):
			return
		case <-ctx.Done():
			return
		}
	}
}

var errVersion = errors.New("version mismatch")

// TrustQuestion is what the client records the folder trust question
// as, whichever way it came (window/showMessageRequest, gemini/ask, either
// inside gemini/request), its params as they came: it is asked once, of
// every editor, and tests about other questions count theirs without it.
const TrustQuestion = "(folder trust question)"

// asRecorded is m as the client records it.
func asRecorded(m Message) Message {
	if isTrustQuestion(m.Method, m.Params) {
		m.Method = TrustQuestion
	}
	return m
}

// isTrustQuestion reports whether a message from the server is the
// folder trust question.
func isTrustQuestion(method string, params json.RawMessage) bool {
	var p struct {
		Kind    string `json:"kind"`
		Actions []struct {
			Title string `json:"title"`
		} `json:"actions"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	switch method {
	case "gemini/request":
		return isTrustQuestion(p.Method, p.Params)
	case "gemini/ask":
		return p.Kind == "trust"
	case "window/showMessageRequest":
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		return slices.Equal(titles, trustAnswers)
	}
	return false
}

// trustAnswers are the folder trust question's answers, in order.
var trustAnswers = []string{"Trust folder", "Trust parent folder", "Don't trust"}

// trustAsked answers a gemini/ask that is the folder trust question
// (OnTrust); ok is false for any other question.
func (c *Client) trustAsked(params json.RawMessage) (answer map[string]any, ok bool) {
	var p struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Text    string `json:"text"`
		Options []struct {
			ID    string `json:"id"`
			Label string `json:"label"`
		} `json:"options"`
	}
	if json.Unmarshal(params, &p) != nil || p.Kind != "trust" {
		return nil, false
	}
	label := ""
	if c.OnTrust != nil {
		label = c.OnTrust(p.Title + " " + p.Text)
	}
	for _, o := range p.Options {
		if o.Label == label {
			return map[string]any{"chosen": []string{o.ID}, "declined": false}, true
		}
	}
	return map[string]any{"declined": true}, true
}
