package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// An edit of a selection: one model call, no tools, no conversation, the
// rewrite proposed as an edit the editor reviews (docs/protocol.md §5g).

const sumGo = "package a\n\nfunc Sum(xs []int) int {\n\ttotal := 0\n\tfor i := 0; i < len(xs); i++ {\n\t\ttotal += xs[i]\n\t}\n\treturn total\n}\n"

// rangeLoop is the model's rewrite of sumGo's loop, fenced and without
// its last line break, as models answer.
const rangeLoop = "```go\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n```"

const sumGoRanged = "package a\n\nfunc Sum(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n"

type editSelectionResult struct {
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	Model   string `json:"model"`
}

// editSelection asks to rewrite sumGo's loop, lines 5-7.
func (h *harness) editSelection(instruction string) editSelectionResult {
	h.t.Helper()
	var res editSelectionResult
	params := map[string]any{"textDocument": map[string]any{"uri": "file://" + h.path("a.go")}, "range": rng(4, 0, 7, 0), "instruction": instruction}
	if err := h.client.Call(h.ctx, "gemini/editSelection", params, &res); err != nil {
		h.t.Fatalf("gemini/editSelection: %v", err)
	}
	return res
}

// wantOneBareCall checks the model was asked once, without tools or
// history, for the selection between its markers, with the file's path,
// language, lines and the instruction.
func (h *harness) wantOneBareCall(instruction string) {
	h.t.Helper()
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		h.t.Fatalf("the model saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if len(r.Tools) != 0 || len(r.Contents) != 1 {
		h.t.Errorf("the request had %d tools and %d contents, want none and one", len(r.Tools), len(r.Contents))
	}
	if r.SystemInstruction == nil || !strings.Contains(strings.Join(partTexts(r.SystemInstruction.Parts), ""), "Answer with the text that replaces the selection") {
		h.t.Errorf("system instruction = %v", r.SystemInstruction)
	}
	prompt := allTexts(r.Contents)
	for _, want := range []string{
		"File: a.go\nLanguage: go\nThe selection is lines 5-7.",
		"func Sum(xs []int) int {\n\ttotal := 0\n<selection>\tfor i := 0; i < len(xs); i++ {\n\t\ttotal += xs[i]\n\t}\n</selection>\treturn total\n}\n",
		"Instruction: " + instruction,
	} {
		if !strings.Contains(prompt, want) {
			h.t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if u := h.client.Messages("gemini/update"); len(u) != 0 {
		h.t.Errorf("the edit sent %d gemini/update: it is no chat", len(u))
	}
}

func TestEditSelection(t *testing.T) {
	files := map[string]string{"a.go": sumGo}
	const instruction = "use a range loop"

	t.Run("accepted in the review", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin(), files: files}, geminitest.TextTurn(rangeLoop))
		h.open("a.go")
		res := h.editSelection(instruction)
		if res.Outcome != "applied" || res.Message != "Gemini edited the selection in a.go." || res.Model != "gemini-2.5-pro" {
			t.Errorf("result = %+v", res)
		}
		h.wantBuffer("a.go", sumGoRanged)
		h.wantStrategy(false, 1) // one edit the plugin reviews
		h.wantOneBareCall(instruction)
		var list struct{ Sessions []json.RawMessage }
		if err := h.client.Call(h.ctx, "gemini/listSessions", nil, &list); err != nil || len(list.Sessions) != 0 {
			t.Errorf("sessions after the edit: %s, %v; want none", list.Sessions, err)
		}
	})

	t.Run("rejected in the review", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.VSCode(), files: files}, geminitest.TextTurn(rangeLoop))
		h.open("a.go")
		h.client.OnApplyEdit = lsptest.Decline
		res := h.editSelection(instruction)
		if res.Outcome != "declined" || res.Message != "Gemini's edit of a.go was rejected; nothing changed." {
			t.Errorf("result = %+v", res)
		}
		h.wantBuffer("a.go", sumGo)
		h.wantStrategy(false, 1)
	})

	t.Run("nothing to change", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin(), files: files}, geminitest.TextTurn("\tfor i := 0; i < len(xs); i++ {\n\t\ttotal += xs[i]\n\t}"))
		h.open("a.go")
		res := h.editSelection("make it correct")
		if res.Outcome != "unchanged" || res.Message != "Gemini found nothing to change in the selection." {
			t.Errorf("result = %+v", res)
		}
		if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
			t.Errorf("%d edits proposed for no change", n)
		}
	})

	// The approval door decides as for the agent's own edits: a client
	// that can neither preview nor ask gets no edit in the default mode,
	// and an edit applied unasked in auto_edit.
	t.Run("the approval door", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NoQuestions(), files: files}, geminitest.TextTurn(rangeLoop))
		h.open("a.go")
		res := h.editSelection(instruction)
		if res.Outcome != "refused" || !strings.Contains(res.Message, `set "approvalMode": "auto_edit"`) {
			t.Errorf("default mode: result = %+v", res)
		}
		h.wantBuffer("a.go", sumGo)

		h = start(t, setup{profile: lsptest.NoQuestions(), files: files, opts: map[string]any{"approvalMode": "auto_edit"}, env: trustTheWorkspace()}, geminitest.TextTurn(rangeLoop))
		h.open("a.go")
		if res := h.editSelection(instruction); res.Outcome != "applied" {
			t.Errorf("auto_edit: result = %+v", res)
		}
		h.wantBuffer("a.go", sumGoRanged)
		if e := h.applyEdits(); len(e) != 1 || e[0].Annotated {
			t.Errorf("auto_edit sent %+v, want one edit needing no confirmation", e)
		}
	})
}

// Stock clients run gemini.editSelection: it answers at once, asks before
// the edit (without "Always Apply": there is no conversation for it to
// hold in), and says what happened.
func TestEditSelectionCommand(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": sumGo}}, geminitest.TextTurn(rangeLoop))
	h.open("a.go")
	var asked []string
	h.client.OnShowMessageRequest = func(msg string, actions []string) string {
		asked = append(asked, msg+"|"+strings.Join(actions, ","))
		return "Apply"
	}
	before := len(h.client.Messages("window/showMessage"))
	var started commandStarted
	arg := map[string]any{"textDocument": map[string]any{"uri": "file://" + h.path("a.go")}, "range": rng(4, 0, 7, 0), "instruction": "use a range loop"}
	if err := h.executeCommand("gemini.editSelection", []any{arg}, &started); err != nil || started.Status != "started" {
		t.Fatalf("gemini.editSelection: %+v, %v", started, err)
	}
	if msg := h.waitAnswerMessage(before); msg != "Gemini edited the selection in a.go." {
		t.Errorf("message = %q", msg)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "Gemini wants to edit a.go (+2 −2):") || !strings.HasSuffix(asked[0], "|Apply,Reject") {
		t.Errorf("asked %q", asked)
	}
	h.wantBuffer("a.go", sumGoRanged)
}

// Helix's code actions take no text: a "gemini:" comment among the lines
// selected is the instruction, and the action edits those whole lines,
// comment included.
func TestEditSelectionCodeAction(t *testing.T) {
	withComment := strings.Replace(sumGo, "\tfor i", "\t// gemini: use a range loop\n\tfor i", 1)
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"a.go": withComment}}, geminitest.TextTurn(rangeLoop))
	h.open("a.go")
	h.client.OnShowMessageRequest = func(string, []string) string { return "Apply" }
	uri := "file://" + h.path("a.go")
	// Helix's x selects whole lines: to the next line's start.
	actions := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(4, 0, 8, 0), "context": map[string]any{"diagnostics": []any{}}})
	var edit *wireCodeAction
	for i, a := range actions {
		if a.Command.Command == "gemini.editSelection" {
			edit = &actions[i]
		}
	}
	if edit == nil || edit.Title != "Gemini: edit selection: “use a range loop” (a.go, lines 5–8)" || edit.Kind != "refactor.rewrite" {
		t.Fatalf("actions = %+v", actions)
	}
	// No comment, no action: the cursor on a line without one.
	for _, a := range h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(2, 0, 2, 1), "context": map[string]any{"diagnostics": []any{}}}) {
		if a.Command.Command == "gemini.editSelection" {
			t.Errorf("an edit action without an instruction: %+v", a)
		}
	}
	before := len(h.client.Messages("window/showMessage"))
	var args []any
	for _, a := range edit.Command.Arguments {
		args = append(args, a)
	}
	if err := h.executeCommand(edit.Command.Command, args, nil); err != nil {
		t.Fatal(err)
	}
	if msg := h.waitAnswerMessage(before); msg != "Gemini edited the selection in a.go." {
		t.Errorf("message = %q", msg)
	}
	h.wantBuffer("a.go", sumGoRanged)
	prompt := allTexts(h.model.Requests()[0].Contents)
	if !strings.Contains(prompt, "<selection>\t// gemini: use a range loop\n\tfor i") ||
		!strings.Contains(prompt, "Instruction: use a range loop\n(Leave out the comment line \"// gemini: use a range loop\" that gives this instruction.)") {
		t.Errorf("prompt:\n%s", prompt)
	}
}

// $/cancelRequest withdraws the review of an edit still waiting for the
// user: the server cancels its applyEdit, and nothing changes.
func TestEditSelectionCancelledInReview(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), files: map[string]string{"a.go": sumGo}}, geminitest.TextTurn(rangeLoop))
	h.open("a.go")
	h.client.OnApplyEdit = lsptest.Hold(make(chan struct{}))
	params := map[string]any{"textDocument": map[string]any{"uri": "file://" + h.path("a.go")}, "range": rng(4, 0, 7, 0), "instruction": "use a range loop"}
	if err := h.client.RawCall("e1", "gemini/editSelection", params); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.WaitMessage(h.ctx, "workspace/applyEdit", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notify(h.ctx, "$/cancelRequest", map[string]any{"id": "raw-e1"}); err != nil {
		t.Fatal(err)
	}
	answer, err := h.client.RawResponse(h.ctx, "e1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(answer), "-32800") {
		t.Errorf("the cancelled edit answered %s, want RequestCancelled", answer)
	}
	if _, err := h.client.WaitMessage(h.ctx, "$/cancelRequest", nil); err != nil {
		t.Errorf("the server did not withdraw its applyEdit: %v", err)
	}
	h.wantBuffer("a.go", sumGo)
}
