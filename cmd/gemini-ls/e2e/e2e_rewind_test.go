package e2e

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The files of the rewind tests: a.txt with a BOM and CRLF line endings.
const (
	rewindA = "\ufeffone\r\ntwo\r\n"
	rewindB = "b\n"
)

// rewindTurns: three prompts that edit a.txt, then b.txt, then a.txt
// again, then an answer to the prompt after the rewind.
func rewindTurns(a, b string) []geminitest.Turn {
	return []geminitest.Turn{
		call("replace", map[string]any{"file_path": a, "old_string": "one", "new_string": "ONE"}), geminitest.TextTurn("first done"),
		call("replace", map[string]any{"file_path": b, "old_string": "b", "new_string": "B"}), geminitest.TextTurn("second done"),
		call("replace", map[string]any{"file_path": a, "old_string": "two", "new_string": "TWO"}), geminitest.TextTurn("third done"),
		geminitest.TextTurn("fresh"),
	}
}

// Headless, every run a new process: three prompts edit two files, the
// user changes one, and "/rewind 1 both" in a later run restores the
// other's exact bytes (BOM and CRLF), reports the user's file as a
// conflict and leaves it, and the next run's request carries none of
// the rewound prompts.
func TestRewindHeadless(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": rewindA, "b.txt": rewindB}, rewindTurns("a.txt", "b.txt")...)
	h.env = append(h.env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	for i, p := range []string{"first", "second", "third"} {
		args := []string{"run", "-approval-mode", "auto_edit", "-p", p}
		if i > 0 {
			args = append(args, "-resume", "latest")
		}
		h.run(args...).wantExit(t, 0)
	}
	if got := h.readFile("a.txt"); got != "\ufeffONE\r\nTWO\r\n" {
		t.Fatalf("a.txt after the prompts = %q", got)
	}
	h.writeFile("b.txt", "the user's b\n")

	list := h.run("run", "-resume", "latest", "-p", "/rewind")
	list.wantExit(t, 0)
	for _, want := range []string{"1. first — changed `" + h.path("a.txt") + "`", "2. second — changed `" + h.path("b.txt") + "`", "3. third — changed `" + h.path("a.txt") + "`"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("/rewind printed %q, want it to list %q", list.stdout, want)
		}
	}

	rw := h.run("run", "-resume", "latest", "-p", "/rewind 1 both")
	rw.wantExit(t, 0)
	if got := h.readFile("a.txt"); got != rewindA {
		t.Errorf("a.txt after the rewind = %q, want the original bytes %q", got, rewindA)
	}
	if got := h.readFile("b.txt"); got != "the user's b\n" {
		t.Errorf("b.txt = %q: the user's change was overwritten", got)
	}
	for _, want := range []string{"3 prompts removed", "`" + h.path("a.txt") + "`: reverted", "`" + h.path("b.txt") + "`: conflict, not reverted", "nobody could be asked whether to revert it anyway (cannot ask the user: gemini-ls is running headless; revert the file yourself"} {
		if !strings.Contains(rw.stdout, want) {
			t.Errorf("/rewind 1 both printed %q, want %q", rw.stdout, want)
		}
	}

	h.run("run", "-resume", "latest", "-p", "again").wantExit(t, 0)
	reqs := h.model.Requests()
	if got := contentTexts(reqs[len(reqs)-1].Contents); strings.Join(got, "|") != "user: again" {
		t.Errorf("the request after the rewind holds %q, want only the new prompt", got)
	}
}

type rewindAnswer struct {
	Prompts []struct {
		Prompt int      `json:"prompt"`
		Text   string   `json:"text"`
		Files  []string `json:"files"`
	} `json:"prompts"`
	Removed int `json:"removed"`
	Files   []struct {
		Path    string `json:"path"`
		Outcome string `json:"outcome"`
	} `json:"files"`
	Message string `json:"message"`
}

// Over LSP with the plugin: gemini/rewind lists the prompts with their
// files; rewinding both to before prompt 1 asks about the file the user
// changed (gemini/confirm; declined, so it is a conflict and kept),
// sends ONE applyEdit restoring the other's exact text (CRLF kept), and
// the model's next request lacks the rewound turns; a new server process
// resumes the session without them.
func TestRewindOverLSP(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{"a.txt": rewindA, "b.txt": rewindB}
	h := start(t, setup{profile: lsptest.Plugin(), files: files, env: []string{"HOME=" + home}}, rewindTurns("a.txt", "b.txt")...)
	// The editor holds the text without the BOM, which is the file's
	// encoding.
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := h.client.Open(h.ctx, h.path(name), strings.TrimPrefix(files[name], "\ufeff")); err != nil {
			t.Fatal(err)
		}
	}
	var id string
	for _, p := range []string{"first", "second", "third"} {
		params := map[string]any{"prompt": p}
		if id != "" {
			params["sessionId"] = id
		}
		res := h.prompt(params)
		if res.StopReason != "end_turn" {
			t.Fatalf("prompt %s: %+v", p, res)
		}
		id = res.SessionID
	}
	h.wantBuffer("a.txt", "ONE\r\nTWO\r\n")
	if err := h.client.Type(h.ctx, h.path("b.txt"), "the user's B\n"); err != nil {
		t.Fatal(err)
	}

	var list rewindAnswer
	if err := h.client.Call(h.ctx, "gemini/rewind", map[string]any{"sessionId": id}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 3 || list.Prompts[1].Text != "second" || len(list.Prompts[1].Files) != 1 || list.Prompts[1].Files[0] != h.path("b.txt") {
		t.Errorf("listed %+v", list.Prompts)
	}

	var asked []string
	h.client.OnConfirm = func(_ context.Context, params json.RawMessage) string {
		asked = append(asked, string(params))
		return "cancel"
	}
	edits := len(h.client.Messages("workspace/applyEdit"))
	var rw rewindAnswer
	if err := h.client.Call(h.ctx, "gemini/rewind", map[string]any{"sessionId": id, "prompt": 1, "mode": "both"}, &rw); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "b.txt") {
		t.Errorf("asked %q, want one question about b.txt", asked)
	}
	if n := len(h.client.Messages("workspace/applyEdit")) - edits; n != 1 {
		t.Errorf("%d applyEdits for the revert, want one", n)
	}
	h.wantBuffer("a.txt", strings.TrimPrefix(rewindA, "\ufeff"))
	h.wantBuffer("b.txt", "the user's B\n")
	outcomes := map[string]string{}
	for _, f := range rw.Files {
		outcomes[f.Path] = f.Outcome
	}
	if rw.Removed != 3 || outcomes[h.path("a.txt")] != "reverted" || outcomes[h.path("b.txt")] != "conflict" {
		t.Errorf("rewind = %+v", rw)
	}

	h.prompt(map[string]any{"prompt": "again", "sessionId": id})
	reqs := h.model.Requests()
	if got := wholeTexts(reqs[len(reqs)-1].Contents); len(got) != 1 || !strings.HasSuffix(got[0], "again") {
		t.Errorf("the request after the rewind holds %q, want only the new prompt", got)
	}
	if err := h.proc.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, setup{profile: lsptest.Plugin(), root: h.root, env: []string{"HOME=" + home}}, geminitest.TextTurn("later"))
	var resumed struct {
		Exchanges []struct {
			Prompt string `json:"prompt"`
		} `json:"exchanges"`
	}
	if err := second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{"sessionId": id}, &resumed); err != nil {
		t.Fatal(err)
	}
	if len(resumed.Exchanges) != 1 || resumed.Exchanges[0].Prompt != "again" {
		t.Errorf("resumed exchanges = %+v, want only the prompt after the rewind", resumed.Exchanges)
	}
	second.prompt(map[string]any{"prompt": "and now", "sessionId": id})
	got := wholeTexts(second.model.Requests()[0].Contents)
	if len(got) != 3 || !strings.HasSuffix(got[0], "again") || got[1] != "model: fresh" {
		t.Errorf("the resumed request holds %q", got)
	}
}

func (h *headless) readFile(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.path(name))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *headless) writeFile(name, text string) {
	h.t.Helper()
	if err := os.WriteFile(h.path(name), []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// wholeTexts is the role and whole text of each content of a request.
func wholeTexts(contents []*genai.Content) []string {
	var out []string
	for _, c := range withoutSessionContext(contents) {
		var b strings.Builder
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
		out = append(out, c.Role+": "+b.String())
	}
	return out
}

// Over LSP, reverting the code of a prompt that created a file deletes
// it: one annotated applyEdit with a DeleteFile, the buffer closed and
// the file gone; the conversation stays.
func TestRewindDeletesAFileTheAgentCreatedOverLSP(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()},
		call("write_file", map[string]any{"file_path": "new.txt", "content": "hello\n"}), geminitest.TextTurn("created"))
	res := h.prompt(map[string]any{"prompt": "create it"})
	h.wantBuffer("new.txt", "hello\n")
	edits := len(h.client.Messages("workspace/applyEdit"))
	var rw rewindAnswer
	if err := h.client.Call(h.ctx, "gemini/rewind", map[string]any{"sessionId": res.SessionID, "prompt": 1, "mode": "code"}, &rw); err != nil {
		t.Fatal(err)
	}
	sent := h.applyEdits()[edits:]
	if len(sent) != 1 || !sent[0].Annotated || !strings.Contains(string(sent[0].Params), `"kind":"delete"`) {
		t.Errorf("applyEdits %+v, want one annotated DeleteFile", sent)
	}
	if _, open := h.client.Buffer(h.path("new.txt")); open {
		t.Error("new.txt is still open in the editor")
	}
	if _, err := os.Stat(h.path("new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt: %v, want it deleted", err)
	}
	if rw.Removed != 0 || len(rw.Files) != 1 || rw.Files[0].Outcome != "reverted" {
		t.Errorf("rewind = %+v", rw)
	}
}

// A client that cannot preview an edit (eglot) is asked once with
// window/showMessageRequest, then sent one plain applyEdit; "/rewind" in
// gemini/prompt works there as in every front end.
func TestRewindAskedWithShowMessageRequest(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.txt": "one\r\ntwo\r\n"}},
		call("replace", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}), geminitest.TextTurn("done"))
	h.open("a.txt")
	var questions []string
	h.client.OnShowMessageRequest = func(message string, actions []string) string {
		questions = append(questions, message+" "+strings.Join(actions, "/"))
		if slices.Contains(actions, "Revert") {
			return "Revert"
		}
		return "Apply"
	}
	res := h.prompt(map[string]any{"prompt": "shout"})
	h.wantBuffer("a.txt", "ONE\r\ntwo\r\n")
	edits := len(h.client.Messages("workspace/applyEdit"))
	rw := h.prompt(map[string]any{"prompt": "/rewind 1 code", "sessionId": res.SessionID})
	if !strings.Contains(rw.Text, "`"+h.path("a.txt")+"`: reverted") {
		t.Errorf("/rewind 1 code answered %+v", rw)
	}
	h.wantBuffer("a.txt", "one\r\ntwo\r\n")
	if sent := h.applyEdits()[edits:]; len(sent) != 1 || sent[0].Annotated {
		t.Errorf("applyEdits %+v, want one plain edit", sent)
	}
	if n := len(questions); n != 2 || !strings.Contains(questions[1], "Revert the agent's changes since prompt 1 (1 file)? Revert/Cancel") {
		t.Errorf("questions %q, want the edit's, then the revert's", questions)
	}
}
