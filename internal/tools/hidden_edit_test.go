package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Gemini CLI 0.61 edits a .geminiignore'd file as any other, and so does
// gemini-ls; but what read_file refuses is never shown to the model
// otherwise: replace's failure leaves out the closest lines and asks no
// correction model (which would be sent the file), and the outcome of a
// proposal (the user's version, what the file holds once it changed
// meanwhile) names no content.
func TestEditsOfAnIgnoredFileNeverShowIt(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".geminiignore": "secret.env\n",
		"secret.env":    "API_KEY=sk-live-123456\nDB_PASSWORD=hunter2\n",
		"plain.env":     "API_KEY=sk-live-123456\nDB_PASSWORD=hunter2\n",
	})
	if r := run(t, tw.tool(ReadFileName, Options{}), map[string]any{"file_path": "secret.env"}); r.Error == "" {
		t.Fatal("read_file read it")
	}
	u := &fakeUtility{answer: &llmEdit{Search: "DB_PASSWORD=hunter2\n", Replace: "z\n", Explanation: "It holds DB_PASSWORD=hunter2."}}
	miss := map[string]any{"old_string": "API_KEY=x\nDB_PASSWORD=y", "new_string": "z"}
	res := run(t, replaceWith(tw, &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}, u, time.Minute), with(miss, "file_path", "secret.env"))
	if res.Error == "" || strings.Contains(res.Error+res.Output, "hunter2") {
		t.Errorf("replace showed the ignored file's content:\n%s%s", res.Error, res.Output)
	}
	if len(u.calls) != 0 {
		t.Errorf("the ignored file was sent to the correction model (%d calls)", len(u.calls))
	}
	// A file not ignored still gets both.
	res = run(t, replaceWith(tw, &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}, &fakeUtility{err: errTest}, time.Minute), with(miss, "file_path", "plain.env"))
	if !strings.Contains(res.Error, "hunter2") {
		t.Errorf("replace of a file not ignored left out the closest lines:\n%s", res.Error)
	}

	now := "API_KEY=sk-live-999\nDB_PASSWORD=hunter3\n"
	for _, d := range []dialog.Decision{{Outcome: dialog.Stale, Content: now}, {Outcome: dialog.Modified, Content: now}} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{ReplaceName, map[string]any{"file_path": "secret.env", "old_string": "hunter2", "new_string": "hunter4"}},
			{WriteFileName, map[string]any{"file_path": "secret.env", "content": "API_KEY=new\n"}},
		} {
			res := run(t, tw.proposing(&fakeProposer{decision: d}, c.tool, Options{DisableLLMCorrection: true}), c.args)
			if strings.Contains(res.Error+res.Output, "hunter3") {
				t.Errorf("%s settled %s showed the ignored file's content:\n%s%s", c.tool, d.Outcome, res.Error, res.Output)
			}
		}
	}
}

var errTest = errString("no model here")

type errString string

func (e errString) Error() string { return string(e) }

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, val := range m {
		out[key] = val
	}
	return out
}
