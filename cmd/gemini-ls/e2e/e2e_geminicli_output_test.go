package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
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
