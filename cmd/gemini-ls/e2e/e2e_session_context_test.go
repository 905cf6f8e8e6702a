package e2e

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// contextTurns: a read_file call whose stream ends, as the API's does,
// with a chunk holding only an empty text; then the answer.
func contextTurns() []geminitest.Turn {
	return []geminitest.Turn{
		{Chunks: []geminitest.Chunk{{Call: geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}), ThoughtSignature: []byte("signature")}, {Text: ""}}},
		geminitest.TextTurn("It says a."),
	}
}

// sameContext is a session context as both programs may write it: the
// words that name the program and the date's format aside.
func sameContext(text string) string {
	text = strings.Replace(text, "This is the Gemini CLI.", "This is gemini-ls.", 1)
	return strings.Replace(text, " (formatted according to the user's locale).", ".", 1)
}

// partKeys are each part's fields, as the request spelled them.
func partKeys(t *testing.T, c *genai.Content) [][]string {
	t.Helper()
	var out [][]string
	for _, p := range c.Parts {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out = append(out, keys)
	}
	return out
}

// Gemini CLI 0.61 and gemini-ls, run on the same script in the same
// project and home, send the same requests' shape: the first user
// content is the <session_context> (the same text, but for the program's
// name and the date's format) then the prompt, in one content; the
// second request begins with that same content; and the model's call
// goes back as it came, without the empty part the stream ended with.
func TestSessionContextAsGeminiCLI(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{"a.txt": "a\n", "src/main.go": "package main\n"})
	home := geminiCLIHome(t, project)

	model := geminitest.NewTestServer(t, contextTurns()...)
	cmd := geminicli.Command(t, home, project, model.URL, "-p", "what does a.txt say?")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, stderr.String())
	}
	theirs := chatRequests(&headless{model: model})

	h := newHeadless(t, nil, contextTurns()...)
	env := append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_MODEL=")
	h.runIn(project, env, "run", "-p", "what does a.txt say?").wantExit(t, 0)
	ours := chatRequests(h)

	if len(theirs) != 2 || len(ours) != 2 {
		t.Fatalf("requests: 0.61 %d, gemini-ls %d, want 2 each", len(theirs), len(ours))
	}
	for who, reqs := range map[string][]geminitest.Request{"0.61": theirs, "gemini-ls": ours} {
		first := reqs[0].Contents
		if len(first) != 1 || len(first[0].Parts) != 2 || !strings.HasPrefix(first[0].Parts[0].Text, "<session_context>\n") || first[0].Parts[1].Text != "what does a.txt say?" {
			t.Fatalf("%s's first request: %s", who, toJSONString(first))
		}
		if second := reqs[1].Contents; len(second) != 3 || toJSONString(second[0]) != toJSONString(first[0]) {
			t.Errorf("%s's second request does not begin with the first's content: %s", who, toJSONString(second))
		}
	}
	want, got := sameContext(theirs[0].Contents[0].Parts[0].Text), sameContext(ours[0].Contents[0].Parts[0].Text)
	if got != want {
		t.Errorf("the session context:\ngemini-ls:\n%s\n0.61:\n%s", got, want)
	}
	if want, got := partKeys(t, theirs[1].Contents[1]), partKeys(t, ours[1].Contents[1]); !slices.EqualFunc(want, got, slices.Equal) {
		t.Errorf("the model's call went back with the parts %q; 0.61's: %q", got, want)
	}
}

// isSessionContext reports whether p is the session context that begins
// a conversation's first user content: tests of what else the content
// holds leave it out.
func isSessionContext(p *genai.Part) bool {
	return strings.HasPrefix(p.Text, "<session_context>")
}

// withoutSessionContext is contents as a test of the conversation reads
// them: the session context that begins them left out (and the content
// that held it alone).
func withoutSessionContext(contents []*genai.Content) []*genai.Content {
	if len(contents) == 0 || !slices.ContainsFunc(contents[0].Parts, isSessionContext) {
		return contents
	}
	first := *contents[0]
	first.Parts = slices.DeleteFunc(slices.Clone(first.Parts), isSessionContext)
	out := slices.Clone(contents[1:])
	if len(first.Parts) > 0 {
		out = append([]*genai.Content{&first}, out...)
	}
	return out
}

// afterSessionContext is text without the session context it begins
// with, when it does: a BeforeModel hook's request joins a content's
// texts into one, as 0.61's does.
func afterSessionContext(text string) string {
	if !strings.HasPrefix(text, "<session_context>") {
		return text
	}
	_, rest, _ := strings.Cut(text, "</session_context>")
	return strings.TrimLeft(rest, "\n")
}

func toJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// context.includeDirectoryTree false leaves the workspace undrawn in the
// session context, as in 0.61.
func TestSessionContextWithoutTheTree(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "a\n", ".gemini/settings.json": `{"context": {"includeDirectoryTree": false}}`}, geminitest.TextTurn("ok"))
	h.run("run", "-p", "hello").wantExit(t, 0)
	first := h.model.Requests()[0].Contents[0]
	if len(first.Parts) != 2 || !isSessionContext(first.Parts[0]) || strings.Contains(first.Parts[0].Text, "Directory Structure") || strings.Contains(first.Parts[0].Text, "a.txt") {
		t.Errorf("the first user content: %s", toJSONString(first))
	}
}
