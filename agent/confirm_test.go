package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/tools"
)

func shellTurn(cmds ...string) geminitest.Turn {
	var t geminitest.Turn
	for _, c := range cmds {
		t.Chunks = append(t.Chunks, geminitest.Chunk{Call: geminitest.Call("run_shell_command", map[string]any{"command": c})})
	}
	return t
}

func TestConfirmation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		outcome  agent.ConfirmOutcome
		asked    int      // confirmations over both prompts
		ran      []string // commands run
		statuses []tools.Status
	}{
		{"proceed once asks every time", agent.ProceedOnce, 3, []string{"go test", "go vet", "go build"}, []tools.Status{"ok", "ok", "ok"}},
		{"proceed always remembers the root command", agent.ProceedAlways, 1, []string{"go test", "go vet", "go build"}, []tools.Status{"ok", "ok", "ok"}},
		{"cancel runs nothing", agent.Cancel, 3, nil, []tools.Status{"rejected", "rejected", "rejected"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t,
				shellTurn("go test", "go vet"), geminitest.TextTurn("ok"),
				shellTurn("go build"), geminitest.TextTurn("ok"),
			)
			sh := &shellTool{}
			conf := always(tc.outcome)
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: conf})
			s := a.NewSession()
			_, evs1 := prompt(t, s, "test it")
			_, evs2 := prompt(t, s, "build it")

			asked := conf.asked()
			if len(asked) != tc.asked {
				t.Errorf("asked %d times, want %d", len(asked), tc.asked)
			}
			first := asked[0]
			if first.SessionID != s.ID() || first.CallID != "call_1" || first.Kind != "execute" || first.Title != "Allow shell command?" || first.Details != "go test" {
				t.Errorf("confirm request = %+v", first)
			}
			if got := sh.commands(); !slices.Equal(got, tc.ran) {
				t.Errorf("ran %q, want %q", got, tc.ran)
			}
			var statuses []tools.Status
			for _, ev := range append(evs1, evs2...).of(agent.EventToolResult) {
				statuses = append(statuses, ev.ToolResult.Status)
			}
			if !slices.Equal(statuses, tc.statuses) {
				t.Errorf("statuses = %v, want %v", statuses, tc.statuses)
			}
			fr := responses(t, srv.Requests()[1])
			if tc.outcome == agent.Cancel {
				if fr[0].Response["error"] != "The user declined to run this command." {
					t.Errorf("declined response = %v", fr[0].Response)
				}
			} else if fr[0].Response["output"] != "ran go test" {
				t.Errorf("response = %v", fr[0].Response)
			}
		})
	}
}

func TestAlwaysAllowIsPerSessionAndPerKey(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		shellTurn("go test", "git status"), geminitest.TextTurn("ok"),
		shellTurn("go test"), geminitest.TextTurn("ok"),
	)
	sh := &shellTool{}
	conf := always(agent.ProceedAlways)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: conf})
	prompt(t, a.NewSession(), "one")
	prompt(t, a.NewSession(), "two")
	var details []string
	for _, r := range conf.asked() {
		details = append(details, r.Details)
	}
	// "git" is a new root command; the second session starts afresh.
	if want := []string{"go test", "git status", "go test"}; !slices.Equal(details, want) {
		t.Errorf("asked for %q, want %q", details, want)
	}
}

func TestConfirmerErrorAndMissingConfirmer(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("rm -rf build"), geminitest.TextTurn("ok"), shellTurn("ls"), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	broken := &confirmer{answer: func(context.Context, agent.ConfirmRequest) (agent.ConfirmOutcome, error) {
		return "", errors.New("client went away")
	}}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: broken})
	_, evs := prompt(t, a.NewSession(), "clean")
	if r := evs.of(agent.EventToolResult)[0].ToolResult; r.Status != tools.StatusError {
		t.Errorf("result = %+v", r)
	}
	if fr := responses(t, srv.Requests()[1]); fr[0].Response["error"] != "Asking the user for approval failed: client went away" {
		t.Errorf("response = %v", fr[0].Response)
	}

	b, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	_, evs = prompt(t, b.NewSession(), "list")
	if r := evs.of(agent.EventToolResult)[0].ToolResult; r.Status != tools.StatusRejected {
		t.Errorf("without a confirmer, result = %+v", r)
	}
	if len(sh.commands()) != 0 {
		t.Errorf("ran %q without approval", sh.commands())
	}
}

func TestYoloSkipsConfirmation(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("make"), geminitest.TextTurn("built"))
	sh := &shellTool{}
	conf := always(agent.Cancel)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: conf, ApprovalMode: tools.ApprovalYolo})
	prompt(t, a.NewSession(), "build")
	if len(conf.asked()) != 0 || !slices.Equal(sh.commands(), []string{"make"}) {
		t.Errorf("asked %d times, ran %q", len(conf.asked()), sh.commands())
	}
}

// editTool records whether each execution's edit was allowed without
// asking; args["always"] plays a proposer whose user chose "always allow".
type editTool struct {
	infos   []tools.CallInfo
	allowed []bool
}

func (e *editTool) tool() fakeTool {
	return fakeTool{name: "replace", build: func(args map[string]any) (tools.Call, error) {
		always, _ := args["always"].(bool)
		return fakeCall{title: "Edit", kind: tools.KindEdit, exec: func(ctx context.Context) (tools.Result, error) {
			info, ok := tools.CallInfoFrom(ctx)
			if !ok {
				return tools.Result{}, errors.New("no CallInfo in ctx")
			}
			e.infos = append(e.infos, info)
			e.allowed = append(e.allowed, info.Allowed(tools.EditKey))
			if always {
				info.Permissions.AllowAlways(tools.EditKey)
			}
			return tools.Result{Output: "edited"}, nil
		}}, nil
	}}
}

func TestEditsAllowedPerMode(t *testing.T) {
	edit := func(always bool) geminitest.Turn {
		return geminitest.CallTurn(geminitest.Call("replace", map[string]any{"always": always}))
	}
	for _, tc := range []struct {
		mode tools.ApprovalMode
		want []bool
	}{
		// In default mode, edits are allowed once the proposer recorded the
		// user's "always allow" in the session's approval service.
		{tools.ApprovalDefault, []bool{false, false, true}},
		{tools.ApprovalAutoEdit, []bool{true, true, true}},
		{tools.ApprovalYolo, []bool{true, true, true}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			srv := geminitest.NewTestServer(t, edit(false), edit(true), edit(false), geminitest.TextTurn("ok"))
			et := &editTool{}
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(et.tool()), ApprovalMode: tc.mode})
			s := a.NewSession()
			prompt(t, s, "edit")
			for i, info := range et.infos {
				if info.SessionID != s.ID() || info.CallID == "" {
					t.Errorf("call %d info = %+v", i, info)
				}
			}
			if !slices.Equal(et.allowed, tc.want) {
				t.Errorf("edits allowed = %v, want %v", et.allowed, tc.want)
			}

		})
	}
}

func TestConfirmerThatCannotAskExplainsItself(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("make"), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	const why = "cannot ask the user: rerun with --approval-mode yolo"
	nobody := &confirmer{answer: func(context.Context, agent.ConfirmRequest) (agent.ConfirmOutcome, error) {
		return agent.Cancel, fmt.Errorf("%w: rerun with --approval-mode yolo", agent.ErrCannotAsk)
	}}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: nobody})
	_, evs := prompt(t, a.NewSession(), "build")
	if r := evs.of(agent.EventToolResult)[0].ToolResult; r.Status != tools.StatusRejected {
		t.Errorf("result = %+v, want rejected", r)
	}
	if fr := responses(t, srv.Requests()[1]); fr[0].Response["error"] != why {
		t.Errorf("response = %v, want error %q", fr[0].Response, why)
	}
	if len(sh.commands()) != 0 {
		t.Errorf("ran %q without approval", sh.commands())
	}
}

// TestAlwaysAllowCoversOnlyAllowedCommands allows ls for good, then checks
// which later commands ask: every command a line runs must be allowed, and
// what the name does not show (a write, a substitution, a PATH) always asks.
func TestAlwaysAllowCoversOnlyAllowedCommands(t *testing.T) {
	cmds := []struct {
		command string
		asks    bool
	}{
		{"ls", true}, // answered Always Allow
		{`ls $'\''; touch x #'`, true},
		{"ls # comment\ntouch x", true},
		{"ls # don't\ntouch x", true},
		{"ls > main.go", true},
		{"ls && ls -la", false},
		{"FOO=1 ls", false},
		{`\ls -la; 'ls' 2>&1 | ls`, false},
		{"ls | rm -rf x", true},
		{"/tmp/evil/ls", true},
		{"PATH=/tmp/evil ls", true},
		{`ls "$(touch x)"`, true},
		{"ls; eval touch x", true},
	}
	var turn []string
	var want, wantRan []string
	for _, c := range cmds {
		turn = append(turn, c.command)
		if c.asks {
			want = append(want, c.command)
		} else {
			wantRan = append(wantRan, c.command)
		}
	}
	wantRan = append([]string{"ls"}, wantRan...)
	srv := geminitest.NewTestServer(t, shellTurn(turn...), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	// Always Allow for the first command, Reject for the rest.
	conf := &confirmer{answer: func(_ context.Context, req agent.ConfirmRequest) (agent.ConfirmOutcome, error) {
		if req.Details == "ls" {
			return agent.ProceedAlways, nil
		}
		return agent.Cancel, nil
	}}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: conf})
	prompt(t, a.NewSession(), "list")
	var asked []string
	for _, r := range conf.asked() {
		asked = append(asked, r.Details)
	}
	if !slices.Equal(asked, want) {
		t.Errorf("asked for\n%q\nwant\n%q", asked, want)
	}
	if got := sh.commands(); !slices.Equal(got, wantRan) {
		t.Errorf("ran %q, want %q", got, wantRan)
	}
}

// TestAlwaysAllowRecordsEveryCommand checks what Always Allow remembers:
// every command of the line, each on its own, and nothing for a line it
// cannot cover, which still runs that once.
func TestAlwaysAllowRecordsEveryCommand(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		shellTurn("ls > out", "ls > out", "ls", "git log | grep x"), geminitest.TextTurn("ok"),
		shellTurn("git status", "grep y f", "ls | grep z", "git log > out"), geminitest.TextTurn("ok"),
	)
	sh := &shellTool{}
	conf := always(agent.ProceedAlways)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Confirmer: conf})
	s := a.NewSession()
	prompt(t, s, "one")
	prompt(t, s, "two")
	var asked []string
	for _, r := range conf.asked() {
		asked = append(asked, r.Details)
	}
	if want := []string{"ls > out", "ls > out", "ls", "git log | grep x", "git log > out"}; !slices.Equal(asked, want) {
		t.Errorf("asked for %q, want %q", asked, want)
	}
	if got, want := conf.asked()[0].Title, "Allow shell command? Always Allow cannot cover it: it writes to a file (> out)."; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got := sh.commands(); len(got) != 8 {
		t.Errorf("ran %q, want all 8 commands", got)
	}
}
