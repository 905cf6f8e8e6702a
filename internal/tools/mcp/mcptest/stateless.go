package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TasksExtension is the tasks extension of MCP 2026-07-28.
const TasksExtension = "io.modelcontextprotocol/tasks"

// ListingTTLMs is the ttlMs the stateless server gives its tools/list.
const ListingTTLMs = 1000

// StatelessServer is an MCP server of go-sdk v1.8 speaking the stateless
// 2026-07-28 revision over streamable HTTP (and 2025-11-25 to a client
// that initializes). Its tools:
//   - echo: echoes.
//   - deploy: asks where to deploy (input_required, an elicitation with
//     an enum), then deploys there.
//   - build: to a client that declares the tasks extension, runs as a
//     task: working, then input_required (confirm, a boolean), then
//     completed once confirmed and Finish called; otherwise builds at once.
//   - wait: to such a client, a task that never ends until cancelled;
//     otherwise it waits for the call's end.
//
// Its tools/list carries ttlMs ListingTTLMs, cacheScope private, and it
// declares no tools list_changed.
type StatelessServer struct {
	URL string

	*taskBook
	srv *sdk.Server

	mu        sync.Mutex
	methods   []string
	taskNames []string // Mcp-Name of each tasks/* request, with its taskId
}

// taskBook is a server's tasks: build and wait, run as tasks for a
// client that declares the extension, and tasks/get, tasks/update and
// tasks/cancel.
type taskBook struct {
	mu        sync.Mutex
	tasks     map[string]*serverTask
	seq       int
	finish    chan struct{}
	cancelled chan string   // taskIds cancelled
	closing   chan struct{} // the test is over: wait returns
}

func newTaskBook() *taskBook {
	return &taskBook{tasks: map[string]*serverTask{}, finish: make(chan struct{}), cancelled: make(chan string, 4), closing: make(chan struct{})}
}

// install offers build and wait on srv, and the task methods.
func (b *taskBook) install(srv *sdk.Server) error {
	srv.AddReceivingMiddleware(b.taskMiddleware)
	sdk.AddTool(srv, &sdk.Tool{Name: "build", Description: "Builds."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text("built at once"), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "wait", Description: "Waits."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-b.closing:
				return text("waited until the end"), nil, nil
			}
		})
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if err := sdk.AddReceivingCustomMethod(srv, m, b.taskMethod(m)); err != nil {
			return err
		}
	}
	return nil
}

type serverTask struct {
	id, tool, status, message string
	asked, confirmed          bool
	polls                     int
	result                    *sdk.CallToolResult
}

// NewStateless starts the server; it ends with the test. jsonResponse:
// it answers a POST with one JSON message, not an SSE stream.
func NewStateless(t testing.TB, jsonResponse bool) *StatelessServer {
	s := &StatelessServer{taskBook: newTaskBook()}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "stateless", Version: "1"}, &sdk.ServerOptions{
		// It says nothing when its tools change: its client lists them
		// again when the listing's ttlMs runs out.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		SetCacheable: func(_ context.Context, req sdk.Request, c *sdk.Cacheable) {
			if _, ok := req.GetParams().(*sdk.ListToolsParams); ok {
				c.TTLMs, c.CacheScope = ListingTTLMs, "private"
			}
		},
	})
	sdk.AddTool(s.srv, &sdk.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return text("stateless echo: " + a.Message), nil, nil
		})
	where := map[string]any{"type": "object", "properties": map[string]any{
		"env": map[string]any{"type": "string", "title": "Environment", "enum": []string{"staging", "production"}},
	}, "required": []string{"env"}}
	sdk.AddTool(s.srv, &sdk.Tool{Name: "deploy", Description: "Deploys, asking where."},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["where"].(*sdk.ElicitResult); ok {
				if r.Action != "accept" {
					return text("not deployed: " + r.Action), nil, nil
				}
				return text(fmt.Sprint("deployed to ", r.Content["env"])), nil, nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"where": &sdk.ElicitParams{Message: "Deploy where?", RequestedSchema: where}}}, nil, nil
		})
	if err := s.install(s.srv); err != nil {
		t.Fatal(err)
	}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonResponse})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(s.closing) }) // first: ts.Close waits for the handlers
	s.URL = ts.URL
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// note records the request's method, and a tasks/* request's Mcp-Name.
func (s *StatelessServer) note(r *http.Request) {
	if r.Body == nil {
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, err := jsonrpc.DecodeMessage(body)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods = append(s.methods, req.Method)
	var p struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(req.Params, &p) == nil && p.TaskID != "" {
		s.taskNames = append(s.taskNames, r.Header.Get("Mcp-Name")+"="+p.TaskID)
	}
}

// Methods are the JSON-RPC methods the server was sent, in order.
func (s *StatelessServer) Methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...)
}

// TaskNames are "MCP-NAME=TASKID" of each tasks/* request.
func (s *StatelessServer) TaskNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.taskNames...)
}

// Finish lets the build task complete once confirmed.
func (b *taskBook) Finish() { close(b.finish) }

// Cancelled is where the ids of tasks cancelled by tasks/cancel arrive.
func (b *taskBook) Cancelled() <-chan string { return b.cancelled }

// AddTool adds a tool, without telling anyone (a stateless server cannot):
// a client sees it when it lists the tools again.
func (s *StatelessServer) AddTool(name string) {
	sdk.AddTool(s.srv, &sdk.Tool{Name: name, Description: "Added later."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text(name + " here"), nil, nil
		})
}

// declaresTasks reports whether the request's per-request capabilities
// declare the tasks extension.
func declaresTasks(meta sdk.Meta) bool {
	b, _ := json.Marshal(meta["io.modelcontextprotocol/clientCapabilities"])
	var caps struct {
		Extensions map[string]any `json:"extensions"`
	}
	_ = json.Unmarshal(b, &caps)
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// taskMiddleware answers build and wait with a task, to a client that
// declares the extension (only to such a client, as the extension says).
func (s *taskBook) taskMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		p, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		if method != "tools/call" || !ok || p.Name != "build" && p.Name != "wait" || !declaresTasks(p.Meta) {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.seq++
		t := &serverTask{id: "task-" + strconv.Itoa(s.seq), tool: p.Name, status: "working", message: "queued"}
		s.tasks[t.id] = t
		return &createTaskResult{wireTask: t.wire()}, nil
	}
}

// wireTask is a Task as the extension sends it.
type wireTask struct {
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          *int                `json:"ttlMs"`
	PollIntervalMs int                 `json:"pollIntervalMs"`
	InputRequests  sdk.InputRequestMap `json:"inputRequests,omitempty"`
	Result         *sdk.CallToolResult `json:"result,omitempty"`
}

func (t *serverTask) wire() wireTask {
	w := wireTask{ResultType: "complete", TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: "2026-11-29T10:00:00Z", LastUpdatedAt: "2026-11-29T10:00:00Z", PollIntervalMs: 10, Result: t.result}
	if t.status == "input_required" {
		w.InputRequests = sdk.InputRequestMap{"confirm": &sdk.ElicitParams{Message: "Build now?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean", "title": "Go ahead"}}, "required": []string{"ok"},
		}}}
	}
	return w
}

type createTaskResult struct {
	sdk.ResultBase
	wireTask
}

func (r *createTaskResult) MarshalJSON() ([]byte, error) {
	w := r.wireTask
	w.ResultType = "task"
	return json.Marshal(w)
}

type taskParams struct {
	sdk.ParamsBase
	TaskID         string               `json:"taskId"`
	InputResponses sdk.InputResponseMap `json:"inputResponses,omitempty"`
}

type taskResult struct {
	sdk.ResultBase
	wireTask
}

func (r *taskResult) MarshalJSON() ([]byte, error) {
	if r.TaskID == "" {
		return []byte(`{"resultType":"complete"}`), nil
	}
	return json.Marshal(r.wireTask)
}

// taskMethod serves tasks/get, tasks/update or tasks/cancel.
func (s *taskBook) taskMethod(method string) func(context.Context, *sdk.ServerSession, *taskParams) (*taskResult, error) {
	return func(_ context.Context, _ *sdk.ServerSession, p *taskParams) (*taskResult, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		t, ok := s.tasks[p.TaskID]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
		}
		switch method {
		case "tasks/cancel":
			t.status, t.message = "cancelled", "cancelled by the client"
			select {
			case s.cancelled <- t.id:
			default:
			}
			return &taskResult{}, nil
		case "tasks/update":
			if r, ok := p.InputResponses["confirm"].(*sdk.ElicitResult); ok && t.status == "input_required" {
				t.confirmed = r.Action == "accept" && r.Content["ok"] == true
				t.status, t.message = "working", "building"
			}
			return &taskResult{}, nil
		}
		t.polls++
		if t.tool == "build" {
			s.advance(t)
		}
		return &taskResult{wireTask: t.wire()}, nil
	}
}

// advance moves the build task on: it asks at its second poll, and
// completes once confirmed and finished.
func (s *taskBook) advance(t *serverTask) {
	switch {
	case t.status == "working" && !t.asked && t.polls >= 2:
		t.asked = true
		t.status, t.message = "input_required", "waiting for a confirmation"
	case t.status == "working" && t.asked:
		select {
		case <-s.finish:
			t.status, t.message = "completed", "done"
			t.result = text(fmt.Sprintf("built (confirmed: %v)", t.confirmed))
		default:
		}
	}
}
