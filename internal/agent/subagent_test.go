package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// catalog is an AgentCatalog of fixed definitions.
type catalog []subagents.Definition

func (c catalog) Lookup(name string) (subagents.Definition, bool) {
	for _, d := range c {
		if d.Name == name {
			return d, true
		}
	}
	return subagents.Definition{}, false
}

func (c catalog) Active() []subagents.Definition { return c }

// investigator is a local agent that may only read and search.
func investigator() subagents.Definition {
	return subagents.Definition{
		Name:         "investigator",
		Description:  "Reads code to answer questions.",
		Kind:         subagents.Local,
		Input:        subagents.InputParam{Name: "objective"},
		SystemPrompt: "You investigate ${objective} for gemini-ls ${cliVersion} on ${activeModel}.",
		Query:        "Investigate: ${objective}",
		Model:        "sub-model",
		Tools:        []string{tools.ReadFileName, tools.GrepSearchName},
	}
}

// realTools are the built-in tools over a workspace at a new directory
// holding a.txt.
func realTools(t *testing.T) (*tools.Registry, *workspace.Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...), ws, root
}

func invoke(id, name, prompt string) *genai.FunctionCall {
	return call(id, tools.InvokeAgentName, map[string]any{"agent_name": name, "prompt": prompt})
}

func offeredNames(r geminitest.Request) []string {
	var names []string
	for _, tl := range r.Tools {
		for _, d := range tl.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

func systemText(r geminitest.Request) string {
	if r.SystemInstruction == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.SystemInstruction.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// A subagent runs apart: its requests carry its own system instruction
// (the templates filled), its own first message, its model and only its
// tools and complete_task, none of the main history; its events are
// marked as its run's; the main history gets the invoke_agent call and
// the report alone; its requests count in the session's stats under its
// model.
func TestSubagentRunsApartAndReports(t *testing.T) {
	reg, ws, root := realTools(t)
	path := filepath.Join(root, "a.txt")
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "where is alpha")),
		geminitest.CallTurn(call("r1", tools.ReadFileName, map[string]any{"file_path": path})),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "alpha is in a.txt"})),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Agents: catalog{investigator()}, Version: "9.9.9"})
	s := a.NewSession()
	res, seen := promptShown(t, s, "find alpha")
	var evs events
	for _, e := range seen {
		evs.emit(e.ev)
	}
	if res.StopReason != dialog.StopEndTurn || res.Text != "done" {
		t.Fatalf("result %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	main, sub1, sub2, last := reqs[0], reqs[1], reqs[2], reqs[3]

	if !slices.Contains(offeredNames(main), tools.InvokeAgentName) || !strings.Contains(systemText(main), "<name>investigator</name>") {
		t.Errorf("the main agent was not offered the subagent: tools %v", offeredNames(main))
	}
	if sub1.Model != "sub-model" || sub2.Model != "sub-model" {
		t.Errorf("subagent models %q %q", sub1.Model, sub2.Model)
	}
	if got := offeredNames(sub1); !slices.Equal(got, []string{tools.ReadFileName, tools.GrepSearchName, tools.CompleteTaskName}) {
		t.Errorf("subagent tools %v", got)
	}
	sys := systemText(sub1)
	if !strings.HasPrefix(sys, "You investigate where is alpha for gemini-ls 9.9.9 on gemini-test.") || !strings.Contains(sys, "Important Rules:") || strings.Contains(sys, "Available Sub-Agents") {
		t.Errorf("subagent system instruction:\n%s", sys)
	}
	if len(sub1.Contents) != 1 || sub1.Contents[0].Parts[0].Text != "Investigate: where is alpha" {
		t.Errorf("subagent's first request: %s", toJSON(sub1.Contents))
	}
	if fr := responses(t, sub2); len(fr) != 1 || !strings.Contains(toJSON(fr[0].Response), "alpha") {
		t.Errorf("subagent's read: %s", toJSON(fr))
	}

	if len(last.Contents) != 3 {
		t.Fatalf("main history: %s", toJSON(last.Contents))
	}
	if fc := last.Contents[1].Parts[0].FunctionCall; fc == nil || fc.Name != tools.InvokeAgentName {
		t.Errorf("main history's model turn: %s", describe(last.Contents[1]))
	}
	want := "Subagent 'investigator' finished.\nTermination Reason: GOAL\nResult:\nalpha is in a.txt"
	if fr := responses(t, last); len(fr) != 1 || fr[0].Response["output"] != want {
		t.Errorf("report: %s", toJSON(fr))
	}
	if strings.Contains(toJSON(last.Contents), tools.ReadFileName) {
		t.Errorf("the main history holds the subagent's read: %s", toJSON(last.Contents))
	}

	for _, e := range seen {
		call, ok := e.ev.(dialog.ToolCallEvent)
		if !ok {
			continue
		}
		wantTag := dialog.Subagent{CallID: "inv1", Name: "investigator"}
		if call.Call.Name == tools.InvokeAgentName {
			wantTag = dialog.Subagent{}
		}
		if e.from != wantTag {
			t.Errorf("%s's event came from %+v, want %+v", call.Call.Name, e.from, wantTag)
		}
	}
	if n := len(only[dialog.ToolCallEvent](evs)); n != 3 {
		t.Errorf("%d tool call events: %v", n, evs.kinds())
	}
	stats := s.Stats()
	if stats.Models["sub-model"].Requests != 2 || stats.Models["gemini-test"].Requests != 2 {
		t.Errorf("stats %+v", stats.Models)
	}
	if stats.Tools[tools.ReadFileName].Calls != 1 {
		t.Errorf("tool stats %+v", stats.Tools)
	}
}

// Without an enabled agent, invoke_agent is not offered, nor are agents
// listed; an unknown agent is an error the model can act on.
func TestInvokeAgentOfferedOnlyWithAgents(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), Agents: catalog{}})
	prompt(t, a.NewSession(), "hi")
	r := srv.Requests()[0]
	if slices.Contains(offeredNames(r), tools.InvokeAgentName) || strings.Contains(systemText(r), "Sub-Agents") {
		t.Errorf("offered with no agent: %v", offeredNames(r))
	}

	srv = geminitest.NewTestServer(t, geminitest.CallTurn(invoke("i1", "nobody", "x")), geminitest.TextTurn("ok"))
	a, _ = newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), Agents: catalog{investigator()}})
	prompt(t, a.NewSession(), "hi")
	if fr := responses(t, srv.Requests()[1]); len(fr) != 1 || fr[0].Response["error"] != "Subagent 'nobody' not found." {
		t.Errorf("unknown agent: %s", toJSON(fr))
	}
}

// A subagent limited to read_file and grep_search is not told of
// write_file, and its call of it is refused in 0.61's words; nothing is
// written.
func TestSubagentCannotCallToolsItWasNotGiven(t *testing.T) {
	reg, ws, root := realTools(t)
	target := filepath.Join(root, "new.txt")
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "x")),
		geminitest.CallTurn(call("w1", tools.WriteFileName, map[string]any{"file_path": target, "content": "x"})),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "could not write"})),
		geminitest.TextTurn("done"),
	)
	ui := front{lander: landerFunc(func(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
		dec, err := tools.LandOnDisk(ctx, req.Change)
		return dialog.Landing{Decision: dec}, err
	})}
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Agents: catalog{investigator()}, ApprovalMode: dialog.ApprovalYolo})
	ui.prompt(t, a.NewSession(), "go")
	reqs := srv.Requests()
	if slices.Contains(offeredNames(reqs[1]), tools.WriteFileName) {
		t.Errorf("write_file declared to the subagent")
	}
	if fr := responses(t, reqs[2]); len(fr) != 1 || fr[0].Response["error"] != "Unauthorized tool call: 'write_file' is not available to this agent." {
		t.Errorf("write call answered %s", toJSON(fr))
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the subagent wrote %s", target)
	}
}

// A subagent's replace passes the main session's door: it is landed by
// the front end's Lander, asking in default mode, for the main session;
// in plan mode (where 0.61 lets codebase_investigator run) the door
// refuses it in plan mode's words and nothing is landed.
func TestSubagentEditsPassTheSameDoor(t *testing.T) {
	for _, mode := range []dialog.ApprovalMode{dialog.ApprovalDefault, dialog.ApprovalPlan} {
		t.Run(string(mode), func(t *testing.T) {
			reg, ws, root := realTools(t)
			path := filepath.Join(root, "a.txt")
			def := subagents.Definition{Name: "codebase_investigator", Kind: subagents.Local, SystemPrompt: "You edit.", Tools: []string{tools.ReplaceName}}
			srv := geminitest.NewTestServer(t,
				geminitest.CallTurn(invoke("inv1", def.Name, "edit a.txt")),
				geminitest.CallTurn(call("e1", tools.ReplaceName, map[string]any{"file_path": path, "old_string": "alpha", "new_string": "beta", "instruction": "rename"})),
				geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "edited"})),
				geminitest.TextTurn("done"),
			)
			var mu sync.Mutex
			var landed []dialog.LandRequest
			lander := landerFunc(func(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
				mu.Lock()
				landed = append(landed, req)
				mu.Unlock()
				dec, err := tools.LandOnDisk(ctx, req.Change)
				return dialog.Landing{Decision: dec, AllowAlways: req.Ask && req.CanAllowAlways}, err
			})
			plans := t.TempDir()
			ui := front{lander: lander}
			a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Agents: catalog{def},
				PlansDir: func(string) (string, error) { return plans, nil }})
			s := a.NewSession()
			s.SetApprovalMode(mode) // the session's own mode, as /plan sets it
			ui.prompt(t, s, "go")
			reqs := srv.Requests()
			if len(reqs) != 4 || !strings.HasPrefix(systemText(reqs[1]), "You edit.") || !strings.HasPrefix(systemText(reqs[2]), "You edit.") {
				t.Fatalf("the subagent did not make requests 2 and 3 of %d", len(reqs))
			}
			fr := responses(t, reqs[2])
			got, _ := os.ReadFile(path)
			switch mode {
			case dialog.ApprovalDefault:
				if len(landed) != 1 || landed[0].CallID != "e1" || landed[0].SessionID != s.ID() || !landed[0].Ask || !landed[0].CanAllowAlways {
					t.Fatalf("landed %+v", landed)
				}
				if string(got) != "beta\n" {
					t.Errorf("file %q", got)
				}
				// The user's "always allow" of the subagent's edit is the
				// session's: the main agent's next edit lands unasked.
				srv.Push(geminitest.CallTurn(call("e2", tools.ReplaceName, map[string]any{"file_path": path, "old_string": "beta", "new_string": "gamma", "instruction": "rename"})), geminitest.TextTurn("ok"))
				ui.prompt(t, s, "again")
				if len(landed) != 2 || landed[1].CallID != "e2" || landed[1].Ask {
					t.Errorf("landed %+v", landed)
				}
			case dialog.ApprovalPlan:
				if len(landed) != 0 || string(got) != "alpha\n" {
					t.Errorf("plan mode landed %+v; file %q", landed, got)
				}
				if len(fr) != 1 || !strings.HasPrefix(toJSON(fr[0].Response), `{"error":"You are in Plan Mode and cannot modify source code.`) {
					t.Errorf("plan mode answered %s", toJSON(fr))
				}
				// The subagent is told of its tools as plan mode offers them.
				if d := reqs[1].Tools[0].FunctionDeclarations[0]; d.Name != tools.ReplaceName || !strings.HasPrefix(d.Description, "ONLY FOR PLANS:") {
					t.Errorf("plan mode declared %s: %.40s", d.Name, d.Description)
				}
				if !strings.Contains(systemText(reqs[1]), "You are currently operating in Plan Mode.") {
					t.Errorf("no plan mode constraint in %s", systemText(reqs[1]))
				}
			}
		})
	}
}

// A subagent that reaches its turn limit gets one grace turn with 0.61's
// warning; when it still does not hand in a report, the main agent is
// told so in 0.61's words.
func TestSubagentMaxTurns(t *testing.T) {
	reg, ws, root := realTools(t)
	def := investigator()
	def.MaxTurns = 1
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "x")),
		geminitest.CallTurn(call("r1", tools.ReadFileName, map[string]any{"file_path": filepath.Join(root, "a.txt")})),
		geminitest.TextTurn("I am not done"),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Agents: catalog{def}})
	prompt(t, a.NewSession(), "go")
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	grace := reqs[2].Contents[len(reqs[2].Contents)-1]
	if n := len(grace.Parts); n != 2 || grace.Parts[0].FunctionResponse == nil ||
		grace.Parts[1].Text != "You have exceeded the maximum number of turns. You have one final chance to complete the task with a short grace period. You MUST call `complete_task` immediately with your best answer and explain that your investigation was interrupted. Do not call any other tools." {
		t.Errorf("grace turn's message: %s", describe(grace))
	}
	want := "Subagent 'investigator' finished.\nTermination Reason: MAX_TURNS\nResult:\nAgent reached max turns limit (1)."
	if fr := responses(t, reqs[3]); len(fr) != 1 || fr[0].Response["output"] != want {
		t.Errorf("report %s", toJSON(fr))
	}
}

// deadlines hands subagent runs deadlines the test ends: the first run's
// when its tool is called, the grace turn's never.
type deadlines struct {
	mu     sync.Mutex
	asked  []time.Duration
	cancel []context.CancelFunc
	clock  []string // what the runs' clocks were told
}

func (d *deadlines) deadline(ctx context.Context, dur time.Duration) (context.Context, agent.Pauser, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, dur)
	d.cancel = append(d.cancel, cancel)
	return ctx, pauser{d}, cancel
}

type pauser struct{ d *deadlines }

func (p pauser) Pause()  { p.d.note("pause") }
func (p pauser) Resume() { p.d.note("resume") }

func (d *deadlines) note(what string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clock = append(d.clock, what)
}

func (d *deadlines) expire(i int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cancel[i]()
}

// A subagent whose time runs out while a call runs gets its grace turn
// (a minute of its own); a report handed in then is the result, and
// without one the main agent is told 0.61's timeout.
func TestSubagentTimeout(t *testing.T) {
	for _, recovers := range []bool{true, false} {
		t.Run(map[bool]string{true: "recovers", false: "times out"}[recovers], func(t *testing.T) {
			d := &deadlines{}
			slow := gatedTool("slow_read", func(ctx context.Context, _ string) (tools.Result, error) {
				d.expire(0)
				<-ctx.Done()
				return tools.Result{}, ctx.Err()
			})
			def := investigator()
			def.Tools = []string{"slow_read"}
			def.Timeout = 3 * time.Minute
			graceAnswer := geminitest.TextTurn("still looking")
			if recovers {
				graceAnswer = geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "partial findings"}))
			}
			srv := geminitest.NewTestServer(t,
				geminitest.CallTurn(invoke("inv1", "investigator", "x")),
				geminitest.CallTurn(call("s1", "slow_read", map[string]any{"path": "a"})),
				graceAnswer,
				geminitest.TextTurn("done"),
			)
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(slow), Agents: catalog{def}})
			agent.SetSubagentDeadline(a, d.deadline)
			prompt(t, a.NewSession(), "go")
			if !slices.Equal(d.asked, []time.Duration{3 * time.Minute, time.Minute}) {
				t.Errorf("deadlines %v", d.asked)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests", len(reqs))
			}
			if g := reqs[2].Contents[len(reqs[2].Contents)-1]; !strings.Contains(toJSON(g), "You have exceeded the time limit.") {
				t.Errorf("grace message %s", describe(g))
			}
			want := "Subagent 'investigator' finished.\nTermination Reason: TIMEOUT\nResult:\nAgent timed out after 3 minutes."
			if recovers {
				want = "Subagent 'investigator' finished.\nTermination Reason: GOAL\nResult:\npartial findings"
			}
			if fr := responses(t, reqs[3]); len(fr) != 1 || fr[0].Response["output"] != want {
				t.Errorf("report %s", toJSON(fr))
			}
		})
	}
}

// A structured report is checked against the output schema and reaches
// the main agent as Output.Format makes it.
func TestSubagentStructuredReport(t *testing.T) {
	def := investigator()
	def.Tools = []string{}
	def.Output = &subagents.Output{
		Name:   "report",
		Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`),
		Format: func(r any) string { return "ANSWER: " + r.(map[string]any)["answer"].(string) },
	}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "x")),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"report": map[string]any{"wrong": 1}})),
		geminitest.CallTurn(call("c2", tools.CompleteTaskName, map[string]any{"report": map[string]any{"answer": "42"}})),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Agents: catalog{def}})
	prompt(t, a.NewSession(), "go")
	reqs := srv.Requests()
	if got := offeredNames(reqs[1]); !slices.Equal(got, []string{tools.CompleteTaskName}) {
		t.Errorf("tools %v", got)
	}
	if fr := responses(t, reqs[2]); len(fr) != 1 || !strings.HasPrefix(toJSON(fr[0].Response["error"]), `"Output validation failed`) {
		t.Errorf("invalid report answered %s", toJSON(fr))
	}
	want := "Subagent 'investigator' finished.\nTermination Reason: GOAL\nResult:\nANSWER: 42"
	if fr := responses(t, reqs[3]); len(fr) != 1 || fr[0].Response["output"] != want {
		t.Errorf("report %s", toJSON(fr))
	}
}

// Two invoke_agent calls of one answer run their subagents at once (each
// subagent's tool waits for the other's), and a cancel stops both.
func TestTwoSubagentsRunAtOnceAndCancelStopsBoth(t *testing.T) {
	both := newBarrier(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var overlapped int
	wait := gatedTool("wait_read", func(ctx context.Context, _ string) (tools.Result, error) {
		if !both.all() {
			cancel() // alone: end the test
			return tools.Result{}, ctx.Err()
		}
		mu.Lock()
		overlapped++
		if overlapped == 2 {
			cancel()
		}
		mu.Unlock()
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	})
	mk := func(name string) subagents.Definition {
		return subagents.Definition{Name: name, Kind: subagents.Local, SystemPrompt: "You are " + name + ".", Tools: []string{"wait_read"}}
	}
	// The subagents' requests come in either order: each is answered
	// from its system instruction.
	sub := geminitest.Turn{From: func(r geminitest.Request) geminitest.Turn {
		return geminitest.CallTurn(call("w-"+systemText(r)[8:9], "wait_read", map[string]any{"path": "x"}))
	}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "a1", "one"), invoke("i2", "b1", "two")),
		sub, sub,
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(wait), Agents: catalog{mk("a1"), mk("b1")}})
	s := a.NewSession()
	res, evs := promptCtx(ctx, s, "go")
	if overlapped != 2 {
		t.Fatalf("the subagents did not run at once (%d)", overlapped)
	}
	if res.StopReason != dialog.StopCancelled {
		t.Errorf("result %+v", res)
	}
	var invokes int
	for _, ev := range only[dialog.ToolResultEvent](evs) {
		if ev.Result.Name == tools.InvokeAgentName {
			invokes++
			if ev.Result.Status != dialog.StatusCancelled {
				t.Errorf("%s ended %s", ev.Result.CallID, ev.Result.Status)
			}
		}
	}
	if invokes != 2 {
		t.Errorf("%d invoke_agent results", invokes)
	}
}

// remote is a RemoteInvoker answering from a script.
type remote struct {
	text string
	err  error
	got  []string
}

func (r *remote) Invoke(_ context.Context, def subagents.Definition, query string, emit func(dialog.Event)) (string, error) {
	r.got = append(r.got, def.Name+": "+query)
	emit(dialog.TextEvent{Text: "working"})
	return r.text, r.err
}

// A remote agent runs through the RemoteInvoker: its progress is marked
// as its run's, its text is the answer, a failure's included, and a
// failure without text is worded as 0.61 words an unknown error.
func TestRemoteSubagent(t *testing.T) {
	def := subagents.Definition{Name: "far", Kind: subagents.Remote, Description: "A remote agent."}
	for _, tc := range []struct {
		r    *remote
		want string
	}{
		{&remote{text: "the answer"}, "the answer"},
		{&remote{text: "half\n\nError calling remote agent: reset", err: errors.New("reset")}, "half\n\nError calling remote agent: reset"},
		{&remote{err: errors.New("connection refused")}, "Error calling remote agent: connection refused"},
	} {
		srv := geminitest.NewTestServer(t, geminitest.CallTurn(invoke("i1", "far", "ask them")), geminitest.TextTurn("ok"))
		a, _ := newAgent(t, srv, agent.Config{Agents: catalog{def}, Remote: tc.r})
		_, seen := promptShown(t, a.NewSession(), "go")
		if !slices.Equal(tc.r.got, []string{"far: ask them"}) {
			t.Errorf("invoked %q", tc.r.got)
		}
		if fr := responses(t, srv.Requests()[1]); len(fr) != 1 || fr[0].Response["output"] != tc.want {
			t.Errorf("answer %s, want %q", toJSON(fr), tc.want)
		}
		var marked bool
		for _, e := range seen {
			text, ok := e.ev.(dialog.TextEvent)
			marked = marked || ok && text.Text == "working" && e.from == dialog.Subagent{CallID: "i1", Name: "far"}
		}
		if !marked {
			t.Errorf("the remote run's event is not marked: %+v", seen)
		}
	}
}

// The questions of two subagents running at once reach the front end one
// at a time, as the main agent's calls' do.
func TestSubagentsAskOneAtATime(t *testing.T) {
	conf, overlap := overlapWatch()
	sh := &shellTool{}
	mk := func(name string) subagents.Definition {
		return subagents.Definition{Name: name, Kind: subagents.Local, SystemPrompt: "You are " + name + ".", Tools: []string{tools.ShellName}}
	}
	sub := geminitest.Turn{From: func(r geminitest.Request) geminitest.Turn {
		who := systemText(r)[8:10]
		if len(responses(t, r)) == 0 {
			return geminitest.CallTurn(call("s-"+who, tools.ShellName, map[string]any{"command": "make " + who}))
		}
		return geminitest.CallTurn(call("c-"+who, tools.CompleteTaskName, map[string]any{"result": "made " + who}))
	}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "a1", "one"), invoke("i2", "b1", "two")),
		sub, sub, sub, sub,
		geminitest.TextTurn("ok"),
	)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Agents: catalog{mk("a1"), mk("b1")}})
	ui.prompt(t, a.NewSession(), "go")
	if len(overlap) > 0 {
		t.Errorf("%d questions were put while another was open", len(overlap))
	}
	if got := sh.commands(); len(got) != 2 {
		t.Errorf("ran %q", got)
	}
}

// A subagent's model is its definition's, an alias resolved as the main
// agent's is, or the main agent's for "inherit"; its temperature, topP
// and thinking are its definition's.
func TestSubagentModelSettings(t *testing.T) {
	temp, topP, budget := 0.25, 0.5, int32(512)
	fast := subagents.Definition{Name: "fast", Kind: subagents.Local, SystemPrompt: "Fast.", Model: models.Flash, Temperature: &temp, TopP: &topP,
		Thinking: &subagents.Thinking{IncludeThoughts: true, Budget: &budget}}
	same := subagents.Definition{Name: "same", Kind: subagents.Local, SystemPrompt: "Same.", Model: "inherit"}
	done := func(id string) geminitest.Turn {
		return geminitest.CallTurn(call(id, tools.CompleteTaskName, map[string]any{"result": "ok"}))
	}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "fast", "x")), done("c1"),
		geminitest.CallTurn(invoke("i2", "same", "y")), done("c2"),
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-2.5-pro", Agents: catalog{fast, same}})
	prompt(t, a.NewSession(), "go")
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	f := reqs[1]
	if f.Model != models.Resolve(models.Flash) || f.Model == models.Flash {
		t.Errorf("fast ran on %q", f.Model)
	}
	g := f.GenerationConfig
	if g == nil || g.Temperature == nil || *g.Temperature != 0.25 || g.TopP == nil || *g.TopP != 0.5 ||
		g.ThinkingConfig == nil || !g.ThinkingConfig.IncludeThoughts || g.ThinkingConfig.ThinkingBudget == nil || *g.ThinkingConfig.ThinkingBudget != 512 {
		t.Errorf("fast's generation config %s", toJSON(g))
	}
	if reqs[3].Model != "gemini-2.5-pro" {
		t.Errorf("same ran on %q", reqs[3].Model)
	}
	if g := reqs[3].GenerationConfig; g != nil && g.Temperature != nil {
		t.Errorf("same's temperature %v", *g.Temperature)
	}
}

// A subagent's request that fails for a while is retried as the main
// agent's are, with the same policy.
func TestSubagentRequestsRetry(t *testing.T) {
	def := investigator()
	def.Tools = []string{}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "investigator", "x")),
		geminitest.ErrorTurn(503, "overloaded"),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "made it"})),
		geminitest.TextTurn("ok"),
	)
	a, sl := newAgent(t, srv, agent.Config{Agents: catalog{def}})
	prompt(t, a.NewSession(), "go")
	if len(sl.got()) != 1 {
		t.Errorf("waits %v", sl.got())
	}
	want := "Subagent 'investigator' finished.\nTermination Reason: GOAL\nResult:\nmade it"
	if fr := responses(t, srv.Requests()[3]); len(fr) != 1 || fr[0].Response["output"] != want {
		t.Errorf("report %s", toJSON(fr))
	}
}

// An agent that inherits the system prompt (0.61's generalist) is told
// the main agent's, then its run's rules; never the list of agents.
func TestSubagentInheritsTheSystemPrompt(t *testing.T) {
	def := subagents.Definition{Name: "generalist", Kind: subagents.Local, InheritSystemPrompt: true}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "generalist", "x")),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "ok"})),
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{SystemPrompt: "MAIN PROMPT", Agents: catalog{def}})
	prompt(t, a.NewSession(), "go")
	sys := systemText(srv.Requests()[1])
	if !strings.HasPrefix(sys, "MAIN PROMPT\n\n# Environment Context") || !strings.Contains(sys, "Important Rules:") || strings.Contains(sys, "Sub-Agents") {
		t.Errorf("system instruction:\n%s", sys)
	}
}

// The directory structure a subagent is told names nothing the ignore
// rules keep from the model, as 0.61's environment context.
func TestSubagentDirectoryStructureLeavesOutIgnoredFiles(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{".geminiignore": "secret.txt\nprivate/\n", "secret.txt": "", "private/vault.txt": "", "plain.txt": ""} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	def := subagents.Definition{Name: "generalist", Kind: subagents.Local, InheritSystemPrompt: true}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "generalist", "x")),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "ok"})),
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{SystemPrompt: "MAIN PROMPT", Agents: catalog{def}, Workspace: ws})
	prompt(t, a.NewSession(), "go")
	sys := systemText(srv.Requests()[1])
	if strings.Contains(sys, "secret.txt") || strings.Contains(sys, "vault.txt") || !strings.Contains(sys, "plain.txt") {
		t.Errorf("the subagent's directory structure names an ignored file, or not plain.txt:\n%s", sys)
	}
}

// A tool only subagents get (cli_help's get_internal_docs) is given to
// the agent that names it, never to the main agent nor by "*".
func TestSubagentOnlyTools(t *testing.T) {
	docs := fakeTool{name: "get_internal_docs", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "docs", kind: dialog.KindRead, exec: func(context.Context) (tools.Result, error) { return tools.Result{Output: "the docs"}, nil }}, nil
	}}
	help := subagents.Definition{Name: "helper", Kind: subagents.Local, SystemPrompt: "Help.", Tools: []string{"get_internal_docs"}}
	all := subagents.Definition{Name: "all", Kind: subagents.Local, SystemPrompt: "All.", Tools: []string{"*"}}
	done := func(id string) geminitest.Turn {
		return geminitest.CallTurn(call(id, tools.CompleteTaskName, map[string]any{"result": "ok"}))
	}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "helper", "x")), done("c1"),
		geminitest.CallTurn(invoke("i2", "all", "y")), done("c2"),
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), SubagentTools: []tools.Tool{docs}, Agents: catalog{help, all}})
	prompt(t, a.NewSession(), "go")
	reqs := srv.Requests()
	for i, want := range [][]string{{"read_file", tools.InvokeAgentName}, {"get_internal_docs", tools.CompleteTaskName}, {"read_file", tools.InvokeAgentName}, {"read_file", tools.CompleteTaskName}} {
		if got := offeredNames(reqs[i]); !slices.Equal(got, want) {
			t.Errorf("request %d offered %v, want %v", i, got, want)
		}
	}
}

// A subagent's time does not run while its call waits for the user: its
// clock is paused for the question and resumed after it.
func TestSubagentClockPausedWhileAsking(t *testing.T) {
	d := &deadlines{}
	var during []string
	conf := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		d.mu.Lock()
		during = slices.Clone(d.clock)
		d.mu.Unlock()
		return dialog.ProceedOnce, nil
	}}
	sh := &shellTool{}
	def := subagents.Definition{Name: "runner", Kind: subagents.Local, SystemPrompt: "Run.", Tools: []string{tools.ShellName}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("i1", "runner", "x")),
		geminitest.CallTurn(call("s1", tools.ShellName, map[string]any{"command": "make"})),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "made"})),
		geminitest.TextTurn("ok"),
	)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Agents: catalog{def}})
	agent.SetSubagentDeadline(a, d.deadline)
	ui.prompt(t, a.NewSession(), "go")
	if !slices.Equal(during, []string{"pause"}) || !slices.Equal(d.clock, []string{"pause", "resume"}) {
		t.Errorf("clock while asking %v, after %v", during, d.clock)
	}
	if got := sh.commands(); !slices.Equal(got, []string{"make"}) {
		t.Errorf("ran %q", got)
	}
}

// The ids gemini-ls gives a subagent's calls are never ids of the main
// agent's: they start with its invoke_agent call's id (ACP clients key
// tool calls and their permission requests by id).
func TestSubagentCallIDsAreItsOwn(t *testing.T) {
	reg, ws, root := realTools(t)
	path := filepath.Join(root, "a.txt")
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("", "investigator", "where is alpha")),
		geminitest.CallTurn(call("", tools.ReadFileName, map[string]any{"file_path": path})),
		geminitest.CallTurn(call("", tools.CompleteTaskName, map[string]any{"result": "in a.txt"})),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Agents: catalog{investigator()}})
	_, shownEvents := promptShown(t, a.NewSession(), "find alpha")
	seen := map[string]string{}
	for _, e := range shownEvents {
		ev, ok := e.ev.(dialog.ToolCallEvent)
		if !ok {
			continue
		}
		id := ev.Call.CallID
		if other, dup := seen[id]; dup {
			t.Errorf("call id %q is both %s's and %s's", id, other, ev.Call.Name)
		}
		seen[id] = ev.Call.Name
		if e.from.CallID != "" && !strings.HasPrefix(id, e.from.CallID+".") {
			t.Errorf("subagent call %s has id %q, not under %q", ev.Call.Name, id, e.from.CallID)
		}
	}
	if len(seen) != 3 {
		t.Errorf("call ids %v", seen)
	}
}

// ackCatalog is a catalogue holding a project's agent back until it is
// acknowledged.
type ackCatalog struct {
	mu    sync.Mutex
	agent subagents.Definition
	acked bool
}

func (c *ackCatalog) Lookup(name string) (subagents.Definition, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agent, c.acked && name == c.agent.Name
}

func (c *ackCatalog) Active() []subagents.Definition {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.acked {
		return nil
	}
	return []subagents.Definition{c.agent}
}

func (c *ackCatalog) Unacknowledged() []subagents.Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.acked {
		return nil
	}
	return []subagents.Entry{{Definition: c.agent, Enabled: true}}
}

func (c *ackCatalog) Acknowledge(_ context.Context, name string) ([]error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acked = c.acked || name == c.agent.Name
	return nil, nil
}

// answering is a Confirmer that answers every question with outcome and
// records it.
type answering struct {
	outcome dialog.ConfirmOutcome
	mu      sync.Mutex
	asked   []dialog.ConfirmRequest
}

func (a *answering) Confirm(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.outcome, nil
}

// A project's agent is asked about, through the door, before the
// session's first prompt, in 0.61's words: acknowledged, it is offered
// from that prompt on; declined, it stays held back and the session
// does not ask again.
func TestProjectAgentsAreAcknowledgedFirst(t *testing.T) {
	for _, c := range []struct {
		outcome dialog.ConfirmOutcome
		offered bool
	}{{dialog.ProceedOnce, true}, {dialog.Cancel, false}} {
		srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
		cat := &ackCatalog{agent: subagents.Definition{Name: "scout", Description: "Scouts the repo.", Kind: subagents.Local, Source: subagents.Project}}
		user := &answering{outcome: c.outcome}
		ui := front{confirmer: user}
		a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), Agents: cat})
		s := a.NewSession()
		ui.prompt(t, s, "hi")
		ui.prompt(t, s, "again")
		if len(user.asked) != 1 || user.asked[0].Kind != dialog.ConfirmAgents || user.asked[0].Title != "New Agents Discovered" ||
			user.asked[0].Details != "The following agents were found in this project. Please review them:\n\n- scout: Scouts the repo." {
			t.Errorf("%s: asked %+v, want one question about scout", c.outcome, user.asked)
		}
		if got := slices.Contains(offeredNames(srv.Requests()[0]), tools.InvokeAgentName); got != c.offered {
			t.Errorf("%s: invoke_agent offered in the first prompt: %v, want %v", c.outcome, got, c.offered)
		}
	}
}

// A structured report is shown to the user as a JSON code block, its
// lines kept; a text report as it is. The model reads it unchanged.
func TestSubagentReportDisplay(t *testing.T) {
	if got := agent.ReportDisplay("{\n  \"a\": 1\n}"); got != "```json\n{\n  \"a\": 1\n}\n```" {
		t.Errorf("a JSON report shows as %q", got)
	}
	for _, text := range []string{"alpha is in a.txt", "{not json", "The answer.\n\n**Sources:**\n- docs/a.md"} {
		if got := agent.ReportDisplay(text); got != text {
			t.Errorf("%q shows as %q", text, got)
		}
	}
}

// A subagent given every tool is given none that narrates the main
// agent's work (update_topic's nature) nor invoke_agent, whatever their
// names: the tools say what they are, and pickTools reads it.
func TestSubagentIsNotGivenANarratingTool(t *testing.T) {
	narrate := newAnnotatedTool("probe_narrate", tools.Annotations{Narrates: true, RunsAlone: true}, nil)
	read := newAnnotatedTool("probe_read", tools.Annotations{ReadOnly: true}, nil)
	everything := investigator()
	everything.Tools = nil
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "x")),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "done"})),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(narrate, read), Agents: catalog{everything}})
	prompt(t, a.NewSession(), "go")
	got := offeredNames(srv.Requests()[1])
	if !slices.Equal(got, []string{"probe_read", tools.CompleteTaskName}) {
		t.Errorf("subagent offered %v, want probe_read and complete_task", got)
	}
}
