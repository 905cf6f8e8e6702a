package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// undeclaredTurns: a call of tool, which the run did not declare, then
// the answer.
func undeclaredTurns(tool string, args map[string]any) []geminitest.Turn {
	return []geminitest.Turn{
		{Chunks: []geminitest.Chunk{{Call: geminitest.Call(tool, args), ThoughtSignature: []byte("signature")}}},
		{Chunks: []geminitest.Chunk{{Text: "done"}}},
	}
}

// undeclaredCall is what one run told of its call of an undeclared tool:
// the error the model was answered with, and stream-json's tool_result
// event's status and error type and message.
type undeclaredCall struct {
	modelError, status, errorType, message string
}

// Headless, a tool the run did not declare to the model is not there for
// it: called all the same, it does not run, and the model and the user
// are told what Gemini CLI 0.61 tells them (its Scheduler's
// tool_not_registered error, `Tool "NAME" not found. Did you mean one
// of: …?`), word for word. Both run the same script with the same home.
func TestRunUndeclaredToolIsNotFoundAsInGeminiCLI(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		settings string
		tool     string
		call     map[string]any
	}{
		{name: "shell in the default mode", tool: "run_shell_command", call: map[string]any{"command": "touch marker"}},
		{name: "shell in auto_edit", args: []string{"--approval-mode", "auto_edit"}, tool: "run_shell_command", call: map[string]any{"command": "touch marker"}},
		{name: "write_file in the default mode", tool: "write_file", call: map[string]any{"file_path": "marker", "content": "x"}},
		{name: "enter_plan_mode in plan mode", args: []string{"--approval-mode", "plan"}, tool: "enter_plan_mode", call: map[string]any{"reason": "again"}},
		{name: "shell excluded by settings in yolo", args: []string{"--approval-mode", "yolo"}, settings: `"tools": {"exclude": ["ShellTool"]}`, tool: "run_shell_command", call: map[string]any{"command": "touch marker"}},
		{name: "shell outside tools.core in yolo", args: []string{"--approval-mode", "yolo"}, settings: `"tools": {"core": ["read_file"]}`, tool: "run_shell_command", call: map[string]any{"command": "touch marker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			if p, err := filepath.EvalSymlinks(project); err == nil {
				project = p
			}
			writeFiles(t, project, map[string]string{"a.txt": "a\n"})
			home := toolsHome(t, project, tc.settings, nil)
			args := append([]string{"-p", "go", "-o", "stream-json"}, tc.args...)

			model := geminitest.NewTestServer(t, undeclaredTurns(tc.tool, tc.call)...)
			cmd := geminicli.Command(t, home, project, model.URL, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("gemini: %v\n%s", err, stderr.String())
			}
			theirs := undeclaredCallOf(t, model.Requests(), stdout.String())
			if !strings.HasPrefix(theirs.modelError, `Tool "`+tc.tool+`" not found.`) {
				t.Fatalf("0.61 answered %+v: the script does not call an undeclared tool", theirs)
			}

			h := newHeadless(t, nil, undeclaredTurns(tc.tool, tc.call)...)
			env := append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_MODEL=", "PATH=/usr/bin:/bin")
			r := h.runIn(project, env, append([]string{"run"}, args...)...)
			r.wantExit(t, 0)
			ours := undeclaredCallOf(t, h.model.Requests(), r.stdout)
			if ours != theirs {
				t.Errorf("undeclared %s:\n 0.61:      %+v\n gemini-ls: %+v", tc.tool, theirs, ours)
			}
			if _, err := os.Stat(filepath.Join(project, "marker")); err == nil {
				t.Errorf("the undeclared %s ran", tc.tool)
			}
			// 0.61's words, which its own suite looks for in the output
			// (policy-headless, user-policy); a tool the mode holds back is
			// also told once in sum.
			contains(t, "stderr", r.stderr, `Tool "`+tc.tool+`" not found.`)
			if tc.settings == "" {
				contains(t, "stderr", r.stderr, "1 of the model's calls did not run ("+tc.tool+")")
			}
		})
	}
}

// undeclaredCallOf reads undeclaredCall from a run's model requests and
// its stream-json output.
func undeclaredCallOf(t *testing.T, reqs []geminitest.Request, stream string) undeclaredCall {
	t.Helper()
	var out undeclaredCall
	if len(reqs) < 2 {
		t.Fatalf("the model saw %d requests, want 2", len(reqs))
	}
	contents := reqs[1].Contents
	for _, p := range contents[len(contents)-1].Parts {
		if p.FunctionResponse != nil {
			out.modelError, _ = p.FunctionResponse.Response["error"].(string)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(stream), "\n") {
		var ev struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Error  *struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stream-json line %q: %v", line, err)
		}
		if ev.Type == "tool_result" {
			out.status = ev.Status
			if ev.Error != nil {
				out.errorType, out.message = ev.Error.Type, ev.Error.Message
			}
		}
	}
	return out
}
