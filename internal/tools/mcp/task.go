package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tasks extension of MCP 2026-07-28 (io.modelcontextprotocol/tasks):
// a server may answer tools/call with a task, which the client polls with
// tasks/get, feeds input with tasks/update and cancels with tasks/cancel.
// go-sdk v1.8 speaks the revision but not the extension: it calls the
// methods as custom ones, and a tools/call's task, which it would decode
// as an empty CallToolResult, is carried to the call in the result's
// _meta under taskMetaKey by the connection (taskRewriter), the one place
// that reads the result whole.
const (
	tasksExtension = "io.modelcontextprotocol/tasks"
	methodTasksGet = "tasks/get"
	methodTasksUpd = "tasks/update"
	methodTasksCan = "tasks/cancel"
	// taskMetaKey is where a tools/call's CreateTaskResult reaches the
	// call; a server's own _meta entry of that name is dropped.
	taskMetaKey = "gemini-ls/task"
)

// Polling bounds: a server's pollIntervalMs is honoured within them; a
// task that names none is polled every defaultPoll.
const (
	minPoll     = 50 * time.Millisecond
	maxPoll     = 30 * time.Second
	defaultPoll = time.Second
	// cancelWait bounds the tasks/cancel sent for a cancelled call.
	cancelWait = 5 * time.Second
)

// task is a Task of the extension, with what tasks/get inlines.
type task struct {
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	PollIntervalMs *int64              `json:"pollIntervalMs,omitempty"`
	InputRequests  sdk.InputRequestMap `json:"inputRequests,omitempty"`
	Result         json.RawMessage     `json:"result,omitempty"`
	Error          *jsonrpc.Error      `json:"error,omitempty"`
}

// taskParams are tasks/get's and tasks/cancel's, and tasks/update's with
// its responses.
type taskParams struct {
	sdk.ParamsBase
	TaskID         string               `json:"taskId"`
	InputResponses sdk.InputResponseMap `json:"inputResponses,omitempty"`
}

// taskResult is tasks/get's answer (tasks/update's and tasks/cancel's
// are empty).
type taskResult struct {
	sdk.ResultBase
	task
}

// addTaskMethods lets client send the extension's methods.
func addTaskMethods(client *sdk.Client) {
	for _, m := range []string{methodTasksGet, methodTasksUpd, methodTasksCan} {
		// Only a standard method's name is refused, and these are not.
		_ = sdk.AddSendingCustomMethod[*taskParams, *taskResult](client, m)
	}
}

// taskOf is the task a tools/call was answered with, if it was.
func taskOf(res *sdk.CallToolResult) (*task, error) {
	raw, ok := res.Meta[taskMetaKey]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var t task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("reading the task the server answered with: %w", err)
	}
	if t.TaskID == "" {
		return nil, errors.New("the server answered with a task without a taskId")
	}
	return &t, nil
}

// followTask polls t until it ends, putting its questions to the user and
// telling them how it goes (progress); when ctx ends first (the turn was
// cancelled, or the server's timeout), the task is cancelled on the
// server.
func (c *call) followTask(ctx context.Context, t *task, progress func(string)) (*sdk.CallToolResult, error) {
	s, session := c.tool.server, c.tool.session
	answered := map[string]bool{}
	shown := ""
	for {
		if says := taskProgress(c.tool.remote.Name, s.alias, t); says != shown && progress != nil {
			progress(says)
			shown = says
		}
		switch t.Status {
		case "completed":
			var res sdk.CallToolResult
			if err := json.Unmarshal(t.Result, &res); err != nil {
				return nil, fmt.Errorf("reading the result of task %s: %w", t.TaskID, err)
			}
			return &res, nil
		case "failed":
			if t.Error != nil {
				return nil, fmt.Errorf("the server's task %s failed: %w", t.TaskID, t.Error)
			}
			return nil, fmt.Errorf("the server's task %s failed: %s", t.TaskID, t.StatusMessage)
		case "cancelled":
			return nil, fmt.Errorf("the server cancelled task %s: %s", t.TaskID, t.StatusMessage)
		case "input_required":
			if err := c.answerTask(ctx, t, answered); err != nil {
				return nil, c.cancelTask(ctx, t, err)
			}
		}
		select {
		case <-ctx.Done():
			return nil, c.cancelTask(ctx, t, ctx.Err())
		case <-time.After(pollInterval(t)):
		}
		next, err := sdk.CallCustomMethod[*taskParams, *taskResult](ctx, session, methodTasksGet, &taskParams{TaskID: t.TaskID})
		if err != nil {
			if ctx.Err() != nil {
				return nil, c.cancelTask(ctx, t, ctx.Err())
			}
			return nil, fmt.Errorf("polling task %s: %w", t.TaskID, err)
		}
		t = &next.task
	}
}

// taskProgress is what the user is told of t.
func taskProgress(tool, server string, t *task) string {
	says := fmt.Sprintf("MCP tool %q of server %q runs as task %s: %s", tool, server, t.TaskID, t.Status)
	if t.StatusMessage != "" {
		says += ": " + t.StatusMessage
	}
	return says
}

// answerTask puts the task's questions not answered yet to the user and
// sends the answers (tasks/update); a key is answered once, as the
// extension asks.
func (c *call) answerTask(ctx context.Context, t *task, answered map[string]bool) error {
	responses := sdk.InputResponseMap{}
	// In the order of their keys, so that a user is asked in an order
	// that does not change between polls.
	for _, key := range slices.Sorted(maps.Keys(t.InputRequests)) {
		req := t.InputRequests[key]
		if answered[key] {
			continue
		}
		p, ok := req.(*sdk.ElicitParams)
		if !ok {
			return fmt.Errorf("task %s asks for %T, which gemini-ls does not answer", t.TaskID, req)
		}
		res, err := c.tool.server.elicit(ctx, p)
		if err != nil {
			return err
		}
		responses[key] = res
		answered[key] = true
	}
	if len(responses) == 0 {
		return nil
	}
	_, err := sdk.CallCustomMethod[*taskParams, *taskResult](ctx, c.tool.session, methodTasksUpd, &taskParams{TaskID: t.TaskID, InputResponses: responses})
	if err != nil {
		return fmt.Errorf("answering task %s: %w", t.TaskID, err)
	}
	return nil
}

// cancelTask asks the server to cancel t (ctx has ended, or the task could
// not go on) and returns why, saying whether the server heard.
func (c *call) cancelTask(ctx context.Context, t *task, why error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
	defer cancel()
	if _, err := sdk.CallCustomMethod[*taskParams, *taskResult](ctx, c.tool.session, methodTasksCan, &taskParams{TaskID: t.TaskID}); err != nil {
		return fmt.Errorf("%w; cancelling task %s on the server failed: %v", why, t.TaskID, err)
	}
	return fmt.Errorf("%w; task %s was cancelled on the server", why, t.TaskID)
}

// pollInterval is the server's pollIntervalMs, within the bounds.
func pollInterval(t *task) time.Duration {
	if t.PollIntervalMs == nil {
		return defaultPoll
	}
	return min(max(time.Duration(*t.PollIntervalMs)*time.Millisecond, minPoll), maxPoll)
}

// rewriteTaskResult is a tools/call's response with a CreateTaskResult
// (resultType "task") made a complete, empty CallToolResult carrying the
// task under taskMetaKey; any other response is returned as it came, less
// a taskMetaKey the server wrote itself.
func rewriteTaskResult(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || len(resp.Result) == 0 {
		return msg
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(resp.Result, &fields) != nil {
		return msg
	}
	var kind string
	_ = json.Unmarshal(fields["resultType"], &kind)
	var out any
	switch {
	case kind == "task":
		out = map[string]any{"resultType": "complete", "content": []any{}, "_meta": map[string]json.RawMessage{taskMetaKey: resp.Result}}
	case fields["_meta"] != nil:
		var meta map[string]json.RawMessage
		if json.Unmarshal(fields["_meta"], &meta) != nil || meta[taskMetaKey] == nil {
			return msg
		}
		delete(meta, taskMetaKey)
		fields["_meta"], _ = json.Marshal(meta)
		out = fields
	default:
		return msg
	}
	b, err := json.Marshal(out)
	if err != nil {
		return msg
	}
	return &jsonrpc.Response{ID: resp.ID, Result: b, Error: resp.Error}
}

// taskTransport, under a remote server's HTTP client, reads each
// tools/call's answer for a task (rewriteTaskResult), and names the task
// of a tasks/* request in its Mcp-Name header, as the extension asks of
// streamable HTTP.
type taskTransport struct{ base http.RoundTripper }

func (t *taskTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	var call struct {
		Method string `json:"method"`
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &call)
	switch call.Method {
	case methodTasksGet, methodTasksUpd, methodTasksCan:
		req.Header.Set("Mcp-Name", call.Params.TaskID)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || call.Method != "tools/call" {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		resp.Body = &rewrittenJSON{body: resp.Body}
	case "text/event-stream":
		resp.Body = &rewrittenEvents{body: resp.Body, lines: newLines(resp.Body)}
	}
	return resp, nil
}

// rewrittenJSON is a JSON answer, rewritten once read whole.
type rewrittenJSON struct {
	body io.ReadCloser
	out  *bytes.Reader
	err  error
}

func (r *rewrittenJSON) Read(p []byte) (int, error) {
	if r.out == nil && r.err == nil {
		var data []byte
		data, r.err = io.ReadAll(r.body)
		r.out = bytes.NewReader(rewriteData(data))
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.out.Read(p)
}

func (r *rewrittenJSON) Close() error { return r.body.Close() }

// rewriteData is a JSON-RPC message's bytes rewritten; others as they are.
func rewriteData(data []byte) []byte {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return data
	}
	out := rewriteTaskResult(msg)
	if out == msg {
		return data
	}
	b, err := jsonrpc.EncodeMessage(out)
	if err != nil {
		return data
	}
	return b
}

// rewrittenEvents is an SSE stream whose events' data is rewritten, one
// event at a time (the body under it bounds each).
type rewrittenEvents struct {
	body  io.ReadCloser
	lines *bufio.Reader
	event [][]byte // the lines of the event so far
	out   bytes.Buffer
	err   error
}

func (r *rewrittenEvents) Read(p []byte) (int, error) {
	for r.out.Len() == 0 && r.err == nil {
		line, err := r.lines.ReadBytes('\n')
		if len(line) > 0 {
			r.event = append(r.event, line)
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				r.flush()
			}
		}
		if err != nil {
			r.flush()
			r.err = err
		}
	}
	if r.out.Len() > 0 {
		return r.out.Read(p)
	}
	return 0, r.err
}

// flush writes the event read so far, its data rewritten.
func (r *rewrittenEvents) flush() {
	var data [][]byte
	for _, line := range r.event {
		if v, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	if len(data) == 0 {
		for _, line := range r.event {
			r.out.Write(line)
		}
		r.event = r.event[:0]
		return
	}
	joined := bytes.Join(data, []byte("\n"))
	rewritten := rewriteData(joined)
	wrote := false
	for _, line := range r.event {
		if !bytes.HasPrefix(line, []byte("data:")) {
			r.out.Write(line)
			continue
		}
		if bytes.Equal(rewritten, joined) {
			r.out.Write(line)
		} else if !wrote {
			// Encoded JSON holds no newline: one data line.
			r.out.WriteString("data: ")
			r.out.Write(rewritten)
			r.out.WriteByte('\n')
			wrote = true
		}
	}
	r.event = r.event[:0]
}

func (r *rewrittenEvents) Close() error { return r.body.Close() }

// newLines reads body line by line.
func newLines(body io.Reader) *bufio.Reader { return bufio.NewReader(body) }

// taskCalls are the ids of a stdio connection's tools/calls awaiting
// their answer, whose answers are read for a task.
type taskCalls struct {
	mu  sync.Mutex
	ids map[jsonrpc.ID]bool
}

func (c *taskCalls) sent(msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/call" {
		c.mu.Lock()
		if c.ids == nil {
			c.ids = map[jsonrpc.ID]bool{}
		}
		c.ids[req.ID] = true
		c.mu.Unlock()
	}
}

func (c *taskCalls) received(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return msg
	}
	c.mu.Lock()
	mine := c.ids[resp.ID]
	delete(c.ids, resp.ID)
	c.mu.Unlock()
	if !mine {
		return msg
	}
	return rewriteTaskResult(msg)
}

// Write notes a tools/call, whose answer Read rewrites.
func (c watchingConnection) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.calls.sent(msg)
	return c.Connection.Write(ctx, msg)
}
