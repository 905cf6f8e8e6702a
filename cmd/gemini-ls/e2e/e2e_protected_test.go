package e2e

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Issue 65: in auto_edit, a model writes a hook into the workspace's
// .gemini/settings.json and a policy allowing every shell command into
// .gemini/policies; the next session, in the default mode, would run
// both unasked. Such an edit always asks a person; headless it is
// refused. An ordinary file is still written unasked.

const (
	sessionStartHook = `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}` + "\n"
	allowAll         = "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 999\n"
	// protectedRefusal ends what the model is told of an edit refused
	// headless.
	protectedRefusal = "gemini-ls is running headless with nobody to give it, so the file was not changed. Ask the user to make this change themselves."
)

// protectedCalls: the two writes of the attack, then an ordinary edit.
func protectedCalls() []*genai.FunctionCall {
	return []*genai.FunctionCall{
		geminitest.Call("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": sessionStartHook}),
		geminitest.Call("write_file", map[string]any{"file_path": ".gemini/policies/x.toml", "content": allowAll}),
		geminitest.Call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
	}
}

// protectedTurns are protectedCalls one per turn, then done.
func protectedTurns() []geminitest.Turn {
	var turns []geminitest.Turn
	for _, c := range protectedCalls() {
		turns = append(turns, geminitest.CallTurn(c))
	}
	return append(turns, geminitest.TextTurn("done"))
}

// Headless in auto_edit: both writes are refused with the sentence and
// leave no file (nor the .gemini directory); the ordinary edit lands.
func TestRunAutoEditRefusesProtectedEdits(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.go": aGo}, geminitest.CallTurn(protectedCalls()...), geminitest.TextTurn("Finished."))
	h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "configure", "--approval-mode", "auto_edit").wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 3 {
		t.Fatalf("function responses = %+v", fr)
	}
	for i, name := range []string{".gemini/settings.json", ".gemini/policies/x.toml"} {
		e := responseError(fr[i])
		if !strings.HasPrefix(e, "Writing "+h.path(name)+" needs a person's approval in every approval mode but yolo, because "+h.path(".gemini")+" holds gemini-ls's and Gemini CLI's configuration") ||
			!strings.HasSuffix(e, protectedRefusal) {
			t.Errorf("%s refused with %q", name, e)
		}
	}
	if h.exists(".gemini") {
		t.Error("a refused write left .gemini behind")
	}
	if out := responseOutput(fr[2]); !strings.HasPrefix(out, "Successfully modified file") || h.disk("a.go") != strings.Replace(aGo, "return 1", "return 2", 1) {
		t.Errorf("the ordinary edit: %+v, a.go = %q; want it landed unasked", fr[2].Response, h.disk("a.go"))
	}
}

// Over LSP in auto_edit, the client gets each protected change to
// confirm, with no "always" offered (a question before a plain edit, or
// an edit needing confirmation), and the ordinary one applied unasked.
func TestLSPProtectedEditsAskInAutoEdit(t *testing.T) {
	for _, st := range []struct {
		name    string
		profile func() lsptest.Profile
		asks    bool
	}{
		{"VS Code change annotations", lsptest.VSCode, false},
		{"showMessageRequest (eglot)", lsptest.Eglot, true},
	} {
		t.Run(st.name, func(t *testing.T) {
			h := start(t, setup{profile: st.profile(), files: map[string]string{"a.go": aGo}, opts: map[string]any{"approvalMode": "auto_edit"}, env: trustTheWorkspace()}, protectedTurns()...)
			h.open("a.go")
			var asked []string
			h.client.OnShowMessageRequest = func(msg string, actions []string) string {
				asked = append(asked, msg+" ["+strings.Join(actions, ",")+"]")
				return "Apply"
			}
			if res := h.prompt(map[string]any{"prompt": "configure"}); res.Text != "done" {
				t.Fatalf("prompt = %+v", res)
			}
			sent := h.applyEdits()
			if len(sent) != 3 {
				t.Fatalf("%d applyEdit requests, want 3", len(sent))
			}
			for i, name := range []string{".gemini/settings.json", ".gemini/policies/x.toml"} {
				if !strings.Contains(string(sent[i].Params), name) || sent[i].Annotated == st.asks {
					t.Errorf("edit of %s: annotated %v, want it confirmed (asked first: %v): %s", name, sent[i].Annotated, st.asks, sent[i].Params)
				}
			}
			if sent[2].Annotated || !strings.Contains(string(sent[2].Params), "a.go") {
				t.Errorf("the ordinary edit needs confirmation: %s", sent[2].Params)
			}
			if st.asks {
				if len(asked) != 2 || !strings.Contains(asked[0], "settings.json") || !strings.Contains(asked[1], "x.toml") {
					t.Errorf("asked %q, want the two protected edits", asked)
				}
				for _, q := range asked {
					if !strings.HasSuffix(q, "[Apply,Reject]") {
						t.Errorf("asked %q, want no Always Apply", q)
					}
				}
			}
			h.wantBuffer("a.go", strings.Replace(aGo, "return 1", "return 2", 1))
		})
	}
}

// Over ACP in autoEdit, each protected change is a
// session/request_permission offering no "always"; the ordinary one is
// written unasked.
func TestACPProtectedEditsAskInAutoEdit(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: editorACP, env: trustTheWorkspace()}, protectedTurns()...)
	if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "autoEdit"}); err != nil {
		t.Fatalf("set_mode autoEdit: %v", err)
	}
	h.mustPrompt("configure", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want the two protected edits'", len(perms))
	}
	for i, name := range []string{".gemini/settings.json", ".gemini/policies/x.toml"} {
		tc := perms[i].ToolCall
		if len(tc.Locations) != 1 || tc.Locations[0].Path != h.path(name) {
			t.Errorf("permission request %d is about %+v, want %s", i, tc.Locations, name)
		}
		if got := optionKinds(perms[i]); got != "allow_once=proceed_once,reject_once=cancel" {
			t.Errorf("permission request for %s offers %s, want no always", name, got)
		}
	}
	w := h.client.Writes()
	if len(w) != 3 || w[0].Content != sessionStartHook || w[1].Content != allowAll || w[2].Path != h.path("a.go") {
		t.Errorf("fs/write_text_file requests %+v, want the two allowed protected files, then a.go", w)
	}
}

// An editor that can neither preview an edit nor ask refuses a protected
// edit in auto_edit as it refuses every edit in the default mode, and the
// model is told that auto_edit does not cover this one.
func TestLSPProtectedEditWithNoWayToAsk(t *testing.T) {
	h := start(t, setup{profile: lsptest.NoQuestions(), opts: map[string]any{"approvalMode": "auto_edit"}, env: trustTheWorkspace()},
		call("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": sessionStartHook}), geminitest.TextTurn("done"))
	h.prompt(map[string]any{"prompt": "configure"})
	out := h.toolOutputs(1)
	if len(out) != 1 || !strings.Contains(out[0], "neither preview an edit nor ask") ||
		!strings.Contains(out[0], "; and this file needs a person's approval in every approval mode but yolo, because "+h.path(".gemini")+" holds gemini-ls's and Gemini CLI's configuration") {
		t.Errorf("tool output = %q", out)
	}
	if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
		t.Errorf("%d applyEdit requests", n)
	}
}
