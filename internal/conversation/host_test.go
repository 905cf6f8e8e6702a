package conversation_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A fourth front end over Go channels runs, through the host, a prompt
// with an edit, a confirmation and a question, each put to its user, and
// a slash command that answers without the model.
func TestInProcessFrontEnd(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	file := filepath.Join(root, "a.go")
	if err := os.WriteFile(file, []byte("package a\n\nfunc f() int { return 1 }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"})),
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo hi"})),
		geminitest.CallTurn(geminitest.Call("ask_user", map[string]any{"questions": []any{map[string]any{
			"header": "Database", "question": "Which database?", "type": "choice",
			"options": []any{map[string]any{"label": "SQLite", "description": "One file."}, map[string]any{"label": "Redis", "description": ""}},
		}}})),
		geminitest.TextTurn("Done."))
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Version: "1.2.3-test", Retry: dialog.RetryPolicy{MaxAttempts: 1}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(ctx, conversation.Place{Workspace: ws, Warn: func(what string, err error) { t.Logf("%s: %v", what, err) }})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	live := f.host.Open(built, true, struct{}{})
	defer f.host.Close(live.ID())
	go f.serve(ctx)

	// The user: yes to everything asked, until the outcome comes.
	prompt := func(text string) (conversation.Outcome, []string) {
		f.prompts <- request{id: live.ID(), text: text}
		var asked []string
		for {
			select {
			case q := <-f.questions:
				asked = append(asked, q.what)
				q.answer <- true
			case o := <-f.outcomes:
				return o, asked
			}
		}
	}

	o, asked := prompt("fix it")
	if o.Ending != conversation.Done || o.Text != "Done." {
		t.Fatalf("outcome %+v", o)
	}
	want := []string{"edit " + file, "run_shell_command: ", "Which database?"}
	if len(asked) != 3 || asked[0] != want[0] || !strings.HasPrefix(asked[1], want[1]) || asked[2] != want[2] {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "return 2") {
		t.Errorf("a.go holds %q, want the edit landed", b)
	}
	last := model.Requests()[len(model.Requests())-1]
	if got := responses(last); !strings.Contains(got, "SQLite") || !strings.Contains(got, "hi") {
		t.Errorf("the model was not told the shell's output and the answer: %s", got)
	}

	requests := len(model.Requests())
	o, asked = prompt("/about")
	if o.Ending != conversation.Done || !strings.Contains(o.Text, "1.2.3-test") || len(asked) != 0 {
		t.Errorf("/about: %+v, asked %q", o, asked)
	}
	if n := len(model.Requests()); n != requests {
		t.Errorf("/about made %d model requests", n-requests)
	}
	var shown []string
	for len(f.shown) > 0 {
		shown = append(shown, <-f.shown)
	}
	for _, s := range []string{"call: replace", "call: run_shell_command", "call: ask_user", "text: Done."} {
		if !slices.Contains(shown, s) {
			t.Errorf("shown %q lacks %q", shown, s)
		}
	}

	if o := f.host.Prompt(ctx, "no-such-session", dialog.Input{Text: "hi"}, f); o.Ending != conversation.Unknown {
		t.Errorf("a prompt to no session: %+v", o)
	}
}

// responses is the text of every function response in req.
func responses(req geminitest.Request) string {
	var b strings.Builder
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				for k, v := range p.FunctionResponse.Response {
					b.WriteString(k + "=" + strings.TrimSpace(strings.ReplaceAll(toString(v), "\n", " ")) + ";")
				}
			}
		}
	}
	return b.String()
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// A front end sharing one build among its sessions (LSP) resumes a live
// session as it is, holds its turn with a claim that a prompt meets as
// busy, and keeps no session its agent dropped from memory.
func TestHostSharedBuild(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	model := geminitest.NewTestServer(t, geminitest.TextTurn("Done."))
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Retry: dialog.RetryPolicy{MaxAttempts: 1}})
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(t.Context(), conversation.Place{Workspace: ws})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	defer built.Close()
	first := f.host.Open(built, false, struct{}{})
	again, err := f.host.Resume(t.Context(), built, first.ID(), "", false, struct{}{})
	if err != nil || again != first {
		t.Fatalf("resuming a live session: %p, %v; want %p", again, err, first)
	}

	claim, err := f.host.Begin(t.Context(), first.ID())
	if err != nil {
		t.Fatal(err)
	}
	if o := f.host.Prompt(t.Context(), first.ID(), dialog.Input{Text: "hi"}, f); o.Ending != conversation.Busy {
		t.Errorf("a prompt while a claim holds the session: %+v, want Busy", o)
	}
	if o := claim.Prompt(dialog.Input{Text: "hi"}, f); o.Ending != conversation.Done || o.Text != "Done." {
		t.Errorf("the claim's prompt: %+v", o)
	}
	claim.End()
	if _, err := f.host.Begin(t.Context(), "no-such-session"); !conversation.IsUnknownSession(err) {
		t.Errorf("claiming no session: %v", err)
	}

	for range dialog.MaxLiveSessions {
		f.host.Open(built, false, struct{}{})
	}
	if _, ok := f.host.Lookup(first.ID()); ok {
		t.Errorf("the host still holds session %s, which its agent dropped from memory", first.ID())
	}
}

// hostFor is a host over a fake model answering turns, and a build of
// its for a fresh root, trusted or not.
func hostFor(t *testing.T, trusted bool, turns ...geminitest.Turn) (*chanFront, *conversation.Build) {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	model := geminitest.NewTestServer(t, turns...)
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      strconv.FormatBool(trusted),
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Retry: dialog.RetryPolicy{MaxAttempts: 1}})
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(t.Context(), conversation.Place{Workspace: ws})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	t.Cleanup(built.Close)
	return f, built
}

func TestHostSetMode(t *testing.T) {
	f, built := hostFor(t, true)
	one, other := f.host.Open(built, false, struct{}{}), f.host.Open(built, false, struct{}{})
	if err := f.host.SetMode(t.Context(), one.ID(), dialog.ApprovalAutoEdit); err != nil {
		t.Fatal(err)
	}
	if got := one.Mode(); got != dialog.ApprovalAutoEdit {
		t.Errorf("the session's mode: %s, want %s", got, dialog.ApprovalAutoEdit)
	}
	if got := other.Mode(); got != dialog.ApprovalDefault {
		t.Errorf("another session of the shared build: %s, want it kept at %s", got, dialog.ApprovalDefault)
	}
	if err := f.host.SetMode(t.Context(), one.ID(), ""); err != nil {
		t.Fatal(err)
	}
	if got := one.Mode(); got != dialog.ApprovalDefault {
		t.Errorf("the session after \"\": %s, want the build's %s", got, dialog.ApprovalDefault)
	}
	if err := f.host.SetMode(t.Context(), "no-such-session", dialog.ApprovalYolo); !conversation.IsUnknownSession(err) {
		t.Errorf("setting the mode of no session: %v", err)
	}

	f, built = hostFor(t, true)
	own := f.host.Open(built, true, struct{}{})
	if err := f.host.SetMode(t.Context(), own.ID(), dialog.ApprovalYolo); err != nil {
		t.Fatal(err)
	}
	if got := f.host.Open(built, false, struct{}{}).Mode(); got != dialog.ApprovalYolo {
		t.Errorf("the build of a session that owns it: %s, want %s", got, dialog.ApprovalYolo)
	}
}

func TestHostSetModeUntrusted(t *testing.T) {
	f, built := hostFor(t, false)
	l := f.host.Open(built, true, struct{}{})
	err := f.host.SetMode(t.Context(), l.ID(), dialog.ApprovalYolo)
	if _, ok := errors.AsType[*conversation.UntrustedError](err); !ok {
		t.Fatalf("yolo in a folder not trusted: %v, want an *UntrustedError", err)
	}
	if got := l.Mode(); got != dialog.ApprovalDefault {
		t.Errorf("the refused mode was set: %s", got)
	}
	for _, mode := range []dialog.ApprovalMode{dialog.ApprovalDefault, dialog.ApprovalPlan} {
		if err := f.host.SetMode(t.Context(), l.ID(), mode); err != nil {
			t.Errorf("%s in a folder not trusted: %v", mode, err)
		}
	}
}

func TestHostSetModel(t *testing.T) {
	f, built := hostFor(t, true, geminitest.TextTurn("Done."))
	l := f.host.Open(built, false, struct{}{})
	if err := f.host.SetModel(l.ID(), "gemini-2.5-flash"); err != nil {
		t.Fatal(err)
	}
	if got := f.host.Model(built); got != "gemini-2.5-flash" {
		t.Errorf("the model after SetModel: %s", got)
	}
	if err := f.host.SetModel("no-such-session", "gemini-2.5-flash"); !conversation.IsUnknownSession(err) {
		t.Errorf("setting the model of no session: %v", err)
	}
}

func TestClaimRewind(t *testing.T) {
	f, built := hostFor(t, true, geminitest.TextTurn("Done."))
	l := f.host.Open(built, false, struct{}{})
	if o := f.host.Prompt(t.Context(), l.ID(), dialog.Input{Text: "hi"}, f); o.Ending != conversation.Done {
		t.Fatalf("the prompt: %+v", o)
	}
	claim, err := f.host.Begin(t.Context(), l.ID())
	if err != nil {
		t.Fatal(err)
	}
	if o := f.host.Prompt(t.Context(), l.ID(), dialog.Input{Text: "again"}, f); o.Ending != conversation.Busy {
		t.Errorf("a prompt while the rewind holds the session: %+v, want Busy", o)
	}
	res, err := claim.Rewind(1, dialog.RewindConversation, f)
	claim.End()
	if err != nil || res.Removed != 1 {
		t.Fatalf("rewinding to before prompt 1: %+v, %v", res, err)
	}
	if pts := l.RewindPoints(); len(pts) != 0 {
		t.Errorf("the prompts after the rewind: %+v", pts)
	}
}

// A session running a prompt is read again (Replay) only once the prompt
// ends: the host's gate refuses it meanwhile, in the one busy wording,
// which names how the front end cancels.
func TestHostReplayOfABusySession(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	model := geminitest.NewTestServer(t, geminitest.Turn{Hang: true})
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Retry: dialog.RetryPolicy{MaxAttempts: 1}, Cancel: "the stop button"})
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(t.Context(), conversation.Place{Workspace: ws})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	t.Cleanup(built.Close)
	l := f.host.Open(built, false, struct{}{})
	outcome := make(chan conversation.Outcome, 1)
	go func() { outcome <- f.host.Prompt(t.Context(), l.ID(), dialog.Input{Text: "hang"}, f) }()
	if _, err := model.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.host.Replay(t.Context(), built, l.ID())
	if !errors.Is(err, dialog.ErrBusy) || !strings.Contains(err.Error(), "still answering") || !strings.HasSuffix(err.Error(), "cancel it with the stop button") {
		t.Errorf("replaying a session whose prompt runs: %v, want the host's busy error", err)
	}
	f.host.Cancel(l.ID())
	if o := <-outcome; o.Ending != conversation.Cancelled {
		t.Fatalf("the prompt: %+v", o)
	}
	if _, _, err := f.host.Replay(t.Context(), built, l.ID()); err != nil {
		t.Errorf("replaying the session once its prompt ended: %v", err)
	}
}

// A session running a prompt is not deleted (Delete): the host's gate
// refuses it; once the prompt ends it is, and it is neither live nor
// listed any more.
func TestHostDeleteOfABusySession(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	model := geminitest.NewTestServer(t, geminitest.Turn{Hang: true})
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Retry: dialog.RetryPolicy{MaxAttempts: 1}, Cancel: "the stop button"})
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(t.Context(), conversation.Place{Workspace: ws})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	t.Cleanup(built.Close)
	l := f.host.Open(built, false, struct{}{})
	outcome := make(chan conversation.Outcome, 1)
	go func() { outcome <- f.host.Prompt(t.Context(), l.ID(), dialog.Input{Text: "hang"}, f) }()
	if _, err := model.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if err := f.host.Delete(t.Context(), built, l.ID()); !errors.Is(err, dialog.ErrBusy) {
		t.Errorf("deleting a session whose prompt runs: %v, want the host's busy error", err)
	}
	f.host.Cancel(l.ID())
	if o := <-outcome; o.Ending != conversation.Cancelled {
		t.Fatalf("the prompt: %+v", o)
	}
	if err := f.host.Delete(t.Context(), built, l.ID()); err != nil {
		t.Fatalf("deleting the session once its prompt ended: %v", err)
	}
	if _, live := f.host.Lookup(l.ID()); live {
		t.Error("the deleted session is still live")
	}
	if list, err := f.host.List(t.Context(), built, ""); err != nil || len(list) != 0 {
		t.Errorf("sessions after the delete: %+v, %v", list, err)
	}
	if err := f.host.Delete(t.Context(), built, l.ID()); !conversation.IsUnknownSession(err) {
		t.Errorf("deleting it again: %v, want an unknown session", err)
	}
}

// sessionView is one turn's view in a test of two sessions at once: it
// shows nothing, and says which turn each of its questions reached,
// answering each once the test lets it.
type sessionView struct {
	name    string
	asked   chan<- string
	answers <-chan dialog.ConfirmOutcome
}

func (v sessionView) Show(context.Context, dialog.Subagent, dialog.Event) {}

func (v sessionView) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	return v.wait(ctx, "confirm "+req.Details)
}

func (v sessionView) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	if o, err := v.wait(ctx, "ask "+req.Question.Text); err != nil || o == dialog.Cancel {
		return dialog.Answer{Declined: true}, err
	}
	return dialog.Answer{Chosen: []string{req.Question.Options[0].ID}}, nil
}

// wait says what reached the view, and waits for the test's answer.
func (v sessionView) wait(ctx context.Context, what string) (dialog.ConfirmOutcome, error) {
	v.asked <- v.name + ": " + what
	select {
	case o := <-v.answers:
		return o, nil
	case <-ctx.Done():
		return dialog.Cancel, ctx.Err()
	}
}

func (v sessionView) Land(context.Context, dialog.LandRequest) (dialog.Landing, error) {
	return dialog.Landing{}, errors.New("no edits here")
}

func (v sessionView) LandFiles(context.Context, dialog.LandFilesRequest) ([]dialog.Decision, error) {
	return nil, errors.New("no reverts here")
}

func (v sessionView) AskTrust(context.Context, dialog.TrustRequest) (string, error) {
	return "", dialog.ErrCannotAsk
}

// askUser is a model turn calling ask_user with question, of one choice.
func askUser(question string) geminitest.Turn {
	return geminitest.CallTurn(geminitest.Call("ask_user", map[string]any{"questions": []any{map[string]any{
		"header": "Pick", "question": question, "type": "choice",
		"options": []any{map[string]any{"label": "Yes", "description": ""}, map[string]any{"label": "No", "description": ""}},
	}}}))
}

// Two sessions of one build run a turn each at once, each asking a
// confirmation (run_shell_command) and then a question (ask_user) while
// the other's question waits: each question reaches the view its own
// turn was handed with its prompt, never the other's.
func TestQuestionsReachTheViewOfTheirTurn(t *testing.T) {
	f, built := hostFor(t, true,
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo first"})),
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo second"})),
		askUser("First's question?"), askUser("Second's question?"),
		geminitest.TextTurn("Done."), geminitest.TextTurn("Done."))
	one, other := f.host.Open(built, false, struct{}{}), f.host.Open(built, false, struct{}{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // hang guard
	defer cancel()
	asked := make(chan string, 4)
	oneAnswers, otherAnswers := make(chan dialog.ConfirmOutcome, 2), make(chan dialog.ConfirmOutcome, 2)
	outcomes := make(chan conversation.Outcome, 2)
	prompt := func(l *conversation.Live[struct{}], v sessionView) {
		outcomes <- f.host.Prompt(ctx, l.ID(), dialog.Input{Text: "run it"}, v)
	}
	next := func() string {
		select {
		case q := <-asked:
			return q
		case <-ctx.Done():
			t.Fatal("no question reached a view")
			return ""
		}
	}

	// Each question waits for its answer while the other turn asks, so
	// the model's turns go to the sessions in this order.
	go prompt(one, sessionView{name: "one", asked: asked, answers: oneAnswers})
	got := []string{next()}
	go prompt(other, sessionView{name: "other", asked: asked, answers: otherAnswers})
	got = append(got, next())
	oneAnswers <- dialog.Cancel
	got = append(got, next())
	otherAnswers <- dialog.Cancel
	got = append(got, next())
	want := []string{"one: confirm echo first", "other: confirm echo second", "one: ask First's question?", "other: ask Second's question?"}
	if !slices.Equal(got, want) {
		t.Errorf("the questions reached %q, want %q: each its own turn's view", got, want)
		cancel()
	}
	oneAnswers <- dialog.ProceedOnce
	otherAnswers <- dialog.ProceedOnce
	for range 2 {
		if o := <-outcomes; o.Ending != conversation.Done && ctx.Err() == nil {
			t.Errorf("a turn ended %+v", o)
		}
	}
}
