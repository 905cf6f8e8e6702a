package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A headless run killed (SIGKILL) in the middle of a 30-call prompt, as a
// closed terminal or an exiting editor ends it, keeps everything before
// the kill: its session file holds the prompt and the 19 results read so
// far, and `--resume latest` sends them all to the model, the prompt
// closed with the note that it was interrupted, and goes on from there.
// The fake model holds its 20th answer open, so the kill lands at the
// same point every time.
func TestAKilledRunKeepsWhatItDid(t *testing.T) {
	const calls, killedAt = 30, 20
	files := map[string]string{}
	var turns []geminitest.Turn
	for i := 1; i <= calls; i++ {
		name := fmt.Sprintf("f%02d.txt", i)
		files[name] = fmt.Sprintf("content of file %d\n", i)
		if i == killedAt {
			turns = append(turns, geminitest.Turn{Hang: true})
		}
		turns = append(turns, call("read_file", map[string]any{"file_path": name}))
	}
	turns = append(turns, geminitest.TextTurn("Read all 30."))
	h := newHeadless(t, files, turns...)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(binary, "run", "-p", "read the 30 files", "-output-format", "json")
	cmd.Dir, cmd.Env = h.root, h.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.model.WaitRequests(ctx, killedAt); err != nil {
		cmd.Process.Kill()
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing runs after it
		t.Fatal(err)
	}
	_ = cmd.Wait()

	home := strings.TrimPrefix(h.env[1], "HOME=")
	sessions, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("the killed run left session files %q; want one", sessions)
	}
	saved, err := os.ReadFile(sessions[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < killedAt; i++ {
		if !strings.Contains(string(saved), fmt.Sprintf("content of file %d", i)) {
			t.Errorf("the session file lacks the result of call %d", i)
		}
	}

	res := h.run("run", "--resume", "latest", "-p", "go on", "-output-format", "json")
	res.wantExit(t, 0)
	if !strings.Contains(res.stdout, "Read all 30.") {
		t.Errorf("the resumed run printed %s\nstderr:\n%s", res.stdout, res.stderr)
	}
	reqs := h.model.Requests()
	resumed := reqs[killedAt].Contents
	// The prompt, 19 calls each with its result, the note, the new prompt.
	if len(resumed) != 1+2*(killedAt-1)+2 {
		t.Fatalf("the resumed run's first request holds %d contents:\n%q", len(resumed), wholeTexts(resumed))
	}
	if got := textOf(resumed[0]); got != "read the 30 files" {
		t.Errorf("the first content is %q, want the killed run's prompt", got)
	}
	for i := 1; i < killedAt; i++ {
		call, answer := resumed[2*i-1], resumed[2*i]
		fc := firstCall(call)
		fr := firstResponse(answer)
		if fc == nil || fr == nil || fc.ID != fr.ID || !strings.Contains(fmt.Sprint(fr.Response["output"]), fmt.Sprintf("content of file %d", i)) {
			t.Errorf("call %d: %s / %s", i, wholeTexts([]*genai.Content{call}), fmt.Sprint(fr))
		}
	}
	note, next := resumed[len(resumed)-2], resumed[len(resumed)-1]
	if note.Role != genai.RoleModel || textOf(note) != "[The previous response was interrupted before it completed.]" {
		t.Errorf("the interrupted prompt is closed by %s, want the model's note that it was interrupted", wholeTexts([]*genai.Content{note}))
	}
	if next.Role != genai.RoleUser || !strings.Contains(textOf(next), "go on") {
		t.Errorf("the last content is %s, want the new prompt", wholeTexts([]*genai.Content{next}))
	}
	if got := len(reqs); got != killedAt+calls-killedAt+1+1 {
		t.Errorf("the model answered %d requests in all, want %d", got, killedAt+calls-killedAt+2)
	}
}

func textOf(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if !isSessionContext(p) {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func firstCall(c *genai.Content) *genai.FunctionCall {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			return p.FunctionCall
		}
	}
	return nil
}

func firstResponse(c *genai.Content) *genai.FunctionResponse {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return p.FunctionResponse
		}
	}
	return nil
}
