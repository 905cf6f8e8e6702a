package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// /chat share runs headless and over ACP without a model request: the
// conversation, a call and its result in it, to a Markdown or JSON file
// (gemini-conversation-<ms>.json without one), in Gemini CLI 0.61's
// words; /resume share is the same. ACP's /export-session writes the
// ACP session.
func TestChatShareHeadlessAndOverACP(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "hi\n"},
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})),
		geminitest.TextTurn("It says hi."))
	empty := h.run("run", "-p", "/chat share")
	empty.wantExit(t, 0)
	if strings.TrimSpace(empty.stdout) != "No conversation found to share." {
		t.Errorf("/chat share of nothing printed %q, %q", empty.stdout, empty.stderr)
	}
	bad := h.run("run", "-p", "/chat share notes.txt")
	bad.wantExit(t, exitInput)
	if bad.stderr != "gemini-ls: Invalid file format. Only .md and .json are supported.\n" {
		t.Errorf("/chat share notes.txt: %q", bad.stderr)
	}
	h.run("run", "-p", "what is in a.txt?").wantExit(t, 0)
	md := h.run("run", "--resume", "latest", "-p", "/resume share notes/conv.md")
	md.wantExit(t, 0)
	if strings.TrimSpace(md.stdout) != "Conversation shared to "+filepath.Join(h.root, "notes", "conv.md") {
		t.Errorf("/resume share printed %q, %q", md.stdout, md.stderr)
	}
	data, err := os.ReadFile(filepath.Join(h.root, "notes", "conv.md"))
	if err != nil || !strings.HasPrefix(string(data), "## USER \U0001F9D1\u200D\U0001F4BB\n\nwhat is in a.txt?\n\n---\n\n## MODEL ✨\n\n**Tool Command**:\n```json\n{\n  \"id\": ") ||
		!strings.HasSuffix(string(data), "\n\n---\n\n## MODEL ✨\n\nIt says hi.") {
		t.Errorf("the Markdown (%v):\n%s", err, data)
	}
	def := h.run("run", "--resume", "latest", "-p", "/chat share")
	def.wantExit(t, 0)
	if !regexp.MustCompile(`^Conversation shared to ` + regexp.QuoteMeta(h.root) + `/gemini-conversation-\d{13}\.json\n$`).MatchString(def.stdout) {
		t.Errorf("/chat share without a file printed %q, %q", def.stdout, def.stderr)
	}
	if n := len(h.model.Requests()); n != 2 {
		t.Errorf("%d model requests, want the prompt's 2", n)
	}

	acp := startACP(t, acpSetup{}, geminitest.TextTurn("Hello, Ada."))
	acp.command("my name is Ada")
	if got := acp.command("/chat share ada.json"); got != "Conversation shared to "+acp.path("ada.json") {
		t.Errorf("/chat share over ACP said %q", got)
	}
	var history []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	if data, err := os.ReadFile(acp.path("ada.json")); err != nil || json.Unmarshal(data, &history) != nil ||
		len(history) != 2 || history[0].Parts[0].Text != "my name is Ada" || history[1].Role != "model" {
		t.Errorf("the shared JSON over ACP (%v): %s", err, data)
	}
	if got := acp.command("/export-session ada-session.json"); got != "Successfully exported session to "+acp.path("ada-session.json") {
		t.Errorf("/export-session over ACP said %q", got)
	}
	if rec := readRecord(t, acp.path("ada-session.json")); rec.SessionID != string(acp.session) || rec.FirstUserMessage != "my name is Ada" {
		t.Errorf("the export over ACP: %+v", rec)
	}
	if n := len(acp.model.Requests()); n != 1 {
		t.Errorf("%d model requests over ACP; the commands made some", n-1)
	}
}

// markdownScript runs Gemini CLI 0.61's own serializeHistoryToMarkdown
// (its /chat share's Markdown) on a shared JSON file, and its
// JSON.stringify(history, null, 2) on what the file holds.
const markdownScript = `import fs from "node:fs";
const [chunk, file] = process.argv.slice(2);
const src = fs.readFileSync(chunk, "utf8");
const start = src.indexOf("\nfunction serializeHistoryToMarkdown(history) {");
const end = src.indexOf("\n}\n", start);
if (start < 0 || end < 0) throw new Error("no serializeHistoryToMarkdown in " + chunk);
const serialize = new Function(src.slice(start, end + 2) + "return serializeHistoryToMarkdown;")();
const history = JSON.parse(fs.readFileSync(file, "utf8"));
process.stdout.write(JSON.stringify({ markdown: serialize(history), json: JSON.stringify(history, null, 2) }));
`

// The files /chat share writes are what Gemini CLI 0.61 writes of the
// same history: its own Markdown serializer, given the JSON gemini-ls
// wrote, writes gemini-ls's Markdown byte for byte, and its
// JSON.stringify writes the JSON file back unchanged.
func TestChatShareAsGeminiCLI(t *testing.T) {
	dir := filepath.Dir(geminicli.JS(t))
	h := newHeadless(t, map[string]string{"a.txt": "hi <there> é\n"},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Text: "Reading it. "},
			{Call: geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}), ThoughtSignature: []byte("sig")},
		}},
		geminitest.TextTurn("It says \"hi\" \u2028 & more."))
	h.run("run", "-p", "what is in a.txt?").wantExit(t, 0)
	h.run("run", "--resume", "latest", "-p", "/chat share conv.md").wantExit(t, 0)
	h.run("run", "--resume", "latest", "-p", "/chat share conv.json").wantExit(t, 0)

	chunks, _ := filepath.Glob(filepath.Join(dir, "chunk-*.js"))
	var chunk string
	for _, c := range chunks {
		if b, err := os.ReadFile(c); err == nil && bytes.Contains(b, []byte("\nfunction serializeHistoryToMarkdown(history) {")) {
			chunk = c
			break
		}
	}
	if chunk == "" {
		t.Fatalf("no chunk of Gemini CLI %s's bundle holds serializeHistoryToMarkdown", geminicli.Version)
	}
	script := filepath.Join(t.TempDir(), "markdown.mjs")
	if err := os.WriteFile(script, []byte(markdownScript), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, chunk, filepath.Join(h.root, "conv.json"))
	cmd.Env = geminicli.Env(t.TempDir(), "")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("0.61's serializeHistoryToMarkdown: %v\n%s", err, out)
	}
	var want struct{ Markdown, JSON string }
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	gotJSON, _ := os.ReadFile(filepath.Join(h.root, "conv.json"))
	gotMD, _ := os.ReadFile(filepath.Join(h.root, "conv.md"))
	if string(gotJSON) != want.JSON {
		t.Errorf("gemini-ls's JSON\n%s\nis not 0.61's JSON.stringify of it\n%s", gotJSON, want.JSON)
	}
	if string(gotMD) != want.Markdown {
		t.Errorf("gemini-ls's Markdown\n%s\n0.61's of the same history\n%s", gotMD, want.Markdown)
	}
	if !strings.Contains(want.Markdown, "**Tool Command**") || !strings.Contains(want.Markdown, "**Tool Response**") {
		t.Errorf("the history lacks the call:\n%s", want.Markdown)
	}
}
