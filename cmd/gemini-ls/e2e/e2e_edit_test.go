package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

const aGo = "package a\n\nfunc A() int { return 1 }\n"

// editTurns: the model edits a.go, then says done.
func editTurns() []geminitest.Turn {
	return []geminitest.Turn{
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
		geminitest.TextTurn("done"),
	}
}

// strategies are the three ways an edit is confirmed, by client.
var strategies = []struct {
	name    string
	profile func() lsptest.Profile
	// asks: the server asks with showMessageRequest before a plain applyEdit.
	asks bool
}{
	{"plugin preview", lsptest.Plugin, false},
	{"plugin preview through gemini/request (Neovim)", lsptest.NeovimPlugin, false},
	{"VS Code change annotations", lsptest.VSCode, false},
	{"showMessageRequest (eglot)", lsptest.Eglot, true},
}

func TestEditConfirmationStrategies(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.name+"/accepted", func(t *testing.T) {
			h := start(t, setup{profile: st.profile(), files: map[string]string{"a.go": aGo}}, editTurns()...)
			h.open("a.go")
			h.prompt(map[string]any{"prompt": "return 2"})
			h.wantOutput(1, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
			h.wantBuffer("a.go", "package a\n\nfunc A() int { return 2 }\n")
			h.wantDisk("a.go", aGo) // the editor saves, not the server
			h.wantStrategy(st.asks, 1)
		})
		t.Run(st.name+"/declined", func(t *testing.T) {
			h := start(t, setup{profile: st.profile(), files: map[string]string{"a.go": aGo}}, editTurns()...)
			h.open("a.go")
			h.client.OnApplyEdit = lsptest.Decline
			h.client.OnShowMessageRequest = func(string, []string) string { return "Reject" }
			h.prompt(map[string]any{"prompt": "return 2"})
			out := h.toolOutputs(1)
			if len(out) != 1 || !strings.HasPrefix(out[0], "error: This change was not applied: the user declined") || !strings.Contains(out[0], "not modified") {
				t.Errorf("tool output = %q", out)
			}
			if r := h.updates("toolResult"); len(r) != 1 || r[0].Status != "rejected" {
				t.Errorf("toolResult = %+v, want rejected", r)
			}
			h.wantBuffer("a.go", aGo)
			if st.asks {
				// Rejected at the question: no edit was ever sent.
				if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
					t.Errorf("%d applyEdit requests after a rejection", n)
				}
			}
		})
		t.Run(st.name+"/modified by the user", func(t *testing.T) {
			h := start(t, setup{profile: st.profile(), files: map[string]string{"a.go": aGo}}, editTurns()...)
			h.open("a.go")
			h.client.OnApplyEdit = lsptest.Modify(func(_, proposed string) string {
				return strings.Replace(proposed, "return 2", "return 2 // checked", 1)
			})
			h.prompt(map[string]any{"prompt": "return 2"})
			want := "package a\n\nfunc A() int { return 2 // checked }\n"
			h.wantOutput(1, "The user modified your proposed change before accepting it. The file "+h.path("a.go")+" now contains:\n"+want)
			h.wantBuffer("a.go", want)
		})
	}
}

// A client that can only answer showMessageRequest (Helix, stock eglot,
// Neovim without the plugin) is offered an edit of separate changes one
// by one: the user applies the first of two changes four lines apart and
// rejects the second; the buffer holds exactly the first, and the model
// and the chat are told it was accepted in part. A question dismissed
// midway lands nothing.
func TestEditOneChangeAtATimeByQuestions(t *testing.T) {
	twelve := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	proposal := strings.Replace(strings.Replace(twelve, "3\n", "three\n", 1), "8\n", "eight\n", 1)
	turns := func() []geminitest.Turn {
		return []geminitest.Turn{
			call("write_file", map[string]any{"file_path": "n.txt", "content": proposal}),
			geminitest.TextTurn("done"),
		}
	}
	for _, c := range []struct {
		name    string
		answers []string
		want    string
	}{
		{"the first applied, the second rejected", []string{"One by One", "Apply", "Reject"}, strings.Replace(twelve, "3\n", "three\n", 1)},
		{"dismissed at the second", []string{"One by One", "Apply", ""}, twelve},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"n.txt": twelve}}, turns()...)
			h.open("n.txt")
			var questions []string
			var offered [][]string
			h.client.OnShowMessageRequest = func(msg string, actions []string) string {
				questions, offered = append(questions, msg), append(offered, actions)
				return c.answers[min(len(questions), len(c.answers))-1]
			}
			h.prompt(map[string]any{"prompt": "spell two numbers"})
			if len(questions) != 3 || !slices.Contains(offered[0], "One by One") {
				t.Fatalf("questions = %q, actions %q", questions, offered)
			}
			if !strings.HasPrefix(questions[1], "Change 1 of 2 to n.txt, at line 3:") || !strings.Contains(questions[1], "+three") || strings.Contains(questions[1], "eight") {
				t.Errorf("first change's question = %q", questions[1])
			}
			if !strings.HasPrefix(questions[2], "Change 2 of 2 to n.txt, at line 8:") || !strings.Contains(questions[2], "+eight") {
				t.Errorf("second change's question = %q", questions[2])
			}
			h.wantBuffer("n.txt", c.want)
			r := h.updates("toolResult")
			if c.want == twelve {
				if len(r) != 1 || r[0].Status != "rejected" {
					t.Errorf("toolResult = %+v, want rejected", r)
				}
				return
			}
			h.wantOutput(1, "The user accepted 1 of the 2 separate changes you proposed and rejected the others. The file "+h.path("n.txt")+" now contains:\n"+c.want)
			if len(r) != 1 || r[0].Status != "ok" || r[0].Outcome != "accepted in part: 1 of 2 changes" || !strings.HasPrefix(r[0].Display, "Accepted in part: 1 of 2 changes.") {
				t.Errorf("toolResult = %+v, want ok, accepted in part: 1 of 2 changes", r)
			}
		})
	}
}

// With no way to preview or ask, the approval mode decides.
func TestEditWithNoWayToAsk(t *testing.T) {
	t.Run("default declines and says how to allow", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NoQuestions(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		h.open("a.go")
		h.prompt(map[string]any{"prompt": "return 2"})
		out := h.toolOutputs(1)
		if len(out) != 1 || !strings.Contains(out[0], "neither preview an edit nor ask") || !strings.Contains(out[0], `"approvalMode": "auto_edit"`) {
			t.Errorf("tool output = %q", out)
		}
		// It tried to ask (the folder trust question, first), got
		// MethodNotFound, asked no more, and sent no edit.
		if n := len(h.client.Messages("window/showMessageRequest")) + len(h.client.Messages(lsptest.TrustQuestion)); n != 1 {
			t.Errorf("%d showMessageRequest, want 1", n)
		}
		if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
			t.Errorf("%d applyEdit requests", n)
		}
		h.wantBuffer("a.go", aGo)
		// The user is told too, once, how to allow edits.
		shown := h.client.Messages("window/showMessage")
		if len(shown) != 1 || !strings.Contains(string(shown[0].Params), "auto_edit") {
			t.Errorf("showMessage = %v, want one explaining approvalMode", shown)
		}
	})
	t.Run("auto_edit applies", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NoQuestions(), files: map[string]string{"a.go": aGo}, opts: map[string]any{"approvalMode": "auto_edit"}, env: trustTheWorkspace()}, editTurns()...)
		h.open("a.go")
		h.prompt(map[string]any{"prompt": "return 2"})
		h.wantOutput(1, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
		h.wantBuffer("a.go", "package a\n\nfunc A() int { return 2 }\n")
		h.wantStrategy(false, 1)
		if e := h.applyEdits()[0]; e.Annotated {
			t.Errorf("auto_edit sent an edit that needs confirmation")
		}
	})
}

// "Always Apply" allows the session's later edits without asking again.
func TestAlwaysApplyLastsForTheSession(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": aGo}},
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 2", "new_string": "return 3"}),
		geminitest.TextTurn("done"),
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 3", "new_string": "return 4"}),
		geminitest.TextTurn("done"),
	)
	h.open("a.go")
	h.client.OnShowMessageRequest = func(msg string, actions []string) string {
		// The change itself is in the question.
		if msg != "Gemini wants to edit a.go (+1 −1):\n@@ -1,3 +1,3 @@\n package a\n \n-func A() int { return 1 }\n+func A() int { return 2 }" || strings.Join(actions, ",") != "Apply,Always Apply,Reject" {
			t.Errorf("asked %q with %q", msg, actions)
		}
		return "Always Apply"
	}
	res := h.prompt(map[string]any{"prompt": "count up"})
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 3 }\n")
	if n := len(h.client.Messages("window/showMessageRequest")); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	// A new session asks again; the same session does not.
	h.prompt(map[string]any{"prompt": "again", "sessionId": res.SessionID})
	if n := len(h.client.Messages("window/showMessageRequest")); n != 1 {
		t.Errorf("asked %d times in the same session, want once", n)
	}
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 4 }\n")
}

// The user types in the document while the question is open: the
// proposal is stale and is not applied.
func TestStaleEditIsNotApplied(t *testing.T) {
	t.Run("typed while asked", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		h.open("a.go")
		typed := "package a\n\n// user was here\nfunc A() int { return 1 }\n"
		h.client.OnShowMessageRequest = func(string, []string) string {
			if err := h.client.Type(h.ctx, h.path("a.go"), typed); err != nil {
				t.Error(err)
			}
			return "Apply"
		}
		h.prompt(map[string]any{"prompt": "return 2"})
		out := h.toolOutputs(1)
		if len(out) != 1 || !strings.Contains(out[0], "changed before this change could be applied, so it did not land as proposed") {
			t.Errorf("tool output = %q", out)
		}
		if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
			t.Errorf("a stale edit was sent (%d applyEdit)", n)
		}
		h.wantBuffer("a.go", typed)
	})
	t.Run("typed during the preview", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.VSCode(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		h.open("a.go")
		typed := "package a\n\n// user was here\nfunc A() int { return 1 }\n"
		h.client.OnApplyEdit = func(ctx context.Context, e lsptest.Edit) lsptest.Answer {
			if err := h.client.Type(ctx, h.path("a.go"), typed); err != nil {
				t.Error(err)
			}
			return lsptest.Answer{Apply: true} // VS Code then refuses: version moved
		}
		h.prompt(map[string]any{"prompt": "return 2"})
		out := h.toolOutputs(1)
		if len(out) != 1 || !strings.Contains(out[0], "changed before this change could be applied, so it did not land as proposed") {
			t.Errorf("tool output = %q", out)
		}
		h.wantBuffer("a.go", typed)
	})
}

// A new file: CreateFile plus its text, confirmed like any edit.
func TestNewFileIsCreatedThroughTheEditor(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()},
		call("write_file", map[string]any{"file_path": "notes/CHANGES.md", "content": "# Changes\n"}),
		geminitest.TextTurn("done"),
	)
	if err := mkdir(h.path("notes")); err != nil {
		t.Fatal(err)
	}
	h.prompt(map[string]any{"prompt": "write notes"})
	h.wantOutput(1, "Successfully created and wrote to new file: "+h.path("notes/CHANGES.md"))
	e := h.applyEdits()[0]
	if !e.Annotated || !strings.Contains(string(e.Params), `"kind":"create"`) {
		t.Errorf("applyEdit = %s, want an annotated CreateFile", e.Params)
	}
	h.wantBuffer("notes/CHANGES.md", "# Changes\n")
}

// Line endings and characters outside the BMP survive an edit in every
// encoding the client may choose.
func TestEditCRLFAndEmojiUnderEachEncoding(t *testing.T) {
	const before = "package a\r\n\r\n// 😀 greets 世界\r\nvar s = \"😀 hi 世界\" // 1\r\n"
	const after = "package a\r\n\r\n// 😀 greets 世界\r\nvar s = \"😀 hello 世界\" // 1\r\n"
	for _, tc := range []struct {
		profile func() lsptest.Profile
		enc     string
	}{{lsptest.VSCode, "utf-16"}, {lsptest.Plugin, "utf-8"}, {lsptest.Eglot, "utf-32"}} {
		t.Run(tc.enc, func(t *testing.T) {
			h := start(t, setup{profile: tc.profile(), files: map[string]string{"a.go": before}},
				// The model writes LF; the file keeps CRLF.
				call("replace", map[string]any{"file_path": "a.go", "old_string": "// 😀 greets 世界\nvar s = \"😀 hi 世界\"", "new_string": "// 😀 greets 世界\nvar s = \"😀 hello 世界\""}),
				geminitest.TextTurn("done"),
			)
			if got := h.encoding(); got != tc.enc {
				t.Fatalf("negotiated %s, want %s", got, tc.enc)
			}
			h.open("a.go")
			h.prompt(map[string]any{"prompt": "say hello"})
			h.wantOutput(1, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
			h.wantBuffer("a.go", after)
		})
	}
}

// helpers

func (h *harness) open(name string) {
	h.t.Helper()
	if err := h.client.Open(h.ctx, h.path(name), h.readFile(name)); err != nil {
		h.t.Fatal(err)
	}
}

// wantOutput checks the tool outputs sent with model request number
// request: exactly want, in order.
func (h *harness) wantOutput(request int, want ...string) {
	h.t.Helper()
	if out := h.toolOutputs(request); !slices.Equal(out, want) {
		h.t.Errorf("tool outputs = %q, want %q", out, want)
	}
}

func (h *harness) wantBuffer(name, want string) {
	h.t.Helper()
	got, open := h.client.Buffer(h.path(name))
	if !open || got != want {
		h.t.Errorf("buffer %s = %q (open %v), want %q", name, got, open, want)
	}
}

func (h *harness) wantDisk(name, want string) {
	h.t.Helper()
	if got := h.readFile(name); got != want {
		h.t.Errorf("disk %s = %q, want %q", name, got, want)
	}
}

type sentEdit struct {
	Params    json.RawMessage
	Annotated bool
}

func (h *harness) applyEdits() []sentEdit {
	var out []sentEdit
	for _, m := range h.client.Messages("workspace/applyEdit") {
		var p struct {
			Edit struct {
				ChangeAnnotations map[string]struct {
					NeedsConfirmation bool `json:"needsConfirmation"`
				} `json:"changeAnnotations"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			h.t.Fatal(err)
		}
		annotated := len(p.Edit.ChangeAnnotations) > 0
		for _, a := range p.Edit.ChangeAnnotations {
			annotated = annotated && a.NeedsConfirmation
		}
		out = append(out, sentEdit{Params: m.Params, Annotated: annotated})
	}
	return out
}

// wantStrategy checks how the edit was confirmed: asked first then a plain
// edit, or one edit that needs confirmation.
func (h *harness) wantStrategy(asks bool, edits int) {
	h.t.Helper()
	sent := h.applyEdits()
	if len(sent) != edits {
		h.t.Fatalf("%d applyEdit requests, want %d", len(sent), edits)
	}
	asked := len(h.client.Messages("window/showMessageRequest"))
	switch {
	case asks && (asked != edits || sent[0].Annotated):
		h.t.Errorf("asked %d times, annotated %v: want a question then a plain edit", asked, sent[0].Annotated)
	case !asks && h.client.Profile.Name != "no-questions" && (asked != 0 || !sent[0].Annotated):
		h.t.Errorf("asked %d times, annotated %v: want one edit needing confirmation", asked, sent[0].Annotated)
	}
}

func (h *harness) encoding() string {
	switch h.client.Encoding() {
	case 1:
		return "utf-8"
	case 2:
		return "utf-32"
	}
	return "utf-16"
}

// Neovim declares resource operations but not documentChanges; it applies
// documentChanges all the same, so its edits carry the buffer's version
// (0 for a document just opened).
func TestNeovimGetsVersionedEdits(t *testing.T) {
	h := start(t, setup{profile: lsptest.Neovim(), files: map[string]string{"a.go": aGo}}, editTurns()...)
	h.open("a.go")
	h.prompt(map[string]any{"prompt": "return 2"})
	h.wantStrategy(true, 1)
	if p := string(h.applyEdits()[0].Params); !strings.Contains(p, `"documentChanges"`) || !strings.Contains(p, `"version":0`) {
		t.Errorf("applyEdit = %s, want versioned documentChanges", p)
	}
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 2 }\n")
}

// Two sessions edit at once: the editor sees one proposal at a time.
func TestOneApplyEditInFlight(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": aGo, "b.go": aGo}},
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
		call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2"}),
		geminitest.TextTurn("done"),
		geminitest.TextTurn("done"),
	)
	h.open("a.go")
	h.open("b.go")
	release := make(chan struct{})
	h.client.OnApplyEdit = func(ctx context.Context, e lsptest.Edit) lsptest.Answer {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return lsptest.Answer{Apply: true}
	}
	first := h.asyncPrompt(map[string]any{"prompt": "edit"})
	second := h.asyncPrompt(map[string]any{"prompt": "edit"})
	if _, err := h.client.WaitMessage(h.ctx, "workspace/applyEdit", nil); err != nil {
		t.Fatal(err)
	}
	// Both sessions have asked to edit by now; only one proposal is out.
	deadline := time.Now().Add(5 * time.Second)
	for len(h.updates("toolCall")) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if n := len(h.client.Messages("workspace/applyEdit")); n != 1 {
		t.Fatalf("%d applyEdit requests in flight, want 1", n)
	}
	close(release)
	for _, ch := range []<-chan promptResult{first, second} {
		if res := waitResult(t, ch); res.StopReason != "end_turn" {
			t.Errorf("result = %+v", res)
		}
	}
	if n := len(h.client.Messages("workspace/applyEdit")); n != 2 {
		t.Errorf("%d applyEdit requests in all, want 2", n)
	}
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 2 }\n")
	h.wantBuffer("b.go", "package a\n\nfunc A() int { return 2 }\n")
}

// Two sessions replace the same line of one file at the same moment. One
// change lands; the other finds the document moved on (or, proposed
// after it, nothing left to replace). Neither prompt waits for more than
// its own confirmation: both end, and the buffer holds exactly one of the
// two changes.
func TestTwoSessionsEditTheSameLine(t *testing.T) {
	for _, s := range strategies {
		t.Run(s.name, func(t *testing.T) {
			// Without the LLM correction, a replace that finds nothing to
			// replace asks the model nothing more: each session takes two
			// turns whatever the interleaving. With it, the session whose
			// replace runs after the other's change landed (likelier on a
			// busy CPU) asks the model for a fix, which takes a scripted
			// turn; the last request then finds none, the fake answers
			// 500, and the agent retries it for over a minute, which
			// looks like an edit hanging behind the other.
			noFix := `{"tools": {"disableLLMCorrection": true}}`
			h := start(t, setup{profile: s.profile(), files: map[string]string{"a.go": aGo, ".gemini/settings.json": noFix}, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}},
				call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
				call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 3"}),
				geminitest.TextTurn("done"),
				geminitest.TextTurn("done"),
			)
			h.open("a.go")
			h.client.OnShowMessageRequest = func(string, []string) string { return "Apply" }
			first := h.asyncPrompt(map[string]any{"prompt": "edit"})
			second := h.asyncPrompt(map[string]any{"prompt": "edit"})
			for _, ch := range []<-chan promptResult{first, second} {
				if res := waitResultOrDump(t, h, ch); res.StopReason != "end_turn" {
					t.Errorf("result = %+v, want end_turn", res)
				}
			}
			// Exactly one session was told its change landed, and the
			// buffer holds that one; the other was told why not.
			var landed, refused []string
			for i := range h.model.Requests() {
				for _, out := range h.toolOutputs(i) {
					switch {
					case strings.HasPrefix(out, "Successfully modified file"):
						landed = append(landed, out)
					case strings.HasPrefix(out, "error: The file "+h.path("a.go")+" changed before this change could be applied"),
						strings.HasPrefix(out, "error: Failed to edit, 0 occurrences found"),
						strings.HasPrefix(out, "error: Failed to edit: "+h.path("a.go")+" changed while this edit was being prepared"):
						refused = append(refused, out)
					default:
						t.Errorf("a session was told %q", out)
					}
				}
			}
			if len(landed) != 1 || len(refused) != 1 {
				t.Errorf("told of changes landed %q and refused %q, want one each", landed, refused)
			}
			got, _ := h.client.Buffer(h.path("a.go"))
			if got != "package a\n\nfunc A() int { return 2 }\n" && got != "package a\n\nfunc A() int { return 3 }\n" {
				t.Errorf("buffer a.go = %q, want one of the two changes", got)
			}
		})
	}
}

// waitResultOrDump waits for a prompt's result up to 45 s, within the
// harness's minute: a prompt still running by then hangs, and the server
// is made to print its goroutines (SIGQUIT) into the stderr log shown
// with the failure.
func waitResultOrDump(t *testing.T, h *harness, ch <-chan promptResult) promptResult {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(45 * time.Second):
		_ = h.proc.Cmd.Process.Signal(syscall.SIGQUIT)
		_, _ = h.proc.Wait(context.Background())
		t.Fatal("the prompt hangs; the server's goroutines are in its stderr below")
		return promptResult{}
	}
}

// An edit the user declines, however the editor asked, cancels the later
// calls of the model's answer unrun, as Gemini CLI 0.61 cancels the
// queued calls (cancelAllQueued); an editor with no way to ask refuses
// the edit with no user's no, and the later calls run.
func TestDeclinedEditCancelsTheLaterCalls(t *testing.T) {
	const cancelled = "error: The user declined an earlier call of this answer, so this call was cancelled before it ran."
	turns := func() []geminitest.Turn {
		return []geminitest.Turn{geminitest.CallTurn(
			geminitest.Call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
			geminitest.Call("read_file", map[string]any{"file_path": "a.go"}),
		), geminitest.TextTurn("done")}
	}
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			h := start(t, setup{profile: st.profile(), files: map[string]string{"a.go": aGo}}, turns()...)
			h.open("a.go")
			h.client.OnApplyEdit = lsptest.Decline
			h.client.OnShowMessageRequest = func(string, []string) string { return "Reject" }
			h.prompt(map[string]any{"prompt": "return 2"})
			out := h.toolOutputs(1)
			if len(out) != 2 || !strings.HasPrefix(out[0], "error: This change was not applied: the user declined") || out[1] != cancelled {
				t.Errorf("tool outputs = %q, want the edit declined and the read cancelled", out)
			}
		})
	}
	t.Run("no way to ask", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NoQuestions(), files: map[string]string{"a.go": aGo}}, turns()...)
		h.open("a.go")
		h.prompt(map[string]any{"prompt": "return 2"})
		out := h.toolOutputs(1)
		if len(out) != 2 || !strings.Contains(out[0], "neither preview an edit nor ask") || out[1] != aGo {
			t.Errorf("tool outputs = %q, want the edit refused and the file read", out)
		}
	})
}
