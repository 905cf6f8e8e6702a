package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// /export-session runs headless and over LSP without a model request:
// without a file, or before anything is saved, it says what Gemini CLI
// 0.61 says (headless: on stderr, exit 42, as 0.61 exits on a command's
// error); after a prompt it writes the session's record, the session's
// id and messages in it, to the file named in the workspace. The
// editors list it with the file it takes.
func TestExportSessionHeadlessAndOverLSP(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("Noted."))
	for prompt, want := range map[string]string{
		"/export-session":          "gemini-ls: Please provide a file path to export the session to. Example: /export-session ./my-session.json\n",
		"/export-session out.json": "gemini-ls: Failed to export session: No previous sessions found for this project.\n",
	} {
		res := h.run("run", "-p", prompt)
		res.wantExit(t, exitInput)
		if res.stderr != want {
			t.Errorf("%s: stderr %q, want %q", prompt, res.stderr, want)
		}
	}
	h.run("run", "-p", "remember 42").wantExit(t, 0)
	res := h.run("run", "--resume", "latest", "-p", "/export-session out.json")
	res.wantExit(t, 0)
	out := filepath.Join(h.root, "out.json")
	if strings.TrimSpace(res.stdout) != "Successfully exported session to "+out {
		t.Errorf("/export-session printed %q, %q", res.stdout, res.stderr)
	}
	rec := readRecord(t, out)
	if rec.FirstUserMessage != "remember 42" || len(rec.Messages) != 2 {
		t.Errorf("the export: %+v", rec)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests; /export-session made some", n-1)
	}

	lsp := start(t, setup{profile: lsptest.Plugin()}, geminitest.TextTurn("Hello."))
	var list commandsResult
	if err := lsp.client.Call(lsp.ctx, "gemini/commands", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, c := range list.Commands {
		listed = listed || c.Name == "export-session" && c.Hint == "<file>" && c.Source == "built-in"
	}
	if !listed {
		t.Errorf("gemini/commands does not list /export-session <file>: %+v", list.Commands)
	}
	said := lsp.prompt(map[string]any{"prompt": "hi"})
	got := lsp.prompt(map[string]any{"prompt": "/export-session " + lsp.path("lsp.json"), "sessionId": said.SessionID})
	if got.Text != "Successfully exported session to "+lsp.path("lsp.json") || got.SessionID != said.SessionID {
		t.Errorf("/export-session over LSP: %+v", got)
	}
	if rec := readRecord(t, lsp.path("lsp.json")); rec.SessionID != said.SessionID || rec.FirstUserMessage != "hi" {
		t.Errorf("the export over LSP: %+v", rec)
	}
	if n := len(lsp.model.Requests()); n != 1 {
		t.Errorf("%d model requests over LSP; /export-session made some", n-1)
	}
}

// exportedRecord is what the tests read of an exported session.
type exportedRecord struct {
	SessionID        string            `json:"sessionId"`
	FirstUserMessage string            `json:"firstUserMessage"`
	Messages         []json.RawMessage `json:"messages"`
}

func readRecord(t *testing.T, path string) exportedRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec exportedRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return rec
}

// gemini-ls's /export-session writes what Gemini CLI 0.61's writes, byte
// for byte, of a session both programs wrote: 0.61 starts it (a call,
// its result, the answer), gemini-ls continues it, 0.61 resumes it and
// exports it with its own /export-session; given the file as it was
// when 0.61 exported it (0.61 records the command's prompt after
// running it), gemini-ls exports the same bytes.
func TestExportSessionMatchesGeminiCLI(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "hello <file> é\n"})
	home := geminiHome(t, root)
	first := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Reading** the file"},
			{Call: geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}), ThoughtSignature: []byte("sig61")},
		}},
		geminitest.TextTurn("It says \"hello\" \u2028 & more."))
	gemini61(t, home, root, first, "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "-p", "What is in a.txt?", "-o", "text")
	gls(t, home, root, geminitest.NewTestServer(t, geminitest.TextTurn("Then nothing.")), "run", "--resume", "latest", "-p", "And then?").wantExit(t, 0)
	gemini61(t, home, root, geminitest.NewTestServer(t, geminitest.TextTurn("ok.")), "-m", "gemini-2.5-pro", "--resume", "latest", "-p", "/export-session out61.json", "-o", "text")

	// A resumed 0.61 also starts a file of its own, named by the minute
	// it started: when that is not the session's, it holds only 0.61's
	// context, and the session's file goes on.
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	cut := -1
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if cut = bytes.Index(data, []byte(`"text":"/export-session out61.json"`)); cut >= 0 {
			cut = bytes.LastIndexByte(data[:cut], '\n') + 1
			if err := os.WriteFile(file, data[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if cut < 0 {
		t.Fatalf("0.61 did not record its /export-session prompt in %v", files)
	}

	res := gls(t, home, root, geminitest.NewTestServer(t), "run", "--resume", "latest", "-p", "/export-session outls.json")
	res.wantExit(t, 0)
	want, err := os.ReadFile(filepath.Join(root, "out61.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "outls.json"))
	if err != nil {
		t.Fatal(err)
	}
	// 0.61 may export a message line gemini-ls wrote with gemini-ls's
	// mark, as it read it (a slow clean-machine run saw it; most runs
	// see 0.61 re-write the line without): gemini-ls's export leaves its
	// mark out always.
	want = lsMark.ReplaceAll(want, nil)
	if !bytes.Equal(got, want) {
		t.Errorf("gemini-ls exported\n%s\n0.61 exported (gemini-ls's marks left out)\n%s", got, want)
	}
	if !bytes.Contains(want, []byte(`"text": "And then?"`)) || !bytes.Contains(want, []byte(`"functionCall": {`)) {
		t.Errorf("0.61's export lacks the session's prompts:\n%s", want)
	}
}

// lsMark is the mark gemini-ls puts on its message lines, as 0.61's
// /export-session indents it.
var lsMark = regexp.MustCompile(`(?m)^ *"\$geminiLs": \{\n *"v": \d+\n *\},\n`)
