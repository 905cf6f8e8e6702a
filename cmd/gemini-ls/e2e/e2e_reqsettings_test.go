package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// overloaded is a 503 that asks for a short wait (google.rpc.RetryInfo),
// so the retries do not wait the 5 s, 10 s, ... of the backoff.
func overloaded() geminitest.Turn {
	return geminitest.Turn{Err: &geminitest.APIError{Code: 503, Message: "The model is overloaded. Please try again later.", RetryDelay: 10 * time.Millisecond}}
}

// chatRequests are the model requests of the conversation itself.
func chatRequests(h *headless) []geminitest.Request {
	var out []geminitest.Request
	for _, r := range h.model.Requests() {
		if r.Method == "streamGenerateContent" {
			out = append(out, r)
		}
	}
	return out
}

// general.maxAttempts: 2 makes two requests against three 503s, and the
// run fails saying why; by default the same 503s are retried until the
// answer comes.
func TestRunMaxAttemptsBoundsTheRetries(t *testing.T) {
	turns := []geminitest.Turn{overloaded(), overloaded(), overloaded(), geminitest.TextTurn("at last")}

	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"maxAttempts": 2}}`}, turns...)
	r := h.run("run", "-p", "hello")
	if r.code != 1 {
		t.Fatalf("maxAttempts 2 against three 503s: exit code %d, want 1 (as 0.61)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "503") || !strings.Contains(r.stderr, "overloaded") {
		t.Errorf("stderr does not name the 503:\n%s", r.stderr)
	}
	if n := len(chatRequests(h)); n != 2 {
		t.Errorf("maxAttempts 2: %d requests, want 2", n)
	}

	h = newHeadless(t, nil, turns...)
	r = h.run("run", "-p", "hello")
	r.wantExit(t, 0)
	if !strings.Contains(r.stdout, "at last") {
		t.Errorf("the answer after the retries is not printed:\n%s", r.stdout)
	}
	if n := len(chatRequests(h)); n != 4 {
		t.Errorf("by default: %d requests, want 4 (three 503s retried)", n)
	}
}

// Gemini CLI 0.61 with general.maxAttempts 2 against the same three 503s
// makes two requests too, and fails. (It waits its backoff, about 5 s,
// whatever RetryInfo says of a 503.)
func TestRunMaxAttemptsAsGeminiCLI(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{".gemini/settings.json": `{"general": {"maxAttempts": 2}}`})
	model := geminitest.NewTestServer(t, overloaded(), overloaded(), overloaded(), geminitest.TextTurn("at last"))
	cmd := geminicli.Command(t, geminiCLIHome(t, project), project, model.URL, "-p", "hello", "-m", "gemini-2.5-flash")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("0.61 against three 503s with maxAttempts 2: %v, want exit code 1 (as gemini-ls)\n%s", err, stdout.String())
	}
	n := 0
	for _, r := range model.Requests() {
		if r.Method == "streamGenerateContent" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("0.61 made %d requests with maxAttempts 2, want 2 (as gemini-ls)\nstderr:\n%s", n, stderr.String())
	}
	t.Logf("0.61: %v\nstderr:\n%s", err, stderr.String())
}

// bigOutput is 20,000 characters in numbered lines of 20, so that where
// a cut falls shows.
func bigOutput() string {
	var b strings.Builder
	for i := 0; b.Len() < 20_000; i++ {
		fmt.Fprintf(&b, "line %05d of output\n", i)
	}
	return b.String()[:20_000]
}

// shellResponse is the output the model was sent for its shell call.
func shellResponse(t *testing.T, reqs []geminitest.Request) string {
	t.Helper()
	for _, r := range reqs {
		for _, c := range r.Contents {
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil && fr.Name == "run_shell_command" {
					out, _ := fr.Response["output"].(string)
					return out
				}
			}
		}
	}
	t.Fatal("no function response of run_shell_command was sent")
	return ""
}

// savedPath is the file a cut output names.
var savedPath = regexp.MustCompile(`For full output see: (\S+)`)

// tools.truncateToolOutputThreshold 2000 cuts a 20,000-character shell
// output to its head and tail, as 0.61 cuts it, and the whole is in the
// file the model is told of, under ~/.gemini/tmp/<project>/tool-outputs.
func TestRunCutsLongShellOutput(t *testing.T) {
	big := bigOutput()
	h := newHeadless(t, map[string]string{
		"big.txt":               big,
		".gemini/settings.json": `{"tools": {"truncateToolOutputThreshold": 2000}}`,
	}, geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "cat big.txt"})), geminitest.TextTurn("read it"))
	r := h.run("run", "-p", "show big.txt", "--approval-mode", "yolo")
	r.wantExit(t, 0)
	sent := shellResponse(t, h.model.Requests())
	if len(sent) > 5000 {
		t.Fatalf("the model was sent %d characters of a 20,000-character output with threshold 2000:\n%.300s…", len(sent), sent)
	}
	for _, want := range []string{"Output too large. Showing first 400 and last 1,600 characters. For full output see: ", "characters omitted] ...", "line 00000 of output", "line 00951 of output", "\nProcess Group PGID: "} {
		if !strings.Contains(sent, want) {
			t.Errorf("the cut output lacks %q:\n%s", want, sent)
		}
	}
	m := savedPath.FindStringSubmatch(sent)
	if m == nil {
		t.Fatalf("the cut output names no file:\n%s", sent)
	}
	if !strings.Contains(filepath.ToSlash(m[1]), "/.gemini/tmp/") || !strings.Contains(filepath.ToSlash(m[1]), "/tool-outputs/session-") {
		t.Errorf("saved at %s, not under ~/.gemini/tmp/<project>/tool-outputs/session-<id>", m[1])
	}
	saved, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), strings.TrimRight(big, "\n")) {
		t.Errorf("the saved file (%d bytes) does not hold the whole output", len(saved))
	}
}

// Gemini CLI 0.61 cuts the same output with the same threshold in the
// same words, and saves the whole in the same place of its home.
func TestRunCutsLongShellOutputAsGeminiCLI(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	big := bigOutput()
	writeFiles(t, project, map[string]string{"big.txt": big, ".gemini/settings.json": `{"tools": {"truncateToolOutputThreshold": 2000}}`})
	turns := func() []geminitest.Turn {
		return []geminitest.Turn{
			{Chunks: []geminitest.Chunk{{Call: geminitest.Call("run_shell_command", map[string]any{"command": "cat big.txt"}), ThoughtSignature: []byte("signature")}}},
			geminitest.TextTurn("read it"),
		}
	}
	model := geminitest.NewTestServer(t, turns()...)
	home := geminiCLIHome(t, project)
	cmd := geminicli.Command(t, home, project, model.URL, "-p", "show big.txt", "--approval-mode", "yolo")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, stderr.String())
	}
	theirs := shellResponse(t, model.Requests())

	h := newHeadless(t, nil, turns()...)
	env := append(h.withoutEnv("HOME"), "HOME="+geminiCLIHome(t, project), "GEMINI_MODEL=")
	r := h.runIn(project, env, "run", "-p", "show big.txt", "--approval-mode", "yolo")
	r.wantExit(t, 0)
	ours := shellResponse(t, h.model.Requests())

	t.Logf("0.61 sent %d characters:\n%s", len(theirs), theirs)
	first := func(s string) string {
		line, _, _ := strings.Cut(s, "\n")
		return savedPath.ReplaceAllString(line, "For full output see: FILE")
	}
	if first(theirs) != first(ours) {
		t.Errorf("the note differs:\n0.61:      %s\ngemini-ls: %s", first(theirs), first(ours))
	}
	shape := regexp.MustCompile(`/\.gemini/tmp/[^/]+/tool-outputs/session-[0-9a-f-]+/run_shell_command_[^/]+\.txt$`)
	for who, s := range map[string]string{"0.61": theirs, "gemini-ls": ours} {
		m := savedPath.FindStringSubmatch(s)
		if m == nil || !shape.MatchString(filepath.ToSlash(m[1])) {
			t.Errorf("%s saved the output at %v, not ~/.gemini/tmp/<project>/tool-outputs/session-<id>/run_shell_command_<call>.txt", who, m)
		}
	}
}

// modelConfigsSettings defines an alias over the built-in chat-base and
// an override that matches it.
const modelConfigsSettings = `{"modelConfigs": {
  "customAliases": {
    "steady": {"extends": "chat-base", "modelConfig": {"model": "gemini-2.5-flash", "generateContentConfig": {"temperature": 0.25}}}
  },
  "customOverrides": [
    {"match": {"model": "steady"}, "modelConfig": {"generateContentConfig": {"topP": 0.5}}}
  ]
}}`

// generation is the part of a request's config the test looks at.
func generation(t *testing.T, r geminitest.Request) (temperature, topP, topK float32) {
	t.Helper()
	g := r.GenerationConfig
	if g == nil || g.Temperature == nil || g.TopP == nil || g.TopK == nil {
		t.Fatalf("the request to %s lacks temperature, topP or topK: %+v", r.Model, g)
	}
	return *g.Temperature, *g.TopP, *g.TopK
}

// -m ALIAS sends the alias's model and generation config: its own
// temperature, chat-base's topK, and the override's topP.
func TestRunModelAliasSendsItsConfig(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": modelConfigsSettings}, geminitest.TextTurn("steady"))
	r := h.run("run", "-m", "steady", "-p", "hello")
	r.wantExit(t, 0)
	reqs := chatRequests(h)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if reqs[0].Model != "gemini-2.5-flash" {
		t.Errorf("the request went to %q, want the alias's gemini-2.5-flash", reqs[0].Model)
	}
	if temp, topP, topK := generation(t, reqs[0]); temp != 0.25 || topP != 0.5 || topK != 64 {
		t.Errorf("temperature %v, topP %v, topK %v; want 0.25 (the alias), 0.5 (the override), 64 (chat-base)", temp, topP, topK)
	}
}

// Gemini CLI 0.61 sends the same model and generation config for -m
// ALIAS on the same settings.
func TestRunModelAliasAsGeminiCLI(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{".gemini/settings.json": modelConfigsSettings})
	model := geminitest.NewTestServer(t, geminitest.TextTurn("steady"))
	cmd := geminicli.Command(t, geminiCLIHome(t, project), project, model.URL, "-m", "steady", "-p", "hello")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, stderr.String())
	}
	var theirs []geminitest.Request
	for _, r := range model.Requests() {
		if r.Method == "streamGenerateContent" {
			theirs = append(theirs, r)
		}
	}
	if len(theirs) != 1 {
		t.Fatalf("0.61 made %d requests, want 1", len(theirs))
	}

	h := newHeadless(t, nil, geminitest.TextTurn("steady"))
	env := append(h.withoutEnv("HOME"), "HOME="+geminiCLIHome(t, project), "GEMINI_MODEL=")
	r := h.runIn(project, env, "run", "-m", "steady", "-p", "hello")
	r.wantExit(t, 0)
	ours := chatRequests(h)
	if len(ours) != 1 {
		t.Fatalf("gemini-ls made %d requests, want 1", len(ours))
	}
	if theirs[0].Model != ours[0].Model {
		t.Errorf("model: 0.61 %q, gemini-ls %q", theirs[0].Model, ours[0].Model)
	}
	tt, tp, tk := generation(t, theirs[0])
	ot, op, ok := generation(t, ours[0])
	if tt != ot || tp != op || tk != ok {
		t.Errorf("temperature, topP, topK: 0.61 %v %v %v, gemini-ls %v %v %v", tt, tp, tk, ot, op, ok)
	}
	th, oh := theirs[0].GenerationConfig.ThinkingConfig, ours[0].GenerationConfig.ThinkingConfig
	if fmt.Sprint(thinkingOf(th)) != fmt.Sprint(thinkingOf(oh)) {
		t.Errorf("thinkingConfig: 0.61 %v, gemini-ls %v", thinkingOf(th), thinkingOf(oh))
	}
}

func thinkingOf(c *genai.ThinkingConfig) string {
	if c == nil {
		return "none"
	}
	budget := "unset"
	if c.ThinkingBudget != nil {
		budget = fmt.Sprint(*c.ThinkingBudget)
	}
	return fmt.Sprintf("includeThoughts %v budget %s level %q", c.IncludeThoughts, budget, c.ThinkingLevel)
}

// As Gemini CLI 0.61 does by default, the older tool outputs are masked
// in later requests once the newer ones pass 50,000 tokens and the older
// 30,000: nine outputs of 39,000 characters (under the 40,000 at which
// each would be cut) leave the oldest masked in the last request, with
// the file that holds it whole.
func TestRunMasksOldToolOutputs(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 39_000; i++ {
		fmt.Fprintf(&b, "row %05d of the table\n", i)
	}
	var turns []geminitest.Turn
	for i := range 9 { // each command its own: the same five times is a loop
		turns = append(turns, geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": fmt.Sprintf("cat table.txt && echo pass %d", i)})))
	}
	turns = append(turns, geminitest.TextTurn("done"))
	h := newHeadless(t, map[string]string{"table.txt": b.String()[:39_000]}, turns...)
	r := h.run("run", "-p", "read the table nine times", "--approval-mode", "yolo")
	r.wantExit(t, 0)
	reqs := chatRequests(h)
	last := reqs[len(reqs)-1]
	var outputs []string
	for _, c := range last.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				out, _ := fr.Response["output"].(string)
				outputs = append(outputs, out)
			}
		}
	}
	if len(outputs) != 9 {
		t.Fatalf("%d function responses in the last request, want 9", len(outputs))
	}
	if !strings.HasPrefix(outputs[0], "<tool_output_masked>") {
		t.Fatalf("the oldest output is not masked:\n%.300s", outputs[0])
	}
	if strings.HasPrefix(outputs[8], "<tool_output_masked>") {
		t.Error("the newest output is masked")
	}
	m := regexp.MustCompile(`Full output available at: (\S+)`).FindStringSubmatch(outputs[0])
	if m == nil || !strings.Contains(filepath.ToSlash(m[1]), "/.gemini/tmp/") {
		t.Fatalf("the masked output names no file under ~/.gemini/tmp:\n%s", outputs[0])
	}
	saved, err := os.ReadFile(m[1])
	if err != nil || !strings.Contains(string(saved), "row 01000 of the table") {
		t.Errorf("the saved output: %v (%d bytes)", err, len(saved))
	}
	if first := reqs[1]; strings.Contains(fmt.Sprint(first.Contents), "tool_output_masked") {
		t.Error("an early request was masked")
	}
}

// general.retryFetchErrors false: an answer whose connection broke
// before any of it came, with no network error code, is not asked for
// again, and the run says why; by default it is.
func TestRunRetryFetchErrors(t *testing.T) {
	turns := []geminitest.Turn{{Cut: true}, geminitest.TextTurn("at last")}

	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"retryFetchErrors": false}}`}, turns...)
	r := h.run("run", "-p", "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "general.retryFetchErrors is false") {
		t.Errorf("retryFetchErrors false: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(chatRequests(h)); n != 1 {
		t.Errorf("retryFetchErrors false: %d requests, want 1", n)
	}

	h = newHeadless(t, nil, turns...)
	r = h.run("run", "-p", "hello")
	r.wantExit(t, 0)
	if n := len(chatRequests(h)); n != 2 {
		t.Errorf("by default: %d requests, want 2", n)
	}
}
