package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// history is n shell calls, each answered with an output of size
// characters, then a user message: the latest turn.
func maskHistory(n, size int) []*genai.Content {
	var out []*genai.Content
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		// A failed command's result, as the shell tool writes it.
		body := fmt.Sprintf("Output: %s\nExit Code: 1\nProcess Group PGID: %d", strings.Repeat(fmt.Sprintf("line of step %d\n", i), size/15), 4000+i)
		out = append(out,
			&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: "run_shell_command"}}}},
			&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "run_shell_command", Response: map[string]any{"output": body}}}}},
		)
	}
	return append(out, genai.NewContentFromText("and now?", genai.RoleUser))
}

func isMasked(c *genai.Content) bool {
	out, _ := c.Parts[0].FunctionResponse.Response["output"].(string)
	return strings.HasPrefix(out, "<tool_output_masked>")
}

// The newest 50,000 tokens of tool outputs stay whole; the older ones,
// once they come to 30,000 tokens, are masked in the history with a
// preview and the file that holds them whole, once: a later scan masks
// nothing again; the contents replaced are copies, the originals (which
// others may hold) are not changed.
func TestMaskOldToolOutputs(t *testing.T) {
	dir := t.TempDir()
	saves := 0
	m := &masker{save: func(name, id, text string) (string, error) {
		saves++
		path := filepath.Join(dir, name+"_"+id+".txt")
		return path, os.WriteFile(path, []byte(text), 0o600)
	}}
	history := maskHistory(10, 40_000) // about 10,000 tokens each
	original := slices.Clone(history)
	if saved := m.mask(history, 0); saved < 50_000 {
		t.Errorf("saved %d tokens, want those of six outputs", saved)
	}
	var masked []int
	for i := 1; i < len(history)-1; i += 2 {
		if isMasked(history[i]) {
			masked = append(masked, i/2)
		}
		if isMasked(original[i]) {
			t.Fatal("a content of the history was changed, not replaced")
		}
	}
	// The four newest come to 40,000 tokens and some; the fifth newest
	// crosses 50,000, and is masked with all before it, as in 0.61.
	if fmt.Sprint(masked) != "[0 1 2 3 4 5]" {
		t.Fatalf("masked calls %v, want the oldest six (the newest four kept)", masked)
	}
	out := history[1].Parts[0].FunctionResponse.Response["output"].(string)
	for _, want := range []string{"Output: line of step 0", "lines omitted] ...", "\nExit Code: 1\nProcess Group PGID: 4000\n", "\n\nOutput too large. Full output available at: " + filepath.Join(dir, "run_shell_command_call_0.txt") + "\n</tool_output_masked>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the masked output lacks %q:\n%s", want, out)
		}
	}
	saved, err := os.ReadFile(filepath.Join(dir, "run_shell_command_call_0.txt"))
	if err != nil || !strings.Contains(string(saved), "line of step 0") || !strings.HasPrefix(string(saved), "{\n  \"output\": ") {
		t.Errorf("the saved output: %.80q, %v", saved, err)
	}
	first := history[1]
	if again := m.mask(history, 0); again != 0 || saves != 6 || history[1] != first {
		t.Errorf("masked again: %d tokens saved, %d saves in all, want 6; the same content %v", again, saves, history[1] == first)
	}
	// A fresh masker (a resumed session) finds them masked already.
	fresh := &masker{save: m.save}
	if again := fresh.mask(history, 0); again != 0 || saves != 6 {
		t.Errorf("a fresh masker saved %d tokens, %d saves in all, want 6", again, saves)
	}
}

// A command stopped before it ended is told in a sentence and its output,
// with no sections: its preview keeps the sentence and the output's
// first and last lines, as 0.61's does.
func TestShellPreviewOfAStoppedCommand(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	const stopped = "Command was cancelled before it could complete. Below is the output before it was cancelled:"
	got := shellPreview(map[string]any{"output": stopped + "\n" + strings.Join(lines, "\n")})
	want := stopped + "\n" + strings.Join(lines[:9], "\n") + "\n\n... [11 lines omitted] ...\n\n" + strings.Join(lines[20:], "\n")
	if got != want {
		t.Errorf("preview\n%s\nwant\n%s", got, want)
	}
}

// Below 30,000 prunable tokens nothing is masked.
func TestMaskKeepsASmallHistory(t *testing.T) {
	m := &masker{save: func(string, string, string) (string, error) { t.Fatal("saved"); return "", nil }}
	history := maskHistory(6, 40_000) // 60,000 tokens and some: 20,000 prunable
	original := slices.Clone(history)
	if saved := m.mask(history, 0); saved != 0 {
		t.Errorf("saved %d tokens", saved)
	}
	for i, c := range history {
		if c != original[i] {
			t.Fatalf("content %d changed", i)
		}
	}
}
