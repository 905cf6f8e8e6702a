package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"google.golang.org/genai"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// geminiCLIHome is a HOME for Gemini CLI 0.61 (and gemini-ls) that trusts
// project, signs in with an API key and asks the model one request per
// turn: no router, no next-speaker check, no update check.
func geminiCLIHome(t *testing.T, project string) string {
	t.Helper()
	home := t.TempDir()
	trustFolder(t, home, project)
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"name": "gemini-2.5-pro", "skipNextSpeakerCheck": true},
  "experimental": {"useModelRouter": false},
  "general": {"disableAutoUpdate": true}
}`})
	return home
}

// shapeTurns: a read_file call (signed, as 0.61 wants a call to be), then
// the answer, each with usage that has cached tokens.
func shapeTurns() []geminitest.Turn {
	return []geminitest.Turn{
		{Chunks: []geminitest.Chunk{{Call: geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}), ThoughtSignature: []byte("signature")}}, Usage: cached(usageOf(100, 5, 0), 40, 0)},
		{Chunks: []geminitest.Chunk{{Text: "It says a."}}, Usage: cached(usageOf(120, 4, 0), 40, 0)},
	}
}

// Gemini CLI 0.61 and gemini-ls, run with -o json and -o stream-json on
// the same script: every field 0.61 prints, gemini-ls prints too, at the
// same place (map keys that are names, such as models', aside), and the
// exit status is the same.
func TestRunJSONShapesAreGeminiCLIs(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{"a.txt": "a\n"})
	for _, format := range []string{"json", "stream-json"} {
		model := geminitest.NewTestServer(t, shapeTurns()...)
		cmd := geminicli.Command(t, geminiCLIHome(t, project), project, model.URL, "-p", "what does a.txt say?", "-o", format)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("gemini -o %s: %v\n%s", format, err, stderr.String())
		}
		theirs := shapeOf(t, stdout.String())

		h := newHeadless(t, nil, shapeTurns()...)
		env := append(h.withoutEnv("HOME"), "HOME="+geminiCLIHome(t, project), "GEMINI_MODEL=")
		r := h.runIn(project, env, "run", "-p", "what does a.txt say?", "-o", format)
		r.wantExit(t, 0)
		ours := shapeOf(t, r.stdout)
		var missing []string
		for _, p := range theirs {
			if !slices.Contains(ours, p) {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			t.Errorf("-o %s: gemini-ls lacks 0.61's %q\n0.61:\n%s\ngemini-ls:\n%s", format, missing, stdout.String(), r.stdout)
		}
	}
}

// shapeOf is every path of a field in out (one JSON value, or one per
// line): event type first for stream-json, names of models and tools as
// "*".
func shapeOf(t *testing.T, out string) []string {
	t.Helper()
	var paths []string
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		prefix := ""
		if m, ok := v.(map[string]any); ok {
			if typ, ok := m["type"].(string); ok {
				prefix = typ + ":"
				if role, ok := m["role"].(string); ok {
					prefix = typ + "(" + role + "):"
				}
			}
		}
		walkShape(prefix, v, &paths)
	}
	sort.Strings(paths)
	return slices.Compact(paths)
}

func walkShape(path string, v any, out *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		*out = append(*out, path)
		return
	}
	for k, child := range m {
		name := k
		if strings.HasSuffix(path, "models.") || strings.HasSuffix(path, "byName.") {
			name = "*"
		}
		walkShape(fmt.Sprintf("%s%s.", path, name), child, out)
	}
	if len(m) == 0 {
		*out = append(*out, path)
	}
}

// The decisions -o json counts, as Gemini CLI 0.61 counts them: its
// scheduler gives a call nobody was asked about (the approval mode or a
// rule allows it, or it needs no question) the outcome ProceedOnce, so it
// counts as "accept"; "auto_accept" is for the user's "allow always".
func TestRunCountsDecisionsAsGeminiCLIDoes(t *testing.T) {
	for _, c := range []struct {
		name, mode string
		call       *genai.FunctionCall
	}{
		{"write_file allowed by auto_edit", "auto_edit", geminitest.Call("write_file", map[string]any{"file_path": "b.txt", "content": "b\n"})},
		{"read_file in default", "default", geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})},
		{"write_file in default, nobody to ask", "default", geminitest.Call("write_file", map[string]any{"file_path": "b.txt", "content": "b\n"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			project := t.TempDir()
			if p, err := filepath.EvalSymlinks(project); err == nil {
				project = p
			}
			writeFiles(t, project, map[string]string{"a.txt": "a\n"})
			turns := func() []geminitest.Turn {
				return []geminitest.Turn{
					{Chunks: []geminitest.Chunk{{Call: c.call, ThoughtSignature: []byte("signature")}}, Usage: usageOf(100, 5, 0)},
					{Chunks: []geminitest.Chunk{{Text: "Done."}}, Usage: usageOf(120, 4, 0)},
				}
			}
			args := []string{"-p", "do it", "-o", "json", "--approval-mode", c.mode}
			model := geminitest.NewTestServer(t, turns()...)
			cmd := geminicli.Command(t, geminiCLIHome(t, project), project, model.URL, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run() // a refusal may end it non-zero; its JSON is what counts
			theirs := decisionsOf(t, "gemini", stdout.String()+stderr.String())
			os.Remove(filepath.Join(project, "b.txt"))

			h := newHeadless(t, nil, turns()...)
			env := append(h.withoutEnv("HOME"), "HOME="+geminiCLIHome(t, project), "GEMINI_MODEL=")
			r := h.runIn(project, env, append([]string{"run"}, args...)...)
			ours := decisionsOf(t, "gemini-ls", r.stdout+r.stderr)
			if ours != theirs {
				t.Errorf("decisions: gemini-ls %+v, Gemini CLI 0.61 %+v", ours, theirs)
			}
		})
	}
}

// decisionsOf reads the totalDecisions of the -o json object in out.
func decisionsOf(t *testing.T, who, out string) decisions {
	t.Helper()
	start := strings.Index(out, "{\n")
	if start < 0 {
		t.Fatalf("%s printed no JSON object:\n%s", who, out)
	}
	var v struct {
		Stats stats `json:"stats"`
	}
	if err := json.NewDecoder(strings.NewReader(out[start:])).Decode(&v); err != nil {
		t.Fatalf("%s -o json: %v\n%s", who, err, out)
	}
	return v.Stats.Tools.TotalDecisions
}
