package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	conv "github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// writeTool writes args.text to args.path in ws, as the edit tools do:
// a proposal the front end lands.
func writeTool(ws *workspace.Workspace) fakeTool {
	return fakeTool{name: "write", build: func(args map[string]any) (tools.Call, error) {
		path, _ := args["path"].(string)
		text, _ := args["text"].(string)
		return fakeCall{title: "Write", kind: dialog.KindEdit, confirmation: tools.EditConfirmation(path), exec: func(ctx context.Context) (tools.Result, error) {
			change, err := ws.PrepareChange(ctx, path, text)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Proposal: &tools.Proposal{Change: change}}, nil
		}}, nil
	}}
}

func write(path, text string) geminitest.Turn {
	return geminitest.CallTurn(geminitest.Call("write", map[string]any{"path": path, "text": text}))
}

// diskUser lands changes and reverts on disk, and answers questions
// about conflicts with answer.
type diskUser struct {
	answer  dialog.ConfirmOutcome
	asked   []dialog.ConfirmRequest
	reverts []dialog.LandFilesRequest
}

func (d *diskUser) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	dec, err := tools.LandOnDisk(ctx, req.Change)
	return dialog.Landing{Decision: dec}, err
}

func (d *diskUser) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	d.reverts = append(d.reverts, req)
	var out []dialog.Decision
	for _, c := range req.Changes {
		dec, err := conv.LandRevertOnDisk(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, dec)
	}
	return out, nil
}

func (d *diskUser) Confirm(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	d.asked = append(d.asked, req)
	return d.answer, nil
}

// rewindSetup is a workspace with a.txt (a BOM and CRLF) and b.txt, and
// an agent whose three prompts change a.txt, then b.txt and a new c.txt,
// then a.txt again.
type rewindSetup struct {
	dir, a, b, c string
	aOriginal    string
	srv          *geminitest.Server
	user         *diskUser
	ui           front // answering as user does
	newAgent     func() *agent.Agent
}

func newRewindSetup(t *testing.T, answer dialog.ConfirmOutcome, extra ...geminitest.Turn) *rewindSetup {
	t.Helper()
	dir := t.TempDir()
	r := &rewindSetup{dir: dir, a: filepath.Join(dir, "a.txt"), b: filepath.Join(dir, "b.txt"), c: filepath.Join(dir, "c.txt"),
		aOriginal: "\ufeffone\r\ntwo\r\n", user: &diskUser{answer: answer}}
	r.ui = front{lander: r.user, confirmer: r.user}
	must(t, os.WriteFile(r.a, []byte(r.aOriginal), 0o644))
	must(t, os.WriteFile(r.b, []byte("b\n"), 0o644))
	ws, err := workspace.New([]string{dir}, nil)
	must(t, err)
	turns := []geminitest.Turn{
		write(r.a, "one\nTWO\n"), geminitest.TextTurn("first done"),
		write(r.b, "B\n"), write(r.c, "new\n"), geminitest.TextTurn("second done"),
		write(r.a, "ONE\nTWO\n"), geminitest.TextTurn("third done"),
	}
	r.srv = geminitest.NewTestServer(t, append(turns, extra...)...)
	store := newStore(t)
	r.newAgent = func() *agent.Agent {
		a, _ := newAgent(t, r.srv, agent.Config{Tools: tools.NewRegistry(writeTool(ws)), ApprovalMode: dialog.ApprovalAutoEdit, Workspace: ws, Store: store})
		return a
	}
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (r *rewindSetup) converse(t *testing.T, s *agent.Session) {
	t.Helper()
	for _, p := range []string{"first", "second", "third"} {
		if res, _ := r.ui.prompt(t, s, p); res.StopReason != dialog.StopEndTurn {
			t.Fatalf("prompt %s: %+v", p, res)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// The journal lists each prompt with the files the agent changed, and a
// new process (a new agent on the same store) sees the same.
func TestRewindPointsListFilesPerPromptAcrossARestart(t *testing.T) {
	r := newRewindSetup(t, dialog.Cancel)
	s := r.newAgent().NewSession()
	r.converse(t, s)
	want := []dialog.RewindPoint{
		{Prompt: 1, Text: "first", Files: []string{r.a}},
		{Prompt: 2, Text: "second", Files: []string{r.b, r.c}},
		{Prompt: 3, Text: "third", Files: []string{r.a}},
	}
	check := func(what string, got []dialog.RewindPoint) {
		t.Helper()
		if !slices.EqualFunc(got, want, func(x, y dialog.RewindPoint) bool {
			return x.Prompt == y.Prompt && x.Text == y.Text && slices.Equal(x.Files, y.Files)
		}) {
			t.Errorf("%s: points = %+v, want %+v", what, got, want)
		}
	}
	check("live", s.RewindPoints())
	resumed, err := r.newAgent().Session(context.Background(), s.ID())
	must(t, err)
	check("resumed", resumed.RewindPoints())
}

// Rewinding both to before prompt 1: each file goes back to its exact
// bytes before the agent's first change (the BOM and CRLF of a.txt; the
// created c.txt deleted), a file the user changed since is a conflict the
// user is asked about and, declined, kept; the history and the saved
// session lose the prompts, so the next request carries none of them,
// in this process or the next.
func TestRewindBothToBeforeTheFirstPrompt(t *testing.T) {
	r := newRewindSetup(t, dialog.Cancel, geminitest.TextTurn("fresh"))
	s := r.newAgent().NewSession()
	r.converse(t, s)
	must(t, os.WriteFile(r.b, []byte("the user's B\n"), 0o644))

	res, err := s.Rewind(context.Background(), 1, dialog.RewindBoth, r.ui.port(nil))
	must(t, err)
	if got := read(t, r.a); got != r.aOriginal {
		t.Errorf("a.txt = %q, want the original %q", got, r.aOriginal)
	}
	if got := read(t, r.b); got != "the user's B\n" {
		t.Errorf("b.txt = %q: the user's change was overwritten", got)
	}
	if _, err := os.Stat(r.c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt, created by the agent, still exists: %v", err)
	}
	outcomes := map[string]dialog.RevertOutcome{}
	for _, f := range res.Files {
		outcomes[f.Path] = f.Outcome
	}
	if outcomes[r.a] != dialog.Reverted || outcomes[r.b] != dialog.Conflict || outcomes[r.c] != dialog.Reverted {
		t.Errorf("files = %+v", res.Files)
	}
	if len(r.user.asked) != 1 || !strings.Contains(r.user.asked[0].Title, "b.txt") {
		t.Errorf("asked %+v, want one question about b.txt", r.user.asked)
	}
	if len(r.user.reverts) != 1 || len(r.user.reverts[0].Changes) != 2 {
		t.Errorf("reverts landed = %+v, want one of two files", r.user.reverts)
	}
	if res.Removed != 3 || len(s.RewindPoints()) != 0 {
		t.Errorf("removed %d, points left %+v", res.Removed, s.RewindPoints())
	}

	// A new process resumes the session without the prompts.
	resumed, err := r.newAgent().Session(context.Background(), s.ID())
	must(t, err)
	if len(resumed.RewindPoints()) != 0 {
		t.Errorf("resumed points = %+v", resumed.RewindPoints())
	}
	if res, _ := r.ui.prompt(t, resumed, "again"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt after the rewind: %+v", res)
	}
	reqs := r.srv.Requests()
	equalTexts(t, "the request after the rewind", reqs[len(reqs)-1].Contents, "user: again")
}

// Rewinding the conversation to before prompt 2 keeps prompt 1 in the
// history and leaves the files alone; a note says the removed prompts'
// changes stay.
func TestRewindConversationKeepsTheEarlierPrompts(t *testing.T) {
	r := newRewindSetup(t, dialog.Cancel, geminitest.TextTurn("fresh"))
	s := r.newAgent().NewSession()
	r.converse(t, s)
	res, err := s.Rewind(context.Background(), 2, dialog.RewindConversation, r.ui.port(nil))
	must(t, err)
	if res.Removed != 2 || len(res.Files) != 0 || len(res.Notes) != 1 {
		t.Errorf("result = %+v", res)
	}
	if got := read(t, r.a); got != "\ufeffONE\r\nTWO\r\n" {
		t.Errorf("a.txt = %q: a conversation rewind changed files", got)
	}
	history, err := s.History()
	must(t, err)
	if n := len(history); n != 4 || history[0].Parts[0].Text != "first" {
		t.Errorf("history = %v, want prompt 1's four contents", texts(history))
	}
	if pts := s.RewindPoints(); len(pts) != 1 || pts[0].Text != "first" {
		t.Errorf("points = %+v", pts)
	}
	// The prompt is gone now, and the error says so in words.
	_, err = s.Rewind(context.Background(), 2, dialog.RewindConversation, r.ui.port(nil))
	if !errors.Is(err, dialog.ErrNoSuchPrompt) || !strings.HasSuffix(err.Error(), "the conversation has 1 prompt") {
		t.Errorf("rewinding a removed prompt: %v", err)
	}
}

// Reverting the code to before prompt 3 takes a.txt back to what prompt 2
// left (its state before prompt 3's first change), keeps the conversation,
// and forgets the reverted change, so the list no longer shows it, in
// this process or the next.
func TestRewindCodeOnlyFromALaterPrompt(t *testing.T) {
	r := newRewindSetup(t, dialog.Cancel)
	s := r.newAgent().NewSession()
	r.converse(t, s)
	res, err := s.Rewind(context.Background(), 3, dialog.RewindCode, r.ui.port(nil))
	must(t, err)
	if got := read(t, r.a); got != "\ufeffone\r\nTWO\r\n" {
		t.Errorf("a.txt = %q, want what prompt 2 left", got)
	}
	if res.Removed != 0 || len(res.Files) != 1 || res.Files[0].Outcome != dialog.Reverted {
		t.Errorf("result = %+v", res)
	}
	pts := s.RewindPoints()
	if len(pts) != 3 || len(pts[2].Files) != 0 {
		t.Errorf("points = %+v", pts)
	}
	resumed, err := r.newAgent().Session(context.Background(), s.ID())
	must(t, err)
	if pts := resumed.RewindPoints(); len(pts) != 3 || len(pts[2].Files) != 0 {
		t.Errorf("resumed points = %+v: the forgotten change was not saved", pts)
	}
}

// A conflict the user says to revert anyway is reverted.
func TestRewindConflictRevertedWhenTheUserSaysSo(t *testing.T) {
	r := newRewindSetup(t, dialog.ProceedOnce)
	s := r.newAgent().NewSession()
	r.converse(t, s)
	must(t, os.WriteFile(r.b, []byte("the user's B\n"), 0o644))
	if _, err := s.Rewind(context.Background(), 2, dialog.RewindCode, r.ui.port(nil)); err != nil {
		t.Fatal(err)
	}
	if got := read(t, r.b); got != "b\n" {
		t.Errorf("b.txt = %q, want the original", got)
	}
}

// Across a compression: before a prompt after the summary the cut is
// exact, and before prompt 1 everything goes, the summary too.
func TestRewindAcrossCompression(t *testing.T) {
	turns := append(conversation(), geminitest.TextTurn(snapshot))
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-2.5-pro", TokenLimit: 1000000})
	s := a.NewSession()
	converse(t, s)
	if _, err := s.Compress(context.Background()); err != nil {
		t.Fatal(err)
	}
	before, err := s.History()
	must(t, err)
	if agent.CompressedPrefix(before) != 2 || len(before) != 6 {
		t.Fatalf("compressed history = %v", texts(before))
	}
	// Prompt 3 is after the summary: cut exactly.
	res, err := s.Rewind(context.Background(), 3, dialog.RewindConversation, front{}.port(nil))
	must(t, err)
	history, _ := s.History()
	equalTexts(t, "before prompt 3", history, texts(before[:4])...)
	if len(res.Notes) != 0 {
		t.Errorf("notes = %q", res.Notes)
	}
	// Prompt 1 was summarised, prompt 2 is the first after the summary:
	// the summary stays, as it tells of prompt 1 alone.
	res, err = s.Rewind(context.Background(), 2, dialog.RewindConversation, front{}.port(nil))
	must(t, err)
	history, _ = s.History()
	equalTexts(t, "before prompt 2", history, texts(before[:2])...)
	if len(res.Notes) != 0 {
		t.Errorf("notes = %q", res.Notes)
	}
	if pts := s.RewindPoints(); len(pts) != 1 {
		t.Errorf("points = %+v", pts)
	}
	res, err = s.Rewind(context.Background(), 1, dialog.RewindConversation, front{}.port(nil))
	must(t, err)
	if history, _ = s.History(); len(history) != 0 {
		t.Errorf("history before prompt 1 = %v", texts(history))
	}
	if res.Removed != 1 {
		t.Errorf("result = %+v", res)
	}
}

// A change too large to journal is kept by path alone, and the rewind
// says it cannot revert it rather than pretend.
func TestRewindReportsAnUnjournaledChange(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	ws, err := workspace.New([]string{dir}, nil)
	must(t, err)
	srv := geminitest.NewTestServer(t, write(big, strings.Repeat("x", 1<<20+1)), geminitest.TextTurn("done"))
	user := &diskUser{}
	ui := front{lander: user, confirmer: user}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(writeTool(ws)), ApprovalMode: dialog.ApprovalAutoEdit, Workspace: ws})
	s := a.NewSession()
	if res, _ := ui.prompt(t, s, "big"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt: %+v", res)
	}
	res, err := s.Rewind(context.Background(), 1, dialog.RewindCode, ui.port(nil))
	must(t, err)
	if len(res.Files) != 1 || res.Files[0].Outcome != dialog.NotReverted || !strings.Contains(res.Files[0].Reason, "not journaled") {
		t.Errorf("files = %+v, want big.txt not reverted because it was not journaled", res.Files)
	}
	if _, err := os.Stat(big); err != nil {
		t.Errorf("big.txt: %v", err)
	}
}

// A BOM the model adds is the agent's change: the journal keeps the
// file's bytes before it, without a BOM, and the rewind takes it away.
func TestRewindTakesAwayABOMTheModelAdded(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	must(t, os.WriteFile(plain, []byte("plain\n"), 0o644))
	ws, err := workspace.New([]string{dir}, nil)
	must(t, err)
	srv := geminitest.NewTestServer(t, write(plain, "\ufeffPLAIN\n"), geminitest.TextTurn("done"))
	user := &diskUser{answer: dialog.Cancel}
	ui := front{lander: user, confirmer: user}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(writeTool(ws)), ApprovalMode: dialog.ApprovalAutoEdit, Workspace: ws, Store: newStore(t)})
	s := a.NewSession()
	if res, _ := ui.prompt(t, s, "add a BOM"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt: %+v", res)
	}
	if got := read(t, plain); got != "\ufeffPLAIN\n" {
		t.Fatalf("after the edit plain.txt = %q", got)
	}
	res, err := s.Rewind(context.Background(), 1, dialog.RewindCode, ui.port(nil))
	must(t, err)
	if got := read(t, plain); got != "plain\n" {
		t.Errorf("plain.txt = %q after the rewind, want its original %q (no BOM); files %+v", got, "plain\n", res.Files)
	}
}
