package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// newAgent returns an agent talking to srv through the real genai client.
// Retry waits are recorded instead of slept.
func newAgent(t *testing.T, srv *geminitest.Server, cfg agent.Config) (*agent.Agent, *sleeps) {
	t.Helper()
	return newAgentAt(t, srv.URL, cfg)
}

// newAgentAt is newAgent with the model API at baseURL.
func newAgentAt(t *testing.T, baseURL string, cfg agent.Config) (*agent.Agent, *sleeps) {
	t.Helper()
	cfg.Generator = auth.NewGenerator(auth.Auth{
		Type:    auth.GeminiAPIKey,
		Version: "test",
		Config: genai.ClientConfig{
			APIKey:      "test-key",
			Backend:     genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: baseURL},
		},
	})
	if cfg.Model == "" {
		cfg.Model = "gemini-test"
	}
	sl := &sleeps{}
	if cfg.Retry.Sleep == nil {
		cfg.Retry.Sleep = sl.sleep
	}
	if cfg.Retry.InitialDelay == 0 {
		cfg.Retry.InitialDelay = 10 * time.Millisecond
	}
	return agent.New(cfg), sl
}

// sleeps records the retry waits.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// events records what a prompt emitted.
type events []dialog.Event

func (e *events) emit(ev dialog.Event) { *e = append(*e, ev) }

// kinds are the names of e's kinds, in order ("TextEvent").
func (e events) kinds() []string {
	var ks []string
	for _, ev := range e {
		ks = append(ks, reflect.TypeOf(ev).Name())
	}
	return ks
}

// only is the events of e of kind E.
func only[E dialog.Event](e events) []E {
	var out []E
	for _, ev := range e {
		if ev, ok := ev.(E); ok {
			out = append(out, ev)
		}
	}
	return out
}

// byCall is e with each run of tool events, which calls running at once
// interleave, grouped by call in the order of ids (each call's own
// events keep their order): the events as they would come one call at
// a time.
func (e events) byCall(ids ...string) events {
	rank := func(ev dialog.Event) int {
		id := ""
		switch ev := ev.(type) {
		case dialog.ToolCallEvent:
			id = ev.Call.CallID
		case dialog.ToolResultEvent:
			id = ev.Result.CallID
		}
		return slices.Index(ids, id)
	}
	tool := func(ev dialog.Event) bool {
		switch ev.(type) {
		case dialog.ToolCallEvent, dialog.ToolResultEvent:
			return true
		}
		return false
	}
	out := slices.Clone(e)
	for lo := 0; lo < len(out); lo++ {
		hi := lo
		for hi < len(out) && tool(out[hi]) {
			hi++
		}
		slices.SortStableFunc(out[lo:hi], func(a, b dialog.Event) int { return rank(a) - rank(b) })
		lo = hi
	}
	return out
}

// responses returns the functionResponses in a request's last content.
func responses(t *testing.T, r geminitest.Request) []*genai.FunctionResponse {
	t.Helper()
	last := r.Contents[len(r.Contents)-1]
	var out []*genai.FunctionResponse
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// fakeTool is a tools.Tool whose calls are built by build.
type fakeTool struct {
	name  string
	build func(args map[string]any) (tools.Call, error)
}

func (f fakeTool) Name() string { return f.name }

// Annotations are those of the built-in tool the fake is named after (a
// fake read_file is read-only), none for another name.
func (f fakeTool) Annotations() tools.Annotations {
	for _, t := range tools.Builtin(tools.Options{Plan: tools.PlanOptions{Enabled: true}, Skills: &skills.Catalog{}}) {
		if t.Name() == f.name {
			return tools.AnnotationsOf(t)
		}
	}
	return tools.Annotations{}
}
func (f fakeTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:        f.name,
		Description: "fake " + f.name,
		Parameters: &genai.Schema{
			Type:       genai.TypeObject,
			Properties: map[string]*genai.Schema{"path": {Type: genai.TypeString}},
		},
	}
}
func (f fakeTool) Build(args map[string]any) (tools.Call, error) { return f.build(args) }

// fakeCall is a tools.Call running exec.
type fakeCall struct {
	title        string
	kind         dialog.Kind
	confirmation *tools.Confirmation
	exec         func(ctx context.Context) (tools.Result, error)
}

func (c fakeCall) Title() string                     { return c.title }
func (c fakeCall) Kind() dialog.Kind                 { return c.kind }
func (c fakeCall) Confirmation() *tools.Confirmation { return c.confirmation }
func (c fakeCall) Execute(ctx context.Context, _ tools.CallInfo) (tools.Result, error) {
	return c.exec(ctx)
}

// readTool needs a "path" and answers "contents of PATH".
func readTool() fakeTool {
	return fakeTool{name: "read_file", build: func(args map[string]any) (tools.Call, error) {
		path, ok := args["path"].(string)
		if !ok || path == "" {
			return nil, errors.New("params must have required property 'path'")
		}
		return fakeCall{title: "Read " + path, kind: dialog.KindRead, exec: func(context.Context) (tools.Result, error) {
			return tools.Result{Output: "contents of " + path, Display: "read " + path}, nil
		}}, nil
	}}
}

// shellTool is run_shell_command with its real confirmation (the tools
// package's reading of the command), recording the commands it would run
// instead of running them.
type shellTool struct {
	mu  sync.Mutex
	ran []string
}

func (s *shellTool) tool() fakeTool {
	return fakeTool{name: tools.ShellName, build: func(args map[string]any) (tools.Call, error) {
		ws, err := workspace.New([]string{os.TempDir()}, nil)
		if err != nil {
			return nil, err
		}
		shell, _ := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...).Get(tools.ShellName)
		real, err := shell.Build(args)
		if err != nil {
			return nil, err
		}
		cmd, _ := args["command"].(string)
		return fakeCall{
			title:        cmd,
			kind:         dialog.KindExecute,
			confirmation: real.Confirmation(),
			exec: func(context.Context) (tools.Result, error) {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.ran = append(s.ran, cmd)
				return tools.Result{Output: "ran " + cmd}, nil
			},
		}, nil
	}}
}

func (s *shellTool) commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ran...)
}

// confirmer answers with answer and records the requests.
type confirmer struct {
	mu     sync.Mutex
	reqs   []dialog.ConfirmRequest
	answer func(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error)
}

func (c *confirmer) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return c.answer(ctx, req)
}

func (c *confirmer) asked() []dialog.ConfirmRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]dialog.ConfirmRequest(nil), c.reqs...)
}

func always(o dialog.ConfirmOutcome) *confirmer {
	return &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) { return o, nil }}
}

func call(id, name string, args map[string]any) *genai.FunctionCall {
	return &genai.FunctionCall{ID: id, Name: name, Args: args}
}

func describe(c *genai.Content) string {
	return fmt.Sprintf("%s %s", c.Role, toJSON(c.Parts))
}
