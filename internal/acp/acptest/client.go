// Package acptest is an ACP client for tests: it starts `gemini-ls acp`
// (or serves in-process), records every session/update, answers
// permission requests by a policy, serves fs/read_text_file and
// fs/write_text_file from in-memory buffers over the disk, and runs
// terminals as an editor does (locally, output kept, exit reported). It
// records every line either side sends, and can answer the agent's
// requests with lines of the test's own (Config.Rewrite).
package acptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Answer picks the option a permission request is answered with: an
// option kind (allow_once, allow_always, reject_once), an option's id (a
// question's option), or Cancelled.
type Answer string

const (
	AllowOnce   Answer = "allow_once"
	AllowAlways Answer = "allow_always"
	RejectOnce  Answer = "reject_once"
	// Cancelled answers {outcome: "cancelled"}.
	Cancelled Answer = "cancelled"
	// Hold never answers: the request waits until it is cancelled.
	Hold Answer = "hold"
	// The folder trust question's answers, by the level each records.
	TrustFolder Answer = "TRUST_FOLDER"
	TrustParent Answer = "TRUST_PARENT"
	DontTrust   Answer = "DO_NOT_TRUST"
)

// Config is what the client declares and how it answers.
type Config struct {
	// ReadTextFile, WriteTextFile and Terminal are declared in initialize.
	ReadTextFile, WriteTextFile, Terminal bool
	// Answer answers permission requests; AllowOnce when nil.
	Answer func(sdk.RequestPermissionRequest) Answer
	// Trust answers the folder trust question, a permission request of
	// its own (TrustRequests), which Answer never sees: DontTrust when
	// nil, as a scripted user trusts no folder unless the test says so.
	Trust func(sdk.RequestPermissionRequest) Answer
	// Rewrite, when set, sees each answer the client is about to send to
	// a request of the agent's (method is the request's, answer the line
	// without its newline; the client has done what it answers, a write
	// landed say) and returns the line to send instead; nil sends nothing,
	// and the request is never answered.
	Rewrite func(method string, id json.RawMessage, answer []byte) []byte
}

// Client is the client side of one connection.
type Client struct {
	t    testing.TB
	Conn *sdk.ClientSideConnection
	cfg  Config

	mu sync.Mutex
	// Buffers are the editor's unsaved buffers by absolute path; reads see
	// them before the disk, and writes land in them.
	Buffers     map[string]string
	updates     []sdk.SessionNotification
	permissions []sdk.RequestPermissionRequest
	trusts      []sdk.RequestPermissionRequest
	trustCalls  []sdk.SessionNotification
	reads       []sdk.ReadTextFileRequest
	writes      []sdk.WriteTextFileRequest
	terminals   map[string]*Terminal
	nextTerm    int
	changed     chan struct{} // closed and replaced on every record
	// received and sent are the lines each side wrote, in order;
	// requested is the method of each request of the agent's, by id.
	received, sent []string
	requested      map[string]string

	writeMu sync.Mutex // one message at a time on w
	w       io.Writer
}

// New connects a client over r and w.
func New(t testing.TB, w io.Writer, r io.Reader, cfg Config) *Client {
	c := &Client{t: t, cfg: cfg, Buffers: map[string]string{}, terminals: map[string]*Terminal{}, changed: make(chan struct{}),
		requested: map[string]string{}, w: w}
	c.Conn = sdk.NewClientSideConnection(c, sender{c}, io.TeeReader(r, &lineSplitter{line: c.receive}))
	c.Conn.SetLogger(slog.New(slog.DiscardHandler))
	return c
}

// envelope is what the client reads of a line to record it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// receive records a line the agent wrote.
func (c *Client) receive(line []byte) {
	var e envelope
	_ = json.Unmarshal(line, &e)
	c.record(func() {
		c.received = append(c.received, string(line))
		if e.Method != "" && len(e.ID) > 0 {
			c.requested[string(e.ID)] = e.Method
		}
	})
}

// sender is the client's side of w: every message the SDK's connection
// writes, an answer rewritten by Config.Rewrite.
type sender struct{ c *Client }

func (s sender) Write(b []byte) (int, error) {
	c := s.c
	line := bytes.TrimSuffix(b, []byte("\n"))
	var e envelope
	if c.cfg.Rewrite != nil && json.Unmarshal(line, &e) == nil && e.Method == "" && len(e.ID) > 0 {
		c.mu.Lock()
		method := c.requested[string(e.ID)]
		c.mu.Unlock()
		line = c.cfg.Rewrite(method, e.ID, line)
		if line == nil {
			return len(b), nil
		}
	}
	if err := c.Send(string(line)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Send writes line, and a newline, to the agent as it is.
func (c *Client) Send(line string) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		return err
	}
	c.record(func() { c.sent = append(c.sent, line) })
	return nil
}

// Received returns the lines the agent wrote so far; Sent those the
// client wrote.
func (c *Client) Received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.received)
}

func (c *Client) Sent() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}

// lineSplitter calls line with each whole line written to it.
type lineSplitter struct {
	buf  []byte
	line func([]byte)
}

func (l *lineSplitter) Write(b []byte) (int, error) {
	n := len(b)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.buf = append(l.buf, b...)
			return n, nil
		}
		l.line(append(l.buf, b[:i]...))
		l.buf, b = nil, b[i+1:]
	}
}

// Initialize sends initialize with the configured capabilities.
func (c *Client) Initialize(ctx context.Context) (sdk.InitializeResponse, error) {
	return c.Conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo:      &sdk.Implementation{Name: "acptest", Version: "1"},
		ClientCapabilities: sdk.ClientCapabilities{
			Fs:       sdk.FileSystemCapabilities{ReadTextFile: c.cfg.ReadTextFile, WriteTextFile: c.cfg.WriteTextFile},
			Terminal: c.cfg.Terminal,
		},
	})
}

// waitPoll is how often Wait checks a condition the client's own changes
// do not wake it for.
const waitPoll = 20 * time.Millisecond

// record runs f under the lock and wakes waiters.
func (c *Client) record(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// Wait waits until cond holds; cond reads the client through its
// methods, or what else it likes (the fake model's requests): it is
// checked on every change of the client and, for what the client does not
// see change, every waitPoll.
func (c *Client) Wait(ctx context.Context, what string, cond func(*Client) bool) {
	c.t.Helper()
	poll := time.NewTicker(waitPoll)
	defer poll.Stop()
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if cond(c) {
			return
		}
		select {
		case <-ch:
		case <-poll.C:
		case <-ctx.Done():
			c.t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// Updates returns the session/updates received so far.
func (c *Client) Updates() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.updates)
}

// Permissions returns the permission requests received so far.
func (c *Client) Permissions() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.permissions)
}

// TrustRequests returns the folder trust questions received so far.
func (c *Client) TrustRequests() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.trusts)
}

// TrustCalls returns the session/updates that showed the folder trust
// questions' calls, which Updates leaves out.
func (c *Client) TrustCalls() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.trustCalls)
}

// isTrustQuestion reports whether p is the folder trust question: its
// options are the trust levels.
func isTrustQuestion(p sdk.RequestPermissionRequest) bool {
	return slices.ContainsFunc(p.Options, func(o sdk.PermissionOption) bool { return Answer(o.OptionId) == TrustFolder })
}

// Reads and Writes return the fs requests received so far.
func (c *Client) Reads() []sdk.ReadTextFileRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reads)
}

func (c *Client) Writes() []sdk.WriteTextFileRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.writes)
}

// Buffer returns the buffer at path, if the editor holds one.
func (c *Client) Buffer(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, ok := c.Buffers[path]
	return text, ok
}

// SetBuffer makes the editor hold text, unsaved, at path.
func (c *Client) SetBuffer(path, text string) {
	c.record(func() { c.Buffers[path] = text })
}

// MessageText is the agent_message_chunk text of a session, joined.
func (c *Client) MessageText(session sdk.SessionId) string {
	var s string
	for _, u := range c.Updates() {
		if u.SessionId == session && u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Content.Text != nil {
			s += u.Update.AgentMessageChunk.Content.Text.Text
		}
	}
	return s
}

// ToolCallUpdates are the tool_call_updates of call id, in order.
func (c *Client) ToolCallUpdates(id sdk.ToolCallId) []sdk.SessionToolCallUpdate {
	var out []sdk.SessionToolCallUpdate
	for _, u := range c.Updates() {
		if tc := u.Update.ToolCallUpdate; tc != nil && tc.ToolCallId == id {
			out = append(out, *tc)
		}
	}
	return out
}

// ToolCalls are the tool_call updates received, in order.
func (c *Client) ToolCalls() []sdk.SessionUpdateToolCall {
	var out []sdk.SessionUpdateToolCall
	for _, u := range c.Updates() {
		if tc := u.Update.ToolCall; tc != nil {
			out = append(out, *tc)
		}
	}
	return out
}

// SessionUpdate implements sdk.Client.
func (c *Client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if isTrustCall(n.Update) {
		// The trust question's own call, kept with the question.
		c.record(func() { c.trustCalls = append(c.trustCalls, n) })
		return nil
	}
	c.record(func() { c.updates = append(c.updates, n) })
	return nil
}

// isTrustCall reports whether u shows the folder trust question's call,
// which gemini-ls numbers "trust-N": tests of the model's calls count
// theirs without it.
func isTrustCall(u sdk.SessionUpdate) bool {
	switch {
	case u.ToolCall != nil:
		return strings.HasPrefix(string(u.ToolCall.ToolCallId), "trust-")
	case u.ToolCallUpdate != nil:
		return strings.HasPrefix(string(u.ToolCallUpdate.ToolCallId), "trust-")
	}
	return false
}

// RequestPermission implements sdk.Client.
func (c *Client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	answer := AllowOnce
	switch {
	case isTrustQuestion(p):
		c.record(func() { c.trusts = append(c.trusts, p) })
		answer = DontTrust
		if c.cfg.Trust != nil {
			answer = c.cfg.Trust(p)
		}
	default:
		c.record(func() { c.permissions = append(c.permissions, p) })
		if c.cfg.Answer != nil {
			answer = c.cfg.Answer(p)
		}
	}
	switch answer {
	case Hold:
		<-ctx.Done()
		return sdk.RequestPermissionResponse{}, ctx.Err()
	case Cancelled:
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	for _, o := range p.Options {
		if string(o.Kind) == string(answer) || string(o.OptionId) == string(answer) {
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: o.OptionId}}}, nil
		}
	}
	return sdk.RequestPermissionResponse{}, fmt.Errorf("no option of kind %s in %+v", answer, p.Options)
}

// ReadTextFile implements sdk.Client: the buffer, else the disk, from
// line (1-based) for limit lines.
func (c *Client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.record(func() { c.reads = append(c.reads, p) })
	if !c.cfg.ReadTextFile {
		return sdk.ReadTextFileResponse{}, errors.New("fs/read_text_file was not declared")
	}
	text, ok := c.Buffer(p.Path)
	if !ok {
		b, err := os.ReadFile(p.Path)
		if err != nil {
			return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
		}
		text = string(b)
	}
	return sdk.ReadTextFileResponse{Content: lines(text, p.Line, p.Limit)}, nil
}

// WriteTextFile implements sdk.Client: the text lands in the buffer.
func (c *Client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if !c.cfg.WriteTextFile {
		return sdk.WriteTextFileResponse{}, errors.New("fs/write_text_file was not declared")
	}
	c.record(func() {
		c.writes = append(c.writes, p)
		c.Buffers[p.Path] = p.Content
	})
	return sdk.WriteTextFileResponse{}, nil
}

func lines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	var all []string
	for len(text) > 0 {
		i := 0
		for i < len(text) && text[i] != '\n' {
			i++
		}
		if i < len(text) {
			i++
		}
		all = append(all, text[:i])
		text = text[i:]
	}
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(all))
	}
	end := len(all)
	if limit != nil {
		end = min(start+*limit, end)
	}
	out := ""
	for _, l := range all[start:end] {
		out += l
	}
	return out
}

// Terminal is one terminal/create the client ran.
type Terminal struct {
	ID       string
	Request  sdk.CreateTerminalRequest
	cmd      *exec.Cmd
	mu       sync.Mutex
	output   []byte
	done     chan struct{}
	exitCode *int
	signal   *string
	Killed   bool
	Released bool
}

// Write keeps the command's output.
func (t *Terminal) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.output = append(t.output, b...)
	return len(b), nil
}

// Terminals returns the terminals created so far.
func (c *Client) Terminals() []*Terminal {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Terminal, 0, len(c.terminals))
	for i := 1; i <= c.nextTerm; i++ {
		if t, ok := c.terminals[fmt.Sprintf("term-%d", i)]; ok {
			out = append(out, t)
		}
	}
	return out
}

// TerminalState is whether the terminal id was killed and released, read
// under the client's lock: what Wait's conditions read while the agent
// still acts on the terminal.
func (c *Client) TerminalState(id string) (killed, released bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.terminals[id]; ok {
		return t.Killed, t.Released
	}
	return false, false
}

// CreateTerminal implements sdk.Client: the command runs here, as an
// editor's terminal would run it.
func (c *Client) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if !c.cfg.Terminal {
		return sdk.CreateTerminalResponse{}, errors.New("terminal was not declared")
	}
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.Env = os.Environ()
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	t := &Terminal{Request: p, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t, t
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	go func() {
		err := cmd.Wait()
		t.mu.Lock()
		if ws, ok := cmd.ProcessState.Sys().(interface{ Signaled() bool }); ok && ws.Signaled() {
			t.signal = sdk.Ptr("SIGKILL")
		} else {
			code := cmd.ProcessState.ExitCode()
			t.exitCode = &code
		}
		_ = err
		t.mu.Unlock()
		close(t.done)
	}()
	c.record(func() {
		c.nextTerm++
		t.ID = fmt.Sprintf("term-%d", c.nextTerm)
		c.terminals[t.ID] = t
	})
	return sdk.CreateTerminalResponse{TerminalId: t.ID}, nil
}

func (c *Client) terminal(id string) (*Terminal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.terminals[id]
	if !ok || t.Released {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "no terminal " + id})
	}
	return t, nil
}

// TerminalOutput implements sdk.Client.
func (c *Client) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := sdk.TerminalOutputResponse{Output: string(t.output)}
	select {
	case <-t.done:
		out.ExitStatus = &sdk.TerminalExitStatus{ExitCode: t.exitCode, Signal: t.signal}
	default:
	}
	return out, nil
}

// WaitForTerminalExit implements sdk.Client.
func (c *Client) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.WaitForTerminalExitResponse{ExitCode: t.exitCode, Signal: t.signal}, nil
}

// KillTerminal implements sdk.Client.
func (c *Client) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	c.record(func() { t.Killed = true })
	return sdk.KillTerminalResponse{}, nil
}

// ReleaseTerminal implements sdk.Client: the command is killed if still
// running, and the terminal forgotten.
func (c *Client) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	select {
	case <-t.done:
	default:
		_ = t.cmd.Process.Kill()
		select {
		case <-t.done:
		case <-time.After(5 * time.Second):
		}
	}
	c.record(func() { t.Released = true })
	return sdk.ReleaseTerminalResponse{}, nil
}
