package e2e

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Edits, confirmations and reads the ACP way: offered through
// session/request_permission, landing through fs/write_text_file, read
// through fs/read_text_file.

// editorACP is a client with an editor's buffers: it reads and writes
// text files.
var editorACP = acptest.Config{ReadTextFile: true, WriteTextFile: true}

// unsavedGo is a.go as the editor holds it, unsaved.
const unsavedGo = "package a\n\n// unsaved\nfunc A() int { return 1 }\n"

// replaceA is the model's edit of a.go.
func replaceA() geminitest.Turn {
	return call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"})
}

// wantDisk fails unless the file on disk holds want.
func (h *acpHarness) wantDisk(name, want string) {
	h.t.Helper()
	b, err := os.ReadFile(h.path(name))
	if err != nil || string(b) != want {
		h.t.Errorf("%s on disk = %q, %v; want %q", name, b, err, want)
	}
}

// result is the last functionResponse model request i carries (the
// history comes with each request): its output, or its error.
func (h *acpHarness) result(i int) (output, errText string) {
	h.t.Helper()
	rs := h.functionResponses(i)
	if len(rs) == 0 {
		h.t.Fatalf("model request %d answered no call", i)
	}
	output, _ = rs[len(rs)-1]["output"].(string)
	errText, _ = rs[len(rs)-1]["error"].(string)
	return output, errText
}

// lastUpdate is the last tool_call_update of the last tool
// call, with its status and content.
func (h *acpHarness) lastUpdate() sdk.SessionToolCallUpdate {
	h.t.Helper()
	calls := h.client.ToolCalls()
	if len(calls) == 0 {
		h.t.Fatal("no tool_call")
	}
	ups := h.client.ToolCallUpdates(calls[len(calls)-1].ToolCallId)
	if len(ups) == 0 {
		h.t.Fatal("no tool_call_update")
	}
	return ups[len(ups)-1]
}

func optionKinds(p sdk.RequestPermissionRequest) string {
	var s []string
	for _, o := range p.Options {
		s = append(s, string(o.Kind)+"="+string(o.OptionId))
	}
	return strings.Join(s, ",")
}

func TestACPReadSeesTheUnsavedBuffer(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: editorACP},
		call("read_file", map[string]any{"path": "a.go"}), geminitest.TextTurn("read"))
	h.client.SetBuffer(h.path("a.go"), unsavedGo)
	h.mustPrompt("read a.go", sdk.StopReasonEndTurn)
	if out, errText := h.result(1); out != unsavedGo {
		t.Errorf("read_file answered %q (error %q), want the unsaved buffer %q", out, errText, unsavedGo)
	}
	reads := h.client.Reads()
	if len(reads) != 1 || reads[0].Path != h.path("a.go") || reads[0].SessionId != h.session || reads[0].Line != nil || reads[0].Limit != nil {
		t.Errorf("fs/read_text_file requests %+v, want one of the whole of a.go in the session", reads)
	}
}

// A client that does not declare fs.readTextFile is never asked: reads
// are disk's.
func TestACPReadWithoutReadTextFileIsDisks(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}},
		call("read_file", map[string]any{"path": "a.go"}), geminitest.TextTurn("read"))
	h.client.SetBuffer(h.path("a.go"), unsavedGo)
	h.mustPrompt("read a.go", sdk.StopReasonEndTurn)
	if out, _ := h.result(1); out != aGo {
		t.Errorf("read_file answered %q, want disk's %q", out, aGo)
	}
	if reads := h.client.Reads(); len(reads) != 0 {
		t.Errorf("fs/read_text_file requests %+v from a client that did not declare it", reads)
	}
}

func TestACPEditAllowed(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: editorACP}, replaceA(), geminitest.TextTurn("done"))
	h.client.SetBuffer(h.path("a.go"), unsavedGo)
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	want := "package a\n\n// unsaved\nfunc A() int { return 2 }\n"

	writes := h.client.Writes()
	if len(writes) != 1 || writes[0].Path != h.path("a.go") || writes[0].Content != want || writes[0].SessionId != h.session {
		t.Errorf("fs/write_text_file requests %+v, want one writing %q to a.go", writes, want)
	}
	h.wantDisk("a.go", aGo) // the editor saves, not gemini-ls
	if out, errText := h.result(1); out != "Successfully modified file: "+h.path("a.go")+" (1 replacements)." {
		t.Errorf("the model was told %q (error %q)", out, errText)
	}

	perms := h.client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	p := perms[0]
	tc := p.ToolCall
	callID := h.client.ToolCalls()[0].ToolCallId
	if p.SessionId != h.session || tc.ToolCallId != callID || tc.Status == nil || *tc.Status != sdk.ToolCallStatusPending ||
		tc.Kind == nil || *tc.Kind != sdk.ToolKindEdit || tc.Title == nil || *tc.Title != "Edit a.go (+1 −1)" ||
		len(tc.Locations) != 1 || tc.Locations[0].Path != h.path("a.go") {
		t.Errorf("permission request %+v", p)
	}
	if len(tc.Content) != 1 || tc.Content[0].Diff == nil {
		t.Fatalf("permission request content %+v, want one diff", tc.Content)
	}
	d := tc.Content[0].Diff
	if d.Path != h.path("a.go") || d.OldText == nil || *d.OldText != unsavedGo || d.NewText != want {
		t.Errorf("diff %+v, want %s from the buffer to %q", d, h.path("a.go"), want)
	}
	if got := optionKinds(p); got != "allow_once=proceed_once,allow_always=proceed_always,reject_once=cancel" {
		t.Errorf("options %s", got)
	}

	// The final update shows the diff that landed.
	last := h.lastUpdate()
	if last.Status == nil || *last.Status != sdk.ToolCallStatusCompleted || len(last.Content) == 0 || last.Content[0].Diff == nil || last.Content[0].Diff.NewText != want {
		t.Errorf("final tool_call_update %+v, want completed with the diff", last)
	}
}

// The text sent is the file's new text as the editor holds it: its \r\n
// kept.
func TestACPEditKeepsTheBuffersLineEndings(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: editorACP}, replaceA(), geminitest.TextTurn("done"))
	h.client.SetBuffer(h.path("a.go"), strings.ReplaceAll(aGo, "\n", "\r\n"))
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	want := "package a\r\n\r\nfunc A() int { return 2 }\r\n"
	if w := h.client.Writes(); len(w) != 1 || w[0].Content != want {
		t.Errorf("fs/write_text_file requests %+v, want one writing %q", w, want)
	}
}

func TestACPNewFileThroughTheEditor(t *testing.T) {
	h := startACP(t, acpSetup{cfg: editorACP},
		call("write_file", map[string]any{"file_path": "new.txt", "content": "hello\n"}), geminitest.TextTurn("done"))
	h.mustPrompt("create new.txt", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 1 || len(perms[0].ToolCall.Content) != 1 || perms[0].ToolCall.Content[0].Diff == nil {
		t.Fatalf("permission requests %+v, want one with a diff", perms)
	}
	if d := perms[0].ToolCall.Content[0].Diff; d.OldText != nil || d.NewText != "hello\n" || d.Path != h.path("new.txt") {
		t.Errorf("diff %+v, want no old text and hello", d)
	}
	if w := h.client.Writes(); len(w) != 1 || w[0].Content != "hello\n" || w[0].Path != h.path("new.txt") {
		t.Errorf("fs/write_text_file requests %+v", w)
	}
	if _, err := os.Stat(h.path("new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt on disk: %v; the editor creates it", err)
	}
	if out, errText := h.result(1); out != "Successfully created and wrote to new file: "+h.path("new.txt") {
		t.Errorf("the model was told %q (error %q)", out, errText)
	}
}

func TestACPEditDeclined(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer acptest.Answer
		reason string
	}{
		{"rejected", acptest.RejectOnce, "the user rejected the edit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := editorACP
			cfg.Answer = func(sdk.RequestPermissionRequest) acptest.Answer { return c.answer }
			h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, replaceA(), geminitest.TextTurn("ok"))
			h.mustPrompt("return 2", sdk.StopReasonEndTurn)
			if w := h.client.Writes(); len(w) != 0 {
				t.Errorf("fs/write_text_file requests %+v after a refusal", w)
			}
			h.wantDisk("a.go", aGo)
			want := "This change was not applied: " + c.reason + ". The file was not modified."
			if out, errText := h.result(1); errText != want {
				t.Errorf("the model was told %q (output %q), want %q", errText, out, want)
			}
			if last := h.lastUpdate(); last.Status == nil || *last.Status != sdk.ToolCallStatusFailed {
				t.Errorf("final tool_call_update %+v, want failed", last)
			}
		})
	}
}

// "Always allow" allows every later edit of the session without asking.
func TestACPEditAlwaysAllow(t *testing.T) {
	cfg := editorACP
	cfg.Answer = func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.AllowAlways }
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo, "b.txt": "one\n"}, cfg: cfg},
		replaceA(),
		call("replace", map[string]any{"file_path": "b.txt", "old_string": "one", "new_string": "two"}),
		geminitest.TextTurn("done"),
		call("write_file", map[string]any{"file_path": "c.txt", "content": "three\n"}),
		geminitest.TextTurn("done again"))
	h.mustPrompt("edit a and b", sdk.StopReasonEndTurn)
	h.mustPrompt("and c", sdk.StopReasonEndTurn)
	if n := len(h.client.Permissions()); n != 1 {
		t.Errorf("%d permission requests, want the first edit's only", n)
	}
	w := h.client.Writes()
	if len(w) != 3 || w[1].Path != h.path("b.txt") || w[1].Content != "two\n" || w[2].Path != h.path("c.txt") || w[2].Content != "three\n" {
		t.Errorf("fs/write_text_file requests %+v, want a.go, b.txt and c.txt", w)
	}
	if out, _ := h.result(2); out != "Successfully modified file: "+h.path("b.txt")+" (1 replacements)." {
		t.Errorf("the second edit: the model was told %q", out)
	}
}

// Without fs.writeTextFile the edit, once allowed, lands on disk.
func TestACPEditWithoutWriteTextFileLandsOnDisk(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}}, replaceA(), geminitest.TextTurn("done"))
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	if n := len(h.client.Permissions()); n != 1 {
		t.Errorf("%d permission requests, want 1", n)
	}
	if w := h.client.Writes(); len(w) != 0 {
		t.Errorf("fs/write_text_file requests %+v from a client that did not declare it", w)
	}
	h.wantDisk("a.go", "package a\n\nfunc A() int { return 2 }\n")
	if out, errText := h.result(1); out != "Successfully modified file: "+h.path("a.go")+" (1 replacements)." {
		t.Errorf("the model was told %q (error %q)", out, errText)
	}
}

// The buffer changed while the user looked at the diff: nothing is
// written, and the model is told the file moved on, and what it holds.
func TestACPEditStale(t *testing.T) {
	var h *acpHarness
	moved := "package a\n\nfunc A() int { return 10 }\n"
	cfg := editorACP
	cfg.Answer = func(p sdk.RequestPermissionRequest) acptest.Answer {
		h.client.SetBuffer(h.path("a.go"), moved)
		return acptest.AllowOnce
	}
	h = startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, replaceA(), geminitest.TextTurn("ok"))
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	if w := h.client.Writes(); len(w) != 0 {
		t.Errorf("fs/write_text_file requests %+v over a buffer that moved on", w)
	}
	if b, _ := h.client.Buffer(h.path("a.go")); b != moved {
		t.Errorf("the buffer holds %q", b)
	}
	want := "The file " + h.path("a.go") + " changed before this change could be applied, so it did not land as proposed " +
		"(it changed in the editor after the change was proposed). The file now contains:\n" + moved
	if out, errText := h.result(1); errText != want {
		t.Errorf("the model was told %q (output %q), want %q", errText, out, want)
	}
}

func TestACPShellConfirmation(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer acptest.Answer
		output string // the output contains it
		err    string
	}{
		{"allowed", acptest.AllowOnce, "hello-from-shell", ""},
		{"rejected", acptest.RejectOnce, "", "The user declined to run this command."},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return c.answer }}
			h := startACP(t, acpSetup{cfg: cfg},
				call("run_shell_command", map[string]any{"command": "echo hello-from-shell"}), geminitest.TextTurn("ran"))
			h.mustPrompt("say hello", sdk.StopReasonEndTurn)
			perms := h.client.Permissions()
			if len(perms) != 1 {
				t.Fatalf("%d permission requests, want 1", len(perms))
			}
			tc := perms[0].ToolCall
			if tc.ToolCallId != h.client.ToolCalls()[0].ToolCallId || tc.Kind == nil || *tc.Kind != sdk.ToolKindExecute ||
				tc.Status == nil || *tc.Status != sdk.ToolCallStatusPending || tc.Title == nil || *tc.Title != "echo hello-from-shell" {
				t.Errorf("permission request's tool call %+v, want the call's id, kind execute, pending, the command as title", tc)
			}
			if args, ok := tc.RawInput.(map[string]any); !ok || args["command"] != "echo hello-from-shell" {
				t.Errorf("permission request's rawInput %#v, want the call's arguments", tc.RawInput)
			}
			if len(tc.Content) != 1 || tc.Content[0].Content == nil || tc.Content[0].Content.Content.Text == nil ||
				tc.Content[0].Content.Content.Text.Text != "Allow shell command?" {
				// The title is the command; a client showing both (agent-shell)
				// would show it twice.
				t.Errorf("permission request's content %+v, want the question alone", tc.Content)
			}
			if got := optionKinds(perms[0]); got != "allow_once=proceed_once,allow_always=proceed_always,reject_once=cancel" {
				t.Errorf("options %s", got)
			}
			out, errText := h.result(1)
			if !strings.Contains(out, c.output) || errText != c.err {
				t.Errorf("the model was told %q, error %q; want output with %q, error %q", out, errText, c.output, c.err)
			}
		})
	}
}

// session/cancel while the client holds a permission request: the prompt
// answers "cancelled" within 2 s, and nothing runs or lands.
func TestACPCancelWhileAsking(t *testing.T) {
	for _, c := range []struct {
		name string
		turn geminitest.Turn
	}{
		{"edit", replaceA()},
		{"shell", call("run_shell_command", map[string]any{"command": "touch ran"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := editorACP
			cfg.Answer = func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.Hold }
			h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, c.turn, geminitest.TextTurn("next"))
			h.cancelMidway("go", "the permission request", func(c *acptest.Client) bool { return len(c.Permissions()) == 1 })
			if w := h.client.Writes(); len(w) != 0 {
				t.Errorf("fs/write_text_file requests %+v after a cancel", w)
			}
			h.wantDisk("a.go", aGo)
			if _, err := os.Stat(h.path("ran")); !os.IsNotExist(err) {
				t.Errorf("the command ran: %v", err)
			}
		})
	}
}

// A shell line whose first argument is a plain word is also offered the
// narrower "always" of its prefix; chosen, a later line of that prefix
// runs unasked, and one that runs more than it, or another subcommand,
// is asked about again.
func TestACPAlwaysAllowAShellPrefix(t *testing.T) {
	var asked atomic.Int32
	cfg := acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer {
		if asked.Add(1) == 1 {
			return "proceed_always_prefix"
		}
		return acptest.RejectOnce
	}}
	shell := func(command string) geminitest.Turn {
		return call("run_shell_command", map[string]any{"command": command})
	}
	h := startACP(t, acpSetup{cfg: cfg},
		shell("git status"), shell("git status --short"), shell("git status; touch ran"), shell("git log -1"),
		geminitest.TextTurn("done"))
	h.mustPrompt("look at the tree", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 3 {
		t.Fatalf("%d permission requests, want 3: git status, the line that also touches, git log", len(perms))
	}
	if got := optionKinds(perms[0]); got != "allow_once=proceed_once,allow_always=proceed_always,allow_always=proceed_always_prefix,reject_once=cancel" {
		t.Errorf("options %s", got)
	}
	for _, o := range perms[0].Options {
		if o.OptionId == "proceed_always_prefix" && o.Name != "Always allow git status … in this session" {
			t.Errorf("the prefix option is named %q", o.Name)
		}
	}
	if title := perms[1].ToolCall.Title; title == nil || *title != "git status; touch ran" {
		t.Errorf("the second question is about %v, want the line that runs more than git status", title)
	}
	if title := perms[2].ToolCall.Title; title == nil || *title != "git log -1" {
		t.Errorf("the third question is about %v, want git log -1", title)
	}
	if _, err := os.Stat(h.path("ran")); !os.IsNotExist(err) {
		t.Errorf("the refused line ran: %v", err)
	}
}

// The model fallback belongs to no tool call: it is shown as a tool call
// of its own, asked about without "always" (both switch for the rest of
// the session), and ended.
func TestACPModelFallbackIsAskedAsACallOfItsOwn(t *testing.T) {
	quota := geminitest.Turn{Err: &geminitest.APIError{
		Code:    429,
		Message: "You exceeded your current quota, please check your plan and billing details.",
		Details: []map[string]any{{
			"@type":      "type.googleapis.com/google.rpc.QuotaFailure",
			"violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}},
		}},
	}}
	h := startACP(t, acpSetup{env: []string{"GEMINI_MODEL=gemini-3.1-pro-preview-customtools"}}, quota, geminitest.TextTurn("from flash"))
	h.mustPrompt("hi", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session); !strings.HasSuffix(got, "from flash") {
		t.Errorf("message %q", got)
	}
	perms := h.client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	tc := perms[0].ToolCall
	if got := optionKinds(perms[0]); got != "allow_once=proceed_once,reject_once=cancel" {
		t.Errorf("options %s", got)
	}
	calls := h.client.ToolCalls()
	if len(calls) != 1 || calls[0].ToolCallId != tc.ToolCallId || calls[0].Kind != sdk.ToolKindOther || calls[0].Title != "Switch to gemini-3-flash-preview?" {
		t.Errorf("tool calls %+v, want the question's own, as the request's %+v", calls, tc)
	}
	if ups := h.client.ToolCallUpdates(tc.ToolCallId); len(ups) != 1 || ups[0].Status == nil || *ups[0].Status != sdk.ToolCallStatusCompleted {
		t.Errorf("updates of the question %+v, want it completed", ups)
	}
}

// A client that reads buffers but cannot write them: a change made from
// an unsaved buffer does not go to disk, where it would carry the unsaved
// text behind the editor's back; one made from a buffer disk agrees with
// lands there.
func TestACPEditFromAnUnsavedBufferOfAClientThatCannotWrite(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo, "b.txt": "one\n"}, cfg: acptest.Config{ReadTextFile: true}},
		replaceA(), geminitest.TextTurn("ok"),
		call("replace", map[string]any{"file_path": "b.txt", "old_string": "one", "new_string": "two"}), geminitest.TextTurn("ok"))
	h.client.SetBuffer(h.path("a.go"), unsavedGo)
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	h.wantDisk("a.go", aGo)
	if _, errText := h.result(1); !strings.Contains(errText, "did not land as proposed (the change was made from the editor's buffer, and the file on disk does not hold that text") {
		t.Errorf("the model was told %q", errText)
	}
	h.mustPrompt("two", sdk.StopReasonEndTurn)
	h.wantDisk("b.txt", "two\n")
}

// An edit the user rejects cancels the later calls of the model's answer
// unrun, as Gemini CLI 0.61 cancels the queued calls (cancelAllQueued).
func TestACPRejectedEditCancelsTheLaterCalls(t *testing.T) {
	cfg := editorACP
	cfg.Answer = func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.RejectOnce }
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg},
		geminitest.CallTurn(
			geminitest.Call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
			geminitest.Call("read_file", map[string]any{"file_path": "a.go"}),
		),
		geminitest.TextTurn("ok"))
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	rs := h.functionResponses(1)
	if len(rs) != 2 || rs[0]["error"] != "This change was not applied: the user rejected the edit. The file was not modified." ||
		rs[1]["error"] != "The user declined an earlier call of this answer, so this call was cancelled before it ran." {
		t.Errorf("responses = %v, want the edit rejected and the read cancelled", rs)
	}
}

// Over ACP, a subagent's replace is asked with session/request_permission
// (marked as the invoke_agent call's) and lands with fs/write_text_file.
func TestACPSubagentEditAskedAndWritten(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: editorACP}, generalistEdits()...)
	h.mustPrompt("make A return 2", sdk.StopReasonEndTurn)
	want := "package a\n\nfunc A() int { return 2 }\n"
	writes := h.client.Writes()
	if len(writes) != 1 || writes[0].Path != h.path("a.go") || writes[0].Content != want {
		t.Errorf("fs/write_text_file requests %+v, want one writing %q to a.go", writes, want)
	}
	perms := h.client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	invoke := h.client.ToolCalls()[0]
	if meta := perms[0].ToolCall.Meta; meta == nil || meta["parentToolCallId"] != string(invoke.ToolCallId) || meta["agentName"] != "generalist" {
		t.Errorf("the permission request's _meta %+v, want the invoke_agent call %q", perms[0].ToolCall.Meta, invoke.ToolCallId)
	}
	if out, errText := h.result(2); out != "Successfully modified file: "+h.path("a.go")+" (1 replacements)." {
		t.Errorf("the subagent was told %q (error %q)", out, errText)
	}
}
