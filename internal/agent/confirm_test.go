package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
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
		outcome  dialog.ConfirmOutcome
		asked    int      // confirmations over both prompts
		ran      []string // commands run
		statuses []dialog.Status
	}{
		{"proceed once asks every time", dialog.ProceedOnce, 3, []string{"go test", "go vet", "go build"}, []dialog.Status{"ok", "ok", "ok"}},
		{"proceed always remembers the root command", dialog.ProceedAlways, 1, []string{"go test", "go vet", "go build"}, []dialog.Status{"ok", "ok", "ok"}},
		{"cancel runs nothing", dialog.Cancel, 3, nil, []dialog.Status{"rejected", "rejected", "rejected"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t,
				shellTurn("go test", "go vet"), geminitest.TextTurn("ok"),
				shellTurn("go build"), geminitest.TextTurn("ok"),
			)
			sh := &shellTool{}
			conf := always(tc.outcome)
			ui := front{confirmer: conf}
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
			s := a.NewSession()
			_, evs1 := ui.prompt(t, s, "test it")
			_, evs2 := ui.prompt(t, s, "build it")

			asked := conf.asked()
			if len(asked) != tc.asked {
				t.Errorf("asked %d times, want %d", len(asked), tc.asked)
			}
			first := asked[0]
			if first.SessionID != s.ID() || first.CallID != "call_1" || first.Tool != "run_shell_command" || first.Kind != "execute" || first.Title != "Allow shell command?" || first.Details != "go test" {
				t.Errorf("confirm request = %+v", first)
			}
			// The first answer's two commands run at once once allowed, in
			// either order; the second prompt's runs after them.
			if got := sh.commands(); !slices.Equal(sortedFirst(got, 2), sortedFirst(tc.ran, 2)) {
				t.Errorf("ran %q, want %q (the first two in any order)", got, tc.ran)
			}
			var statuses []dialog.Status
			for _, ev := range only[dialog.ToolResultEvent](append(evs1, evs2...)) {
				statuses = append(statuses, ev.Result.Status)
			}
			if !slices.Equal(statuses, tc.statuses) {
				t.Errorf("statuses = %v, want %v", statuses, tc.statuses)
			}
			fr := responses(t, srv.Requests()[1])
			if tc.outcome == dialog.Cancel {
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
	conf := always(dialog.ProceedAlways)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	ui.prompt(t, a.NewSession(), "one")
	ui.prompt(t, a.NewSession(), "two")
	var details []string
	for _, r := range conf.asked() {
		details = append(details, r.Details)
	}
	// "git" is a new root command; the second session starts afresh.
	if want := []string{"go test", "git status", "go test"}; !slices.Equal(details, want) {
		t.Errorf("asked for %q, want %q", details, want)
	}
}

// A confirmation says whether "always allow" would hold, as the tool
// decided: not for a command Always Allow cannot cover, which asks again
// however it was answered; for one it covers, which it then allows.
func TestConfirmRequestSaysWhetherAlwaysHolds(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		shellTurn("go test > out.txt"), geminitest.TextTurn("ok"),
		shellTurn("go test > out.txt"), geminitest.TextTurn("ok"),
		shellTurn("go test"), geminitest.TextTurn("ok"),
		shellTurn("go test -v"), geminitest.TextTurn("ok"),
	)
	sh := &shellTool{}
	conf := always(dialog.ProceedAlways)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	s := a.NewSession()
	for _, p := range []string{"one", "two", "three", "four"} {
		ui.prompt(t, s, p)
	}
	var asked []string
	for _, r := range conf.asked() {
		asked = append(asked, fmt.Sprintf("%s %v", r.Details, r.CanAllowAlways))
	}
	if want := []string{"go test > out.txt false", "go test > out.txt false", "go test true"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if ran := sh.commands(); len(ran) != 4 {
		t.Errorf("ran %q, want every command", ran)
	}
}

func TestConfirmerErrorAndMissingConfirmer(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("rm -rf build"), geminitest.TextTurn("ok"), shellTurn("ls"), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	broken := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		return "", errors.New("client went away")
	}}
	ui := front{confirmer: broken}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	_, evs := ui.prompt(t, a.NewSession(), "clean")
	if r := only[dialog.ToolResultEvent](evs)[0].Result; r.Status != dialog.StatusError {
		t.Errorf("result = %+v", r)
	}
	if fr := responses(t, srv.Requests()[1]); fr[0].Response["error"] != "Asking the user for approval failed: client went away" {
		t.Errorf("response = %v", fr[0].Response)
	}

	b, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	_, evs = prompt(t, b.NewSession(), "list")
	if r := only[dialog.ToolResultEvent](evs)[0].Result; r.Status != dialog.StatusRejected {
		t.Errorf("without a confirmer, result = %+v", r)
	}
	if len(sh.commands()) != 0 {
		t.Errorf("ran %q without approval", sh.commands())
	}
}

func TestYoloSkipsConfirmation(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("make"), geminitest.TextTurn("built"))
	sh := &shellTool{}
	conf := always(dialog.Cancel)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), ApprovalMode: dialog.ApprovalYolo})
	ui.prompt(t, a.NewSession(), "build")
	if len(conf.asked()) != 0 || !slices.Equal(sh.commands(), []string{"make"}) {
		t.Errorf("asked %d times, ran %q", len(conf.asked()), sh.commands())
	}
}

// editTool proposes, for each call, to write args["text"] to a.txt.
func editTool() fakeTool {
	return fakeTool{name: tools.ReplaceName, build: func(args map[string]any) (tools.Call, error) {
		text, _ := args["text"].(string)
		return fakeCall{title: "Edit", kind: dialog.KindEdit, confirmation: tools.EditConfirmation(""), exec: func(context.Context) (tools.Result, error) {
			change := workspace.FileChange{Path: "/w/a.txt", Exists: true, Before: "old\n", After: text}
			return tools.Result{Proposal: &tools.Proposal{Change: change}}, nil
		}}, nil
	}}
}

// frontEnd is a front end's edit door: it records what it was handed and
// answers "always allow" when the change's text says so. It has no way to
// look permissions up, and its Confirmer fails the test if asked: an
// edit's question travels with its change, in the LandRequest.
type frontEnd struct {
	t        *testing.T
	requests []dialog.LandRequest
}

func (f *frontEnd) Land(_ context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	f.requests = append(f.requests, req)
	always := req.Ask && req.Change.After == "always\n"
	return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied, Content: req.Change.After}, AllowAlways: always}, nil
}

func (f *frontEnd) Confirm(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	f.t.Error("an edit was asked about through the Confirmer, without its change")
	return dialog.Cancel, nil
}

func (f *frontEnd) asked() []bool {
	var ask []bool
	for _, r := range f.requests {
		ask = append(ask, r.Ask)
	}
	return ask
}

// The agent's approval service decides whether each edit is asked about,
// per mode, and records the user's "always allow" given while landing; the
// front end is handed the proposed change with the question.
func TestEditsAskedPerMode(t *testing.T) {
	edit := func(text string) geminitest.Turn {
		return geminitest.CallTurn(geminitest.Call(tools.ReplaceName, map[string]any{"text": text}))
	}
	for _, tc := range []struct {
		mode dialog.ApprovalMode
		ask  []bool
	}{
		// In default mode, edits land without asking once the user chose
		// "always allow" when asked.
		{dialog.ApprovalDefault, []bool{true, true, false}},
		{dialog.ApprovalAutoEdit, []bool{false, false, false}},
		{dialog.ApprovalYolo, []bool{false, false, false}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			srv := geminitest.NewTestServer(t, edit("once\n"), edit("always\n"), edit("later\n"), geminitest.TextTurn("ok"))
			fe := &frontEnd{t: t}
			ui := front{lander: fe, confirmer: fe}
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(editTool()), ApprovalMode: tc.mode})
			s := a.NewSession()
			_, evs := ui.prompt(t, s, "edit")
			if got := fe.asked(); !slices.Equal(got, tc.ask) {
				t.Errorf("asked = %v, want %v", got, tc.ask)
			}
			for i, req := range fe.requests {
				if req.SessionID != s.ID() || req.CallID == "" || req.Change.Path != "/w/a.txt" || req.Change.Before != "old\n" {
					t.Errorf("request %d = %+v: want the session, the call and the proposed change", i, req)
				}
			}
			if want := []string{"once\n", "always\n", "later\n"}; len(fe.requests) != len(want) {
				t.Fatalf("%d changes landed, want %d", len(fe.requests), len(want))
			} else {
				for i, w := range want {
					if fe.requests[i].Change.After != w {
						t.Errorf("change %d = %q, want %q", i, fe.requests[i].Change.After, w)
					}
				}
			}
			for _, ev := range only[dialog.ToolResultEvent](evs) {
				if ev.Result.Status != dialog.StatusOK {
					t.Errorf("result %+v", ev.Result)
				}
			}
		})
	}
}

// A declined edit is what the front end says became of it, and the
// service records nothing: the next edit is asked about again.
func TestDeclinedEditIsNotAllowedLater(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call(tools.ReplaceName, map[string]any{"text": "a\n"})),
		geminitest.CallTurn(geminitest.Call(tools.ReplaceName, map[string]any{"text": "b\n"})),
		geminitest.TextTurn("ok"))
	var asked []bool
	lander := landerFunc(func(_ context.Context, req dialog.LandRequest) (dialog.Landing, error) {
		asked = append(asked, req.Ask)
		return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined it"}}, nil
	})
	ui := front{lander: lander}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(editTool())})
	_, evs := ui.prompt(t, a.NewSession(), "edit")
	if !slices.Equal(asked, []bool{true, true}) {
		t.Errorf("asked = %v", asked)
	}
	for _, ev := range only[dialog.ToolResultEvent](evs) {
		if ev.Result.Status != dialog.StatusRejected {
			t.Errorf("result %+v, want rejected", ev.Result)
		}
	}
}

// Without a port to land it, an edit fails and says so, to the model;
// nothing is written.
func TestEditWithoutLander(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(geminitest.Call(tools.ReplaceName, map[string]any{"text": "a\n"})), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(editTool()), ApprovalMode: dialog.ApprovalYolo})
	if _, err := a.NewSession().Prompt(t.Context(), dialog.Input{Text: "edit"}, nil); err != nil {
		t.Fatal(err)
	}
	if fr := responses(t, srv.Requests()[1]); len(fr) != 1 || fr[0].Response["error"] != "no front end lands file changes; the change was not applied" {
		t.Errorf("the model was told %s", toJSON(fr))
	}
}

type landerFunc func(context.Context, dialog.LandRequest) (dialog.Landing, error)

func (f landerFunc) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	return f(ctx, req)
}

func TestConfirmerThatCannotAskExplainsItself(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("make"), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	const why = "cannot ask the user: rerun with --approval-mode yolo"
	nobody := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		return dialog.Cancel, fmt.Errorf("%w: rerun with --approval-mode yolo", dialog.ErrCannotAsk)
	}}
	ui := front{confirmer: nobody}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	_, evs := ui.prompt(t, a.NewSession(), "build")
	if r := only[dialog.ToolResultEvent](evs)[0].Result; r.Status != dialog.StatusRejected {
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
	// The lines are read as bash reads them (on Windows, as PowerShell
	// or cmd does: internal/shellparse's tests).
	platformtest.UnixShell(t)
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
	conf := &confirmer{answer: func(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		if req.Details == "ls" {
			return dialog.ProceedAlways, nil
		}
		return dialog.Cancel, nil
	}}
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	ui.prompt(t, a.NewSession(), "list")
	var asked []string
	for _, r := range conf.asked() {
		asked = append(asked, r.Details)
	}
	if !slices.Equal(asked, want) {
		t.Errorf("asked for\n%q\nwant\n%q", asked, want)
	}
	// The commands ran at once, in any order.
	if got := sh.commands(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(wantRan))) {
		t.Errorf("ran %q, want %q", got, wantRan)
	}
}

// TestAlwaysAllowRecordsEveryCommand checks what Always Allow remembers:
// every command of the line, each on its own, and nothing for a line it
// cannot cover, which still runs that once.
func TestAlwaysAllowRecordsEveryCommand(t *testing.T) {
	// The lines are read as bash reads them (on Windows, as PowerShell
	// or cmd does: internal/shellparse's tests).
	platformtest.UnixShell(t)
	srv := geminitest.NewTestServer(t,
		shellTurn("ls > out", "ls > out", "ls", "git log | grep x"), geminitest.TextTurn("ok"),
		shellTurn("git status", "grep y f", "ls | grep z", "git log > out"), geminitest.TextTurn("ok"),
	)
	sh := &shellTool{}
	conf := always(dialog.ProceedAlways)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	s := a.NewSession()
	ui.prompt(t, s, "one")
	ui.prompt(t, s, "two")
	var asked []string
	for _, r := range conf.asked() {
		asked = append(asked, r.Details)
	}
	if want := []string{"ls > out", "ls > out", "ls", "git log | grep x", "git log > out"}; !slices.Equal(asked, want) {
		t.Errorf("asked for %q, want %q", asked, want)
	}
	if got, want := conf.asked()[0].Title, "Allow shell command? It is asked every time: it writes to a file (> out)."; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got := sh.commands(); len(got) != 8 {
		t.Errorf("ran %q, want all 8 commands", got)
	}
}

// A call whose question is not asked with a proposed change (a tool that
// shows its change in the question, and writes it itself) is asked about
// before it runs, whatever its kind.
func TestEditKindWithoutProposalIsAskedBeforeRunning(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(geminitest.Call("remember_fact", nil)), geminitest.TextTurn("ok"))
	ran := false
	memory := fakeTool{name: "remember_fact", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "Save", kind: dialog.KindEdit,
			confirmation: &tools.Confirmation{Kind: "edit", Title: "Confirm Memory Save", AllowKeys: []string{"remember_fact"}},
			exec: func(context.Context) (tools.Result, error) {
				ran = true
				return tools.Result{Output: "saved"}, nil
			}}, nil
	}}
	conf := always(dialog.Cancel)
	ui := front{confirmer: conf, lander: landerFunc(func(context.Context, dialog.LandRequest) (dialog.Landing, error) {
		t.Error("a call that proposes no change was handed to the lander")
		return dialog.Landing{}, nil
	})}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(memory)})
	ui.prompt(t, a.NewSession(), "remember")
	if len(conf.asked()) != 1 || ran {
		t.Errorf("asked %d times, ran %v; want asked once and declined", len(conf.asked()), ran)
	}
}

// An edit's question offers "always allow" only where it would hold: not
// where a policy rule that asks outranks the user's approvals. An
// AllowAlways answered anyway counts as once: the next edit is asked too.
func TestEditQuestionSaysWhetherAlwaysHolds(t *testing.T) {
	dir := t.TempDir()
	rules := "[[rule]]\ntoolName = \"replace\"\ndecision = \"ask_user\"\npriority = 100\n"
	if err := os.WriteFile(filepath.Join(dir, "rules.toml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	asking := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}}, true)
	for _, tc := range []struct {
		name   string
		policy *policy.Engine
		want   []bool // CanAllowAlways of each question asked
	}{
		{"no rule", nil, []bool{true}},
		{"a rule that asks outranks always allow", asking, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t,
				geminitest.CallTurn(geminitest.Call(tools.ReplaceName, map[string]any{"text": "a\n"})),
				geminitest.CallTurn(geminitest.Call(tools.ReplaceName, map[string]any{"text": "b\n"})),
				geminitest.TextTurn("ok"))
			var offered []bool
			lander := landerFunc(func(_ context.Context, req dialog.LandRequest) (dialog.Landing, error) {
				if req.Ask {
					offered = append(offered, req.CanAllowAlways)
				}
				return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied}, AllowAlways: true}, nil
			})
			cfg := agent.Config{Tools: tools.NewRegistry(editTool())}
			if tc.policy != nil {
				cfg.Policy = tc.policy
			}
			ui := front{lander: lander}
			a, _ := newAgent(t, srv, cfg)
			ui.prompt(t, a.NewSession(), "edit twice")
			if !slices.Equal(offered, tc.want) {
				t.Errorf("questions offered always allow %v, want %v", offered, tc.want)
			}
		})
	}
}

// sortedFirst is a copy of s with its first n elements sorted.
func sortedFirst(s []string, n int) []string {
	s = slices.Clone(s)
	slices.Sort(s[:min(n, len(s))])
	return s
}
