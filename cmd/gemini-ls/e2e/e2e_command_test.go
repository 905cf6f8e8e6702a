package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Stock clients (Helix, eglot, Neovim without our plugin) prompt through
// the gemini.prompt command. These tests hold what docs/protocol.md §11
// promises them.

type progressValue struct {
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Message     string `json:"message"`
	Cancellable bool   `json:"cancellable"`
}

type progressParams struct {
	Token any           `json:"token"`
	Value progressValue `json:"value"`
}

func (h *harness) progress() []progressParams {
	return messagesAs[progressParams](h, "$/progress")
}

type showDocumentParams struct {
	URI       string `json:"uri"`
	TakeFocus *bool  `json:"takeFocus"`
}

func (h *harness) shownDocuments() []showDocumentParams {
	return messagesAs[showDocumentParams](h, "window/showDocument")
}

// allTexts is every text part of contents, joined.
func allTexts(contents []*genai.Content) string {
	var out []string
	for _, c := range contents {
		out = append(out, partTexts(c.Parts)...)
	}
	return strings.Join(out, "|")
}

func (h *harness) executeCommand(command string, args []any, result any) error {
	return h.client.Call(h.ctx, "workspace/executeCommand", map[string]any{"command": command, "arguments": args}, result)
}

// The command answers as soon as the turn has started, whatever the model
// takes: eglot gives up on a request after 10 s. The turn goes on in the
// background and gemini.cancel without an argument stops it.
func TestCommandAnswersAtOnce(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot()}, hangingTurn())
	var started commandStarted
	if err := h.executeCommand("gemini.prompt", []any{"think hard"}, &started); err != nil {
		t.Fatal(err)
	}
	// The model has not answered (it never will): the answer did not wait.
	if started.Status != "started" || started.SessionID == "" {
		t.Fatalf("gemini.prompt = %+v", started)
	}
	if _, err := h.client.WaitMessage(h.ctx, "$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"begin"`) }); err != nil {
		t.Fatal(err)
	}
	if n := len(h.client.Messages("window/showMessage")); n != 0 {
		t.Errorf("%d messages before the turn ended", n)
	}
	var cancelled map[string]bool
	if err := h.executeCommand("gemini.cancel", nil, &cancelled); err != nil || !cancelled["cancelled"] {
		t.Fatalf("gemini.cancel = %v, %v", cancelled, err)
	}
	// gemini.cancel answers after the turn showed how it ended: Emacs 28
	// may not read what comes in the same read as that answer.
	msgs := h.client.Messages("window/showMessage")
	if len(msgs) != 1 || !strings.Contains(string(msgs[0].Params), "Gemini: cancelled.") {
		t.Errorf("messages when gemini.cancel answered: %v", msgs)
	}
	prog := h.progress()
	if last := prog[len(prog)-1].Value; last.Kind != "end" || last.Message != "Gemini: cancelled" {
		t.Errorf("progress ends with %+v", last)
	}
}

// The progress is cancellable: window/workDoneProgress/cancel stops the
// turn.
func TestCommandCancelledThroughProgress(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix()}, hangingTurn())
	if err := h.executeCommand("gemini.prompt", []any{"think hard"}, nil); err != nil {
		t.Fatal(err)
	}
	m, err := h.client.WaitMessage(h.ctx, "$/progress", nil)
	if err != nil {
		t.Fatal(err)
	}
	var p progressParams
	_ = json.Unmarshal(m.Params, &p)
	if !p.Value.Cancellable {
		t.Errorf("progress begins with %+v, not cancellable", p.Value)
	}
	if err := h.client.Notify(h.ctx, "window/workDoneProgress/cancel", map[string]any{"token": p.Token}); err != nil {
		t.Fatal(err)
	}
	if msg := h.waitAnswerMessage(0); !strings.HasPrefix(msg, "Gemini: cancelled.") {
		t.Errorf("final message = %q", msg)
	}
}

// A turn shows itself in $/progress (the prompt, each line of the model's
// text, each tool), ends with the answer in window/showMessage, the text
// of separate model turns apart, and the session's transcript opened.
func TestCommandShowsTheTurn(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"a.go": aGo}},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Let me read a.go."}, {Call: geminitest.Call("read_file", map[string]any{"path": "a.go"})}}},
		geminitest.TextTurn("A returns 1.\nThat is all."),
	)
	_, msg := h.command(map[string]any{"prompt": "what does A return?"})
	// Each line ends in a space, for a client that drops line breaks.
	if want := "Gemini: Let me read a.go. \n\nA returns 1. \nThat is all."; msg != want {
		t.Errorf("final message = %q, want %q", msg, want)
	}
	var got []string
	for _, p := range h.progress() {
		got = append(got, p.Value.Kind+":"+p.Value.Message)
	}
	want := "begin:what does A return?,report:Let me read a.go.,report:ReadFile a.go,report:A returns 1.,end:Gemini: A returns 1."
	if strings.Join(got, ",") != want {
		t.Errorf("progress = %q, want %q", got, want)
	}
	if n := len(h.client.Messages("window/workDoneProgress/create")); n != 1 {
		t.Errorf("%d progress tokens created", n)
	}
	if _, err := h.client.WaitMessage(h.ctx, "window/showDocument", nil); err != nil {
		t.Fatal(err)
	}
	docs := h.shownDocuments()
	if len(docs) != 1 || docs[0].TakeFocus == nil || !*docs[0].TakeFocus {
		t.Fatalf("showDocument = %+v, want one taking focus", docs)
	}
	path := strings.TrimPrefix(docs[0].URI, "file://")
	transcript, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Prompt\n\nwhat does A return?", "Let me read a.go.\n\n- **ReadFile a.go** — ok", "A returns 1.\nThat is all."} {
		contains(t, "transcript", string(transcript), w)
	}
	if strings.HasPrefix(path, h.root) {
		t.Errorf("transcript %s written inside the workspace", path)
	}
	if n := len(h.client.Messages("gemini/update")); n != 0 {
		t.Errorf("sent %d gemini/update to Helix", n)
	}
}

// Successive commands continue one conversation per root: the model sees
// the earlier prompts, "Always Apply" holds, and the transcript is opened
// with focus once. gemini.newSession (or its code action) starts over.
func TestCommandPromptsAreOneConversation(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"a.go": aGo}},
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
		geminitest.TextTurn("Two."),
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 2", "new_string": "return 3"}),
		geminitest.TextTurn("Three."),
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 3", "new_string": "return 4"}),
		geminitest.TextTurn("Four."),
	)
	h.open("a.go")
	var questions []string
	h.client.OnShowMessageRequest = func(msg string, _ []string) string {
		questions = append(questions, msg)
		return "Always Apply"
	}
	first, _ := h.command("make it 2")
	second, msg := h.command("make it 3")
	if second.SessionID != first.SessionID {
		t.Errorf("second prompt in session %s, the first in %s", second.SessionID, first.SessionID)
	}
	if msg != "Gemini: Three." {
		t.Errorf("second answer = %q", msg)
	}
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 3 }\n")
	if len(questions) != 1 {
		t.Errorf("asked %d times in one conversation after Always Apply: %q", len(questions), questions)
	}
	reqs := h.model.Requests()
	if texts := allTexts(reqs[2].Contents); !strings.Contains(texts, "make it 2") || !strings.Contains(texts, "Two.") {
		t.Errorf("the second prompt's request lacks the first exchange: %s", texts)
	}
	if _, err := h.client.WaitMessageAfter(h.ctx, "window/showDocument", 1, nil); err != nil {
		t.Fatal(err)
	}
	docs := h.shownDocuments()
	if len(docs) != 2 || docs[0].URI != docs[1].URI || !*docs[0].TakeFocus || *docs[1].TakeFocus {
		t.Errorf("showDocument = %+v, want the same transcript twice, with focus the first time only", docs)
	}
	transcript, _ := os.ReadFile(strings.TrimPrefix(docs[0].URI, "file://"))
	contains(t, "transcript", string(transcript), "make it 2")
	contains(t, "transcript", string(transcript), "make it 3")

	// The code action offers a new conversation now that there is one.
	var newConv *wireCodeAction
	for _, a := range h.codeActions(map[string]any{"textDocument": map[string]any{"uri": "file://" + h.path("a.go")}, "range": rng(0, 0, 0, 1), "context": map[string]any{"diagnostics": []any{}}}) {
		if a.Title == "Gemini: new conversation" {
			newConv = &a
		}
	}
	if newConv == nil || newConv.Command.Command != "gemini.newSession" {
		t.Fatalf("no new conversation action: %+v", newConv)
	}
	var args []any
	for _, a := range newConv.Command.Arguments {
		args = append(args, a)
	}
	var fresh commandStarted
	if err := h.executeCommand(newConv.Command.Command, args, &fresh); err != nil {
		t.Fatal(err)
	}
	third, _ := h.command("make it 4")
	if third.SessionID == first.SessionID || third.SessionID != fresh.SessionID {
		t.Errorf("after gemini.newSession (%s) the prompt ran in %s (the old one: %s)", fresh.SessionID, third.SessionID, first.SessionID)
	}
	if len(questions) != 2 {
		t.Errorf("a new conversation did not ask again: %d questions", len(questions))
	}
	last := h.model.Requests()[4]
	if texts := allTexts(last.Contents); strings.Contains(texts, "make it 2") {
		t.Errorf("the new conversation carries the old one: %s", texts)
	}
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 4 }\n")
}

// A second prompt while the conversation is still answering is refused at
// once, saying how to go on.
func TestCommandWhileBusy(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix()}, hangingTurn())
	if err := h.executeCommand("gemini.prompt", []any{"think hard"}, nil); err != nil {
		t.Fatal(err)
	}
	err := h.executeCommand("gemini.prompt", []any{"and again"}, nil)
	if rpcCode(t, err) != -32803 || !strings.Contains(err.Error(), "still answering") || !strings.Contains(err.Error(), "gemini.cancel") {
		t.Errorf("second prompt: %v", err)
	}
	var cancelled map[string]bool
	if err := h.executeCommand("gemini.cancel", []any{map[string]any{"uri": "file://" + h.path("x.go")}}, &cancelled); err != nil || !cancelled["cancelled"] {
		t.Errorf("gemini.cancel of the root's conversation = %v, %v", cancelled, err)
	}
	h.waitAnswerMessage(0)
}

// The question shows the change: a short diff in the message; a long one
// behind "Show diff", which opens it and asks again; for a client that
// cannot open documents (Neovim 0.7), the path of the diff file, and the
// transcript's path at the end of the answer.
func TestEditQuestionShowsTheChange(t *testing.T) {
	var before, after strings.Builder
	for i := range 30 {
		before.WriteString("line " + strings.Repeat("x", i%7) + "\n")
		after.WriteString("LINE " + strings.Repeat("y", i%5) + "\n")
	}
	turns := func() []geminitest.Turn {
		return []geminitest.Turn{
			call("write_file", map[string]any{"file_path": "big.txt", "content": after.String()}),
			geminitest.TextTurn("Rewritten."),
		}
	}
	t.Run("show diff", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"big.txt": before.String()}}, turns()...)
		h.open("big.txt")
		var asked []string
		h.client.OnShowMessageRequest = func(msg string, actions []string) string {
			asked = append(asked, msg+" "+strings.Join(actions, ","))
			if len(asked) == 1 {
				return "Show diff"
			}
			return "Apply"
		}
		h.command("rewrite big.txt")
		if len(asked) != 2 || asked[0] != asked[1] {
			t.Fatalf("asked %q, want the same question twice", asked)
		}
		if want := "Gemini wants to edit big.txt (+30 −30) (a diff of 61 lines: Show diff opens it) Apply,Always Apply,Reject,Show diff"; asked[0] != want {
			t.Errorf("question = %q, want %q", asked[0], want)
		}
		docs := h.shownDocuments()
		if len(docs) < 1 || !strings.HasSuffix(docs[0].URI, ".diff") {
			t.Fatalf("showDocument = %+v, want the diff first", docs)
		}
		path := strings.TrimPrefix(docs[0].URI, "file://")
		diff, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		contains(t, "diff", string(diff), "--- a/big.txt\n+++ b/big.txt\n@@ -1,30 +1,30 @@\n-line \n")
		if filepath.Base(filepath.Dir(path)) != "diffs" || strings.HasPrefix(path, h.root) {
			t.Errorf("diff written to %s", path)
		}
		h.wantBuffer("big.txt", after.String())
	})
	t.Run("no showDocument", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Neovim07(), files: map[string]string{"big.txt": before.String()}}, turns()...)
		h.open("big.txt")
		var asked []string
		h.client.OnShowMessageRequest = func(msg string, actions []string) string {
			asked = append(asked, msg+" "+strings.Join(actions, ","))
			return "Reject"
		}
		_, msg := h.command("rewrite big.txt")
		if len(asked) != 1 || !strings.Contains(asked[0], "(a diff of 61 lines, in ") || !strings.HasSuffix(asked[0], ".diff) Apply,Always Apply,Reject") {
			t.Fatalf("asked %q", asked)
		}
		path := asked[0][strings.Index(asked[0], ", in ")+5 : strings.Index(asked[0], ".diff)")+5]
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the diff named in the question: %v", err)
		}
		h.wantBuffer("big.txt", before.String())
		contains(t, "tool output", strings.Join(h.toolOutputs(1), ""), "declined")
		if !strings.Contains(msg, "\n\nTranscript: ") {
			t.Fatalf("final message %q does not say where the transcript is", msg)
		}
		transcript := msg[strings.Index(msg, "Transcript: ")+len("Transcript: "):]
		if b, err := os.ReadFile(transcript); err != nil || !strings.Contains(string(b), "rewrite big.txt") {
			t.Errorf("transcript %s: %q, %v", transcript, b, err)
		}
		if n := len(h.client.Messages("window/showDocument")); n != 0 {
			t.Errorf("%d showDocument requests to a client without it", n)
		}
	})
}

// eglot answers an applyEdit with an error when the user says n to its
// own question: the model is told the user declined the edit.
func TestEditRefusedByTheEditor(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": aGo}}, editTurns()...)
	h.open("a.go")
	h.client.OnApplyEdit = func(context.Context, lsptest.Edit) lsptest.Answer {
		return lsptest.Answer{Refuse: "User cancelled server edit"}
	}
	h.command("return 2")
	h.wantOutput(1, "error: This change was not applied: the user declined the edit in the editor. The file was not modified.")
	h.wantBuffer("a.go", aGo)
}

// Serving with no flags, stderr (which editors show as errors) stays
// silent through a prompt whose model call fails, whose api_error record
// is the log's: the editor's window/logMessage holds none of its fields
// (the prompt's answer says the failure in words); a --log-file without
// --log-level gets the info lines, but never the prompt's text.
func TestServeIsQuietByDefault(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.ErrorTurn(400, "bad request"), geminitest.TextTurn("another secret answer"))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_API_KEY=test-key", pinnedModel}
	// run serves one prompt; it returns stderr and the window/logMessage
	// notifications the editor got.
	run := func(logFile string, args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		proc := lsptest.StartCommand(t, binary, env, logFile, args...)
		c := lsptest.New(t, proc, lsptest.Plugin())
		if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "a secret prompt"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
			t.Fatal(err)
		}
		_ = c.Notify(ctx, "exit", nil)
		_, _ = proc.Wait(ctx)
		b, err := os.ReadFile(logFile + ".stderr")
		if err != nil {
			t.Fatal(err)
		}
		var logMessages strings.Builder
		for _, m := range c.Messages("window/logMessage") {
			logMessages.Write(m.Params)
		}
		return string(b), logMessages.String()
	}
	stderr, logMessages := run(filepath.Join(t.TempDir(), "none"), "serve")
	if stderr != "" {
		t.Errorf("serve wrote to stderr: %q", stderr)
	}
	if strings.Contains(logMessages, "api_error") || strings.Contains(logMessages, `\t{`) {
		t.Errorf("window/logMessage holds a log record's fields: %s", logMessages)
	}
	logFile := filepath.Join(t.TempDir(), "gemini-ls.log")
	if stderr, _ := run(logFile, "serve", "--log-file", logFile); stderr != "" {
		t.Errorf("serve --log-file wrote to stderr: %q", stderr)
	}
	log, _ := os.ReadFile(logFile)
	contains(t, "log file", string(log), `"msg":"initialized"`)
	if strings.Contains(string(log), "secret") {
		t.Errorf("the info log holds the prompt or the answer:\n%s", log)
	}
}

// Neovim without our plugin is asked with showMessageRequest and the diff,
// even where it declares change annotations (0.12 confirms those with a
// yes/no that shows nothing of the change); a CRLF file's diff comes
// without its carriage returns, which would garble a terminal's prompt.
func TestStockNeovimIsAskedWithTheDiff(t *testing.T) {
	const crlf = "alpha\r\n😀 世界 beta\r\ngamma\r\n"
	h := start(t, setup{profile: lsptest.Neovim012(), files: map[string]string{"c.txt": crlf}},
		call("replace", map[string]any{"file_path": "c.txt", "old_string": "beta", "new_string": "BETA"}),
		geminitest.TextTurn("done"))
	if !strings.Contains(string(h.client.Profile.Capabilities), "changeAnnotationSupport") {
		t.Fatal("the profile does not declare change annotations")
	}
	h.open("c.txt")
	var asked []string
	h.client.OnShowMessageRequest = func(msg string, _ []string) string {
		asked = append(asked, msg)
		return "Apply"
	}
	h.command("shout beta")
	want := "Gemini wants to edit c.txt (+1 −1):\n@@ -1,3 +1,3 @@\n alpha\n-😀 世界 beta\n+😀 世界 BETA\n gamma"
	if len(asked) != 1 || asked[0] != want {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if e := h.applyEdits(); len(e) != 1 || e[0].Annotated {
		t.Errorf("applyEdit = %+v, want one plain edit after the question", e)
	}
	h.wantBuffer("c.txt", "alpha\r\n😀 世界 BETA\r\ngamma\r\n")
}

// A transcript the client has open (Helix syncs it) is not shown again:
// Helix would put it in front of the user's code, whatever takeFocus says.
func TestOpenTranscriptIsNotShownAgain(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix()}, geminitest.TextTurn("One."), geminitest.TextTurn("Two."))
	h.command("first")
	if _, err := h.client.WaitMessage(h.ctx, "window/showDocument", nil); err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(h.shownDocuments()[0].URI, "file://")
	if err := h.client.Open(h.ctx, path, readFile(path)); err != nil {
		t.Fatal(err)
	}
	h.command("second")
	// The second turn's answer came; a showDocument would have come with it.
	if err := h.client.Call(h.ctx, "gemini/listSessions", nil, nil); err != nil {
		t.Fatal(err)
	}
	if docs := h.shownDocuments(); len(docs) != 1 {
		t.Errorf("showDocument = %+v, want the first only", docs)
	}
	contains(t, "transcript", readFile(path), "Two.")
}

// Emacs 30's eglot asks its own y/n before editing a file not visited,
// and answers applied even when the user says n. A client that applied an
// edit opens the file (didOpen); one that opened nothing and left the
// file as it was did not apply it, whatever it answered.
func TestEditAnsweredAppliedButNeverOpened(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": aGo}}, editTurns()...)
	applied := true
	h.client.OnApplyEdit = func(context.Context, lsptest.Edit) lsptest.Answer {
		return lsptest.Answer{Applied: &applied} // n: nothing applied, "applied" answered
	}
	h.command("return 2")
	h.wantOutput(1, "error: This change was not applied: the editor answered that it applied the edit, but it neither opened the file nor changed it. The file was not modified.")
	h.wantDisk("a.go", aGo)
}
