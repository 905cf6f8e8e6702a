package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func newStore(t *testing.T) *sessionstore.Store {
	t.Helper()
	st, err := sessionstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A session saved by one agent is continued by another, as after a
// restart: the model sees the whole earlier history, the user's "always
// allow" still holds, and the transcript and the list show it.
func TestSessionResumedByANewAgent(t *testing.T) {
	store := newStore(t)
	srv := geminitest.NewTestServer(t,
		shellTurn("make"), geminitest.TextTurn("built"),
		shellTurn("make"), geminitest.TextTurn("built again"),
	)
	sh := &shellTool{}
	conf := always(dialog.ProceedAlways)
	ui := front{confirmer: conf}
	first, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Store: store})
	s := first.NewSession()
	if res, _ := ui.prompt(t, s, "build it\nplease"); res.Text != "built" {
		t.Fatalf("first prompt = %+v", res)
	}

	second, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Store: store})
	list, err := second.Sessions(context.Background(), "")
	if err != nil || len(list) != 1 || list[0].ID != s.ID() || list[0].Title != "build it" || list[0].Prompts != 1 || list[0].Live {
		t.Fatalf("Sessions = %+v, %v", list, err)
	}
	resumed, err := second.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := ui.prompt(t, resumed, "again"); res.Text != "built again" {
		t.Fatalf("resumed prompt = %+v", res)
	}
	if n := len(conf.asked()); n != 1 {
		t.Errorf("asked %d times; the resumed session must remember \"always allow\"", n)
	}
	// The resumed request carries the first prompt's whole exchange.
	reqs := srv.Requests()
	before := reqs[1].Contents // the first prompt's last request
	after := reqs[2].Contents
	if len(after) != len(before)+2 {
		t.Fatalf("resumed request has %d contents, want the %d earlier ones plus the model's answer and the new prompt", len(after), len(before))
	}
	for i, c := range before {
		if !sameContent(c, after[i]) {
			t.Errorf("content %d differs after resume: %+v vs %+v", i, c, after[i])
		}
	}
	info, tr, err := second.Transcript(context.Background(), s.ID())
	if err != nil || info.Prompts != 2 || len(tr) != 2 || tr[0].Prompt != "build it\nplease" || tr[0].Answer != "built" || tr[1].Answer != "built again" || tr[1].StopReason != dialog.StopEndTurn {
		t.Errorf("transcript = %+v %+v, %v", info, tr, err)
	}
	if _, err := second.Session(context.Background(), "NOSUCHSESSION"); !errors.As(err, new(*dialog.UnknownSessionError)) {
		t.Errorf("unknown id: %v", err)
	}
}

func sameContent(a, b *genai.Content) bool {
	if a.Role != b.Role || len(a.Parts) != len(b.Parts) {
		return false
	}
	for i := range a.Parts {
		if a.Parts[i].Text != b.Parts[i].Text || (a.Parts[i].FunctionCall == nil) != (b.Parts[i].FunctionCall == nil) {
			return false
		}
	}
	return true
}

// A session dropped from memory to bound it comes back from disk.
func TestDroppedSessionIsResumedFromDisk(t *testing.T) {
	turns := make([]geminitest.Turn, dialog.MaxLiveSessions+2)
	for i := range turns {
		turns[i] = geminitest.TextTurn("ok")
	}
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Store: newStore(t)})
	first := a.NewSession()
	prompt(t, first, "first")
	for range dialog.MaxLiveSessions {
		prompt(t, a.NewSession(), "more")
	}
	if live := a.LiveSessions(); len(live) != dialog.MaxIdleSavedSessions+1 || slices.ContainsFunc(live, func(i dialog.SessionInfo) bool { return i.ID == first.ID() }) {
		t.Fatalf("%d live sessions, first among them: the bound did not drop the least recently used", len(live))
	}
	back, err := a.Session(context.Background(), first.ID())
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, back, "back")
	last := srv.Requests()[len(srv.Requests())-1]
	if len(last.Contents) != 3 || last.Contents[0].Parts[0].Text != "first" {
		t.Errorf("resumed request = %d contents", len(last.Contents))
	}
	// first's old value is a dropped session: prompting it is refused.
	if _, err := first.Prompt(context.Background(), dialog.Input{Text: "stale"}, front{}.port(nil)); err == nil && first != back {
		t.Error("a prompt to the dropped session object ran")
	}
}

// A session's own approval mode and the plan approved in it are saved
// with it and come back when it is resumed, as after a restart (a session
// that chose none follows the new agent's): as they were in a trusted
// folder; in one that is not trusted auto_edit comes
// back as default (plan is kept), and plan comes back as default where
// plan mode is off.
func TestSessionModeSurvivesARestart(t *testing.T) {
	store := newStore(t)
	plans := t.TempDir()
	plan := filepath.Join(plans, "p.md")
	if err := os.WriteFile(plan, []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plansDir := func(string) (string, error) { return plans, nil }
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call(tools.ExitPlanModeName, map[string]any{"plan_filename": "p.md"})), geminitest.TextTurn("Approved."),
		geminitest.TextTurn("Still planning."),
		geminitest.TextTurn("Following."),
	)
	reg := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true}})...)
	ui := front{asker: &planAsker{choose: tools.PlanApproveAutoEdit}}
	first, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Store: store, PlansDir: plansDir})
	approved, planning := first.NewSession(), first.NewSession()
	approved.SetApprovalMode(dialog.ApprovalPlan)
	ui.prompt(t, approved, "done planning")
	planning.SetApprovalMode(dialog.ApprovalPlan)
	ui.prompt(t, planning, "keep planning")
	follower := first.NewSession() // never chose a mode
	ui.prompt(t, follower, "hello")
	if approved.ApprovalMode() != dialog.ApprovalAutoEdit || approved.ApprovedPlan() != plan {
		t.Fatalf("before the restart: mode %q, approved plan %q", approved.ApprovalMode(), approved.ApprovedPlan())
	}

	for _, tc := range []struct {
		name                   string
		cfg                    agent.Config
		approvedMode, planMode dialog.ApprovalMode
	}{
		{"trusted", agent.Config{PlansDir: plansDir}, dialog.ApprovalAutoEdit, dialog.ApprovalPlan},
		{"untrusted", agent.Config{PlansDir: plansDir, Untrusted: true}, dialog.ApprovalDefault, dialog.ApprovalPlan},
		{"plan mode off", agent.Config{}, dialog.ApprovalAutoEdit, dialog.ApprovalDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Store, tc.cfg.Workspace, tc.cfg.ApprovalMode = store, ws, dialog.ApprovalYolo
			restarted, _ := newAgent(t, srv, tc.cfg)
			a, err := restarted.Session(context.Background(), approved.ID())
			if err != nil {
				t.Fatal(err)
			}
			if a.ApprovalMode() != tc.approvedMode || a.ApprovedPlan() != plan {
				t.Errorf("the approved session resumed in %q with approved plan %q, want %q and %q", a.ApprovalMode(), a.ApprovedPlan(), tc.approvedMode, plan)
			}
			p, err := restarted.Session(context.Background(), planning.ID())
			if err != nil {
				t.Fatal(err)
			}
			if p.ApprovalMode() != tc.planMode || p.ApprovedPlan() != "" {
				t.Errorf("the planning session resumed in %q with approved plan %q, want %q and none", p.ApprovalMode(), p.ApprovedPlan(), tc.planMode)
			}
			// A session that chose no mode follows the restarted agent's.
			f, err := restarted.Session(context.Background(), follower.ID())
			if err != nil {
				t.Fatal(err)
			}
			if f.ApprovalMode() != dialog.ApprovalYolo {
				t.Errorf("the session that chose no mode resumed in %q, want the agent's yolo", f.ApprovalMode())
			}
		})
	}
}

// A mode chosen between prompts (/plan, a client's mode switch) is saved
// when it is chosen: a restart before the next prompt keeps it.
func TestModeChosenBetweenPromptsSurvivesARestart(t *testing.T) {
	store := newStore(t)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("hello"))
	first, _ := newAgent(t, srv, agent.Config{Store: store})
	s := first.NewSession()
	prompt(t, s, "hi")
	s.SetApprovalMode(dialog.ApprovalAutoEdit)
	if err := s.SaveMode(context.Background()); err != nil {
		t.Fatal(err)
	}
	restarted, _ := newAgent(t, srv, agent.Config{Store: store})
	resumed, err := restarted.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if resumed.ApprovalMode() != dialog.ApprovalAutoEdit {
		t.Errorf("resumed in %q, want auto_edit", resumed.ApprovalMode())
	}
	if got := len(resumed.RewindPoints()); got != 1 {
		t.Errorf("the resumed session has %d prompts, want 1: saving the mode must add none", got)
	}

	// A session never saved is not saved for its mode alone.
	fresh := first.NewSession()
	fresh.SetApprovalMode(dialog.ApprovalAutoEdit)
	if err := fresh.SaveMode(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := restarted.Session(context.Background(), fresh.ID()); err == nil {
		t.Error("a session with no prompt was saved")
	}
}
