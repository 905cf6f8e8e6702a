package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// readTool is "read_note": it answers with the note's text.
type readTool struct{}

func (readTool) Name() string { return "read_note" }
func (readTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: "read_note", Description: "reads a note",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": {Type: genai.TypeString}}}}
}
func (readTool) Build(args map[string]any) (tools.Call, error) {
	path, _ := args["path"].(string)
	return readCall(path), nil
}

type readCall string

func (c readCall) Title() string                   { return "Read " + string(c) }
func (readCall) Kind() dialog.Kind                 { return dialog.KindRead }
func (readCall) Confirmation() *tools.Confirmation { return nil }
func (c readCall) Execute(context.Context, tools.CallInfo) (tools.Result, error) {
	return tools.Result{Output: "the text of " + string(c)}, nil
}

// toolSet is an agent.ToolSet of the tools given.
type toolSet []tools.Tool

func (s toolSet) Get(name string) (tools.Tool, bool) {
	for _, t := range s {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

func (s toolSet) Declarations() []*genai.FunctionDeclaration {
	var out []*genai.FunctionDeclaration
	for _, t := range s {
		out = append(out, t.Declaration())
	}
	return out
}

func (toolSet) UnknownToolError(name string, _ []string) string { return "no tool " + name }

// tailHook is an AfterTool hook's command asking for a call of tool with
// args in the place of the one it hooked.
func tailHook(tool string, args map[string]any) string {
	out, _ := json.Marshal(map[string]any{"decision": "allow", "hookSpecificOutput": map[string]any{
		"hookEventName": "AfterTool", "tailToolCallRequest": map[string]any{"name": tool, "args": args}}})
	return "echo " + shellWord(string(out))
}

// TestAfterToolTailCallRunsInThePlaceOfTheCall: an AfterTool hook's
// tailToolCallRequest runs the call it asks for after the model's, as
// Gemini CLI 0.61 does: through the BeforeTool hooks, which read the
// model's call's name in original_request_name, and the model reads its
// result as the result of its own call (its id, its name). The user is
// told.
func TestAfterToolTailCallRunsInThePlaceOfTheCall(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("read_note", map[string]any{"path": "a.md"})),
		geminitest.TextTurn("Tail call completed successfully."))
	notes := &noteTool{}
	s := sessionWith(t, srv, dir, settings.Hooks{
		agent.HookAfterTool:  {def("read_note", command(tailHook("write_note", map[string]any{"path": "tail.md"}), 0))},
		agent.HookBeforeTool: {def("", command(`cat >> before.jsonl; echo >> before.jsonl`, 0))},
	}, agent.Config{Tools: toolSet{readTool{}, notes}, ApprovalMode: dialog.ApprovalYolo})
	res, notices := prompt(t, s, "Read a.md")
	if ran := notes.paths(); len(ran) != 1 || ran[0] != "tail.md" {
		t.Fatalf("write_note ran with %v", ran)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(res.Text, "Tail call completed successfully.") {
		t.Fatalf("%d requests, answer %q", len(reqs), res.Text)
	}
	call := modelCall(t, reqs[1])
	var answer *genai.FunctionResponse
	for _, p := range reqs[1].Contents[len(reqs[1].Contents)-1].Parts {
		answer = p.FunctionResponse
	}
	if answer == nil || answer.ID != call.ID || answer.Name != "read_note" || answer.Response["output"] != "wrote tail.md" {
		t.Errorf("the model's read_note call (%s) was answered with %+v", call.ID, answer)
	}
	before := readLines(t, filepath.Join(dir, "before.jsonl"))
	if len(before) != 2 || before[0]["tool_name"] != "read_note" || before[0]["original_request_name"] != nil ||
		before[1]["tool_name"] != "write_note" || before[1]["original_request_name"] != "read_note" {
		t.Errorf("the BeforeTool hooks read %v", before)
	}
	want := "An AfterTool hook had write_note run in the place of read_note; the model reads its result as the result of its read_note call."
	if len(notices) != 1 || notices[0] != want {
		t.Errorf("the user was told %q", notices)
	}
	if res.ToolCalls != 2 {
		t.Errorf("the prompt counts %d tool calls, want both", res.ToolCalls)
	}
}

// TestTailCallsInARowAreBounded: hooks asking for a tail call after every
// call (0.61 would run them for ever) have ten run in the place of the
// model's call; the eleventh is not run, the user is told, and the model
// reads the tenth's result.
func TestTailCallsInARowAreBounded(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("done"))
	notes := &noteTool{}
	s := session(t, srv, notes, dir, settings.Hooks{
		agent.HookAfterTool: {def("", command(tailHook("write_note", map[string]any{"path": "again.md"}), 0))},
	})
	_, notices := prompt(t, s, "write")
	if ran := notes.paths(); len(ran) != 11 {
		t.Fatalf("write_note ran %d times (%v), want the model's call and ten tail calls", len(ran), ran)
	}
	if got := functionResponse(t, srv.Requests()[1]); got["output"] != "wrote again.md" {
		t.Errorf("the model read %v", got)
	}
	last := notices[len(notices)-1]
	if len(notices) != 11 || !strings.Contains(last, "it did not, as 10 calls hooks asked for ran in a row in the place of the model's write_note call already") {
		t.Errorf("the user was told %d notices, the last %q", len(notices), last)
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.Lines(string(data)) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestAfterAgentClearContext: an AfterAgent hook's clearContext, with a
// stop or a block, empties the history as Gemini CLI 0.61's resetChat
// does: the model sees nothing of the conversation before (the block's
// reason goes as the first prompt of a new one), and the user is told.
// Without a stop or a block it changes nothing, as in 0.61.
func TestAfterAgentClearContext(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are command lines
	const cleared = "Conversation context has been cleared."
	for _, tc := range []struct {
		name, output string
		clears       bool
		turns        int
	}{
		{"stop", `{"continue":false,"stopReason":"enough","hookSpecificOutput":{"clearContext":true}}`, true, 2},
		{"block", `{"decision":"deny","reason":"start over","hookSpecificOutput":{"clearContext":true}}`, true, 3},
		{"allow", `{"decision":"allow","hookSpecificOutput":{"clearContext":true}}`, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			turns := []geminitest.Turn{geminitest.TextTurn("answer one")}
			for range tc.turns - 1 {
				turns = append(turns, geminitest.TextTurn("answer two"))
			}
			srv := geminitest.NewTestServer(t, turns...)
			// Only the first prompt's first answer is judged.
			hook := fmt.Sprintf(`grep -q '"prompt":"first".*"stop_hook_active":false' && echo %s; true`, shellWord(tc.output))
			s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookAfterAgent: {def("", command(hook, 0))}})
			_, notices := prompt(t, s, "first")
			prompt(t, s, "second")
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			sawFirst := strings.Contains(fmt.Sprint(allTexts(last.Contents)), "answer one")
			if sawFirst == tc.clears {
				t.Errorf("the last request's history %q", allTexts(last.Contents))
			}
			told := len(notices) > 0 && notices[len(notices)-1] == cleared
			if told != tc.clears {
				t.Errorf("the user was told %q", notices)
			}
			if tc.name == "block" {
				if got := allTexts(reqs[1].Contents); len(got) != 1 || got[0] != "start over" {
					t.Errorf("the block's retry sent %q", got)
				}
			}
		})
	}
}

func allTexts(contents []*genai.Content) []string {
	var out []string
	for _, c := range contents {
		out = append(out, texts(c)...)
	}
	return out
}
