package conversation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// describeFake titles a call by its tool and path, and reads and shells
// by kind.
func describeFake(name string, args map[string]any) dialog.ToolCall {
	var kind dialog.Kind
	switch name {
	case "read_file":
		kind = dialog.KindRead
	case "run_shell_command":
		kind = dialog.KindExecute
	}
	return dialog.ToolCall{Title: fmt.Sprintf("%s %v", name, args["file_path"]), Kind: kind}
}

// lines are the exchanges in a line per prompt and event, for comparing.
func lines(exchanges []Exchange) []string {
	var out []string
	for _, x := range exchanges {
		out = append(out, fmt.Sprintf("prompt %q %s answer %q", x.Prompt, x.Reason(), x.Answer))
		var r recorded
		x.Show(context.Background(), &r)
		out = append(out, r.lines...)
	}
	return out
}

// recorded is a replay's view that keeps what it was shown: a line each,
// and the calls' ends.
type recorded struct {
	lines   []string
	calls   []dialog.ToolCall
	results []dialog.ToolResult
}

func (r *recorded) Show(_ context.Context, _ dialog.Subagent, ev dialog.Event) {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		r.lines = append(r.lines, "text "+ev.Text)
	case dialog.ToolCallEvent:
		c := ev.Call
		r.calls = append(r.calls, c)
		r.lines = append(r.lines, fmt.Sprintf("call %s %q %s", c.CallID, c.Title, c.Kind))
	case dialog.ToolResultEvent:
		res := ev.Result
		r.results = append(r.results, res)
		r.lines = append(r.lines, fmt.Sprintf("result %s %s %q", res.CallID, res.Status, res.Display))
	default:
		r.lines = append(r.lines, fmt.Sprintf("unexpected %T", ev))
	}
}

func check(t *testing.T, got []Exchange, want ...string) {
	t.Helper()
	if g, w := strings.Join(lines(got), "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("replay:\n%s\nwant:\n%s", g, w)
	}
}

func user(parts ...*genai.Part) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: parts}
}
func model(parts ...*genai.Part) *genai.Content {
	return &genai.Content{Role: genai.RoleModel, Parts: parts}
}

func callPart(id, name string, args map[string]any) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: args}}
}

func responsePart(id, name string, response map[string]any) *genai.Part {
	return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: name, Response: response}}
}

// The prompts are replayed as typed (the transcript's text, not the
// files and editor state the model was sent), the model's text as it said
// it, each call with its tool's title and kind and then its result; the
// thought signatures the history keeps show nothing.
func TestReplayShowsPromptsTextAndCalls(t *testing.T) {
	history := []*genai.Content{
		user(genai.NewPartFromText("[editor state]"), genai.NewPartFromText("What is in @a.go?"), genai.NewPartFromText("--- a.go ---\npackage a")),
		model(&genai.Part{ThoughtSignature: []byte("sig")}, genai.NewPartFromText("Let me look."),
			callPart("c1", "read_file", map[string]any{"file_path": "a.go"}),
			callPart("c2", "run_shell_command", map[string]any{"command": "false"})),
		user(responsePart("c1", "read_file", map[string]any{"output": "package a"}),
			responsePart("c2", "run_shell_command", map[string]any{"error": "The user declined to run this command."})),
		model(genai.NewPartFromText("It is package a."), &genai.Part{Text: "thinking", Thought: true}),
		user(genai.NewPartFromText("Thanks")),
		model(), // an empty answer, recorded
	}
	exchanges := []agent.Exchange{
		{Prompt: "What is in @a.go?", Answer: "Let me look.\n\nIt is package a.", StopReason: dialog.StopEndTurn},
		{Prompt: "Thanks", StopReason: dialog.StopError},
	}
	check(t, replay(history, exchanges, describeFake),
		`prompt "What is in @a.go?" end_turn answer "Let me look.\n\nIt is package a."`,
		"text Let me look.",
		`call c1 "read_file a.go" read`,
		`result c1 ok "package a"`,
		`call c2 "run_shell_command <nil>" execute`,
		`result c2 error "The user declined to run this command."`,
		"text It is package a.",
		`prompt "Thanks" error answer ""`,
	)
}

// After a compression the history starts with the summary: the exchanges
// it summarised are replayed from the transcript, the summary not at all.
func TestReplayAfterACompression(t *testing.T) {
	history := []*genai.Content{
		user(genai.NewPartFromText("<state_snapshot>all of it</state_snapshot>")),
		model(genai.NewPartFromText("Got it. Thanks for the additional context!")),
		user(genai.NewPartFromText("third")),
		model(genai.NewPartFromText("third answer")),
	}
	exchanges := []agent.Exchange{{Prompt: "first", Answer: "first answer"}, {Prompt: "second", StopReason: dialog.StopError}, {Prompt: "third", Answer: "third answer"}}
	check(t, replay(history, exchanges, describeFake),
		`prompt "first"  answer "first answer"`, "text first answer",
		`prompt "second" error answer ""`,
		`prompt "third"  answer "third answer"`, "text third answer")
}

// A prompt the model did not answer (shell mode's "!command") shows the
// answer the user was shown, from the transcript.
func TestReplayShellModePrompt(t *testing.T) {
	history := []*genai.Content{
		user(genai.NewPartFromText("I ran the following shell command: …")),
		user(genai.NewPartFromText("next")),
		model(genai.NewPartFromText("next answer")),
	}
	exchanges := []agent.Exchange{{Prompt: "!echo hi", Answer: "```\nhi\n```"}, {Prompt: "next", Answer: "next answer"}}
	check(t, replay(history, exchanges, describeFake),
		`prompt "!echo hi"  answer "`+"```\\nhi\\n```"+`"`, "text ```\nhi\n```",
		`prompt "next"  answer "next answer"`, "text next answer")
}

// A history with prompts the transcript lacks replays their text; a call
// with no response was cut short; a long result is cut.
func TestReplayWithoutTranscriptAndLongResults(t *testing.T) {
	long := strings.Repeat("é", MaxReplayedOutput)
	history := []*genai.Content{
		user(genai.NewPartFromText("old prompt")),
		model(callPart("c1", "read_file", map[string]any{"file_path": "/abs/b.go"})),
		user(responsePart("c1", "read_file", map[string]any{"output": long})),
		model(callPart("c2", "other", map[string]any{"x": []any{1.0}})),
	}
	got := replay(history, nil, describeFake)
	if len(got) != 1 {
		t.Fatalf("replay: %q", lines(got))
	}
	var shown recorded
	got[0].Show(t.Context(), &shown)
	if len(shown.calls) != 2 || len(shown.results) != 2 {
		t.Fatalf("replay: %q", lines(got))
	}
	if got[0].Prompt != "old prompt" || shown.calls[0].Title != "read_file /abs/b.go" {
		t.Errorf("replay: %q", lines(got))
	}
	text := shown.results[0].Display
	if !strings.HasSuffix(text, "\n…") || len(text) > MaxReplayedOutput+len("\n…") || !strings.HasPrefix(text, "éé") || strings.ContainsRune(text, '\uFFFD') {
		t.Errorf("long result cut to %d bytes: %.20q…%q", len(text), text, text[len(text)-8:])
	}
	if r := shown.results[1]; r.Status != dialog.StatusCancelled || r.Display != "" {
		t.Errorf("a call without a response: %+v", r)
	}
}

func TestResultText(t *testing.T) {
	for _, c := range []struct {
		response map[string]any
		want     string
	}{
		{map[string]any{"output": "ok"}, "ok"},
		{map[string]any{"error": "no"}, "no"},
		{map[string]any{"output": map[string]any{"a": 1.0}}, `{"a":1}`},
		{map[string]any{}, ""},
	} {
		if got := resultText(c.response); got != c.want {
			t.Errorf("resultText(%v) = %q, want %q", c.response, got, c.want)
		}
	}
}

// A saved session's calls made with the argument names gemini-ls declared
// before it followed Gemini CLI 0.61 are titled as the same calls with
// 0.61's names.
func TestDescriberTitlesOlderCallsAsTheirTools(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, workspace.NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	describe := Describer(tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...))
	for _, tc := range []struct {
		name       string
		old, later map[string]any
		want       string
	}{
		{"read_file", map[string]any{"path": "a.go", "offset": 9.0, "limit": 5.0}, map[string]any{"file_path": "a.go", "start_line": 10.0, "end_line": 14.0}, "ReadFile a.go (lines 10-14)"},
		{"grep_search", map[string]any{"pattern": "x", "path": "src", "include": "*.go"}, map[string]any{"pattern": "x", "dir_path": "src", "include_pattern": "*.go"}, `SearchText "x" in src (filter: *.go)`},
		{"run_shell_command", map[string]any{"command": "ls", "directory": "sub"}, map[string]any{"command": "ls", "dir_path": "sub"}, "Shell ls [in sub]"},
	} {
		for _, args := range []map[string]any{tc.old, tc.later} {
			if title := describe(tc.name, args).Title; !strings.HasPrefix(title, tc.want) {
				t.Errorf("%s %v is titled %q, want %q", tc.name, args, title, tc.want)
			}
		}
	}
}

// A replayed call is located as the live call was: read_file at its
// start_line, so a client shows a loaded session's reads where they were.
func TestDescriberLocatesCallsAsTheirTools(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.New([]string{root}, workspace.NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	describe := Describer(tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...))
	for _, tc := range []struct {
		name string
		args map[string]any
		path string
		line int
	}{
		{"read_file", map[string]any{"file_path": "a.go", "start_line": 7.0}, filepath.Join(root, "a.go"), 7},
		{"write_file", map[string]any{"file_path": "b.txt", "content": "b"}, filepath.Join(root, "b.txt"), 0},
		{"glob", map[string]any{"pattern": "*.go"}, "", 0},
	} {
		if c := describe(tc.name, tc.args); c.Path != tc.path || c.Line != tc.line {
			t.Errorf("%s %v is located at %q line %d, want %q line %d", tc.name, tc.args, c.Path, c.Line, tc.path, tc.line)
		}
	}
}
