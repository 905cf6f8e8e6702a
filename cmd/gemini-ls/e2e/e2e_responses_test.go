package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// franceResponses is a file of recorded answers in Gemini CLI 0.61's
// format, as its integration-tests/json-output.france.responses holds:
// one streamed answer, its usage with the prompt's details.
const franceResponses = `{"method":"generateContentStream","response":[{"candidates":[{"content":{"parts":[{"text":"The capital of France is Paris."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":7,"totalTokenCount":14,"promptTokensDetails":[{"modality":"TEXT","tokenCount":7}]}}]}
`

// replayEnv is an environment with no model and no credentials: HOME
// and PATH, and a model pinned in the settings as Gemini CLI's test rig
// pins it, which routes nothing.
func replayEnv(t *testing.T, root string) []string {
	t.Helper()
	home := t.TempDir()
	trustFolder(t, home, root)
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"model": {"name": "gemini-3-flash-preview"}}`})
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + t.TempDir()}
}

// Gemini CLI's json-output test, "should return a valid JSON with
// response and stats", on a recording in its format: replayed with no
// model and no credentials, the answer and its stats come out as JSON.
func TestReplayGeminiCLIResponses(t *testing.T) {
	root := t.TempDir()
	responses := filepath.Join(t.TempDir(), "json-output.france.responses")
	writeFiles(t, filepath.Dir(responses), map[string]string{filepath.Base(responses): franceResponses})
	h := &headless{t: t, root: root, env: replayEnv(t, root)}
	for _, flag := range []string{"--fake-responses", "--fake-responses-non-strict"} {
		r := h.run("--approval-mode=yolo", flag, responses, "What is the capital of France?", "--output-format", "json")
		r.wantExit(t, 0)
		res := decodeOne(t, r.stdout)
		if !strings.Contains(strings.ToLower(res.Response), "paris") {
			t.Errorf("%s: response %q", flag, res.Response)
		}
		m, ok := res.Stats.Models["gemini-3-flash-preview"]
		if !ok || m.Tokens.Prompt != 7 || m.Tokens.Candidates != 7 || m.Tokens.Total != 14 || m.API.TotalRequests != 1 {
			t.Errorf("%s: stats %+v", flag, res.Stats)
		}
	}
	// A call the file has no answer for fails the run in 0.61's words:
	// the answer after a tool call, or a line of another method.
	for name, tc := range map[string]struct{ line, want string }{
		"none left": {
			`{"method":"generateContentStream","response":[{"candidates":[{"content":{"parts":[{"functionCall":{"name":"list_directory","args":{"dir_path":"."}}}],"role":"model"},"finishReason":"STOP"}]}]}`,
			"No more mock responses for generateContentStream, got request:\n{\"model\":\"gemini-3-flash-preview\"",
		},
		"another method": {
			`{"method":"generateContent","response":{"candidates":[]}}`,
			"Unexpected response type, next response was for generateContent but expected generateContentStream",
		},
	} {
		file := filepath.Join(t.TempDir(), "short.responses")
		writeFiles(t, filepath.Dir(file), map[string]string{filepath.Base(file): tc.line + "\n"})
		r := h.run("--approval-mode=yolo", "--fake-responses", file, "-p", "hello")
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want it to say %q", name, r.code, r.stderr, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.responses")
	writeFiles(t, filepath.Dir(bad), map[string]string{"bad.responses": franceResponses + "{not json\n"})
	r := h.run("--fake-responses", bad, "-p", "hello")
	if r.code == 0 || !strings.Contains(r.stderr, bad+": line 2: ") {
		t.Errorf("a file with a bad line: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A session recorded with --record-responses against the model (an auto
// model: the router's call too, a tool call, the answer) replays with
// --fake-responses, with no model and no credentials, to the same
// result: the same calls run, the same files written, the same answer.
func TestRecordedSessionReplays(t *testing.T) {
	const prompt = "write the greeting to hello.txt"
	h := newHeadless(t, nil,
		geminitest.TextTurn(`{"complexity_reasoning": "one small edit", "complexity_score": 12}`),
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello, world\n"})),
		geminitest.TextTurn("Wrote hello.txt."))
	recording := filepath.Join(t.TempDir(), "session.responses")
	env := append(h.withoutEnv("GEMINI_MODEL"), "GEMINI_MODEL=auto")
	recorded := h.runIn(h.root, env, "--record-responses", recording, "--approval-mode", "yolo", "-o", "json", "-p", prompt)
	recorded.wantExit(t, 0)
	if n := len(h.model.Requests()); n != 3 {
		t.Fatalf("the recorded run made %d model requests, want 3 (router, call, answer)", n)
	}
	data, err := os.ReadFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Method string `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a recorded line is not JSON: %v\n%s", err, line)
		}
		methods = append(methods, rec.Method)
	}
	if want := "generateContent generateContentStream generateContentStream"; strings.Join(methods, " ") != want {
		t.Fatalf("recorded %q, want %q", methods, want)
	}

	for _, flag := range []string{"--fake-responses", "--fake-responses-non-strict"} {
		root := t.TempDir()
		replay := &headless{t: t, root: root, env: append(replayEnv(t, root), "GEMINI_MODEL=auto")}
		replayed := replay.run(flag, recording, "--approval-mode", "yolo", "-o", "json", "-p", prompt)
		replayed.wantExit(t, 0)
		want, got := decodeOne(t, recorded.stdout), decodeOne(t, replayed.stdout)
		if got.Response != want.Response || got.Response != "Wrote hello.txt." {
			t.Errorf("%s: answer %q, recorded %q", flag, got.Response, want.Response)
		}
		if got.Stats.Tools.TotalCalls != 1 || got.Stats.Tools.TotalSuccess != 1 {
			t.Errorf("%s: tools %+v", flag, got.Stats.Tools)
		}
		if text := replay.disk("hello.txt"); text != h.disk("hello.txt") || text != "hello, world\n" {
			t.Errorf("%s: hello.txt %q, recorded run's %q", flag, text, h.disk("hello.txt"))
		}
	}
}

// Gemini CLI's ACP test runs `gemini --acp --fake-responses FILE`: so
// does gemini-ls, with no model and no credentials, each session reading
// the file from its start.
func TestACPReplaysRecordedAnswers(t *testing.T) {
	responses := filepath.Join(t.TempDir(), "hello.responses")
	writeFiles(t, filepath.Dir(responses), map[string]string{filepath.Base(responses): strings.Replace(franceResponses, "The capital of France is Paris.", "Hello from the recording.", 1)})
	h := startACP(t, acpSetup{
		env:  append(trustTheWorkspace(), "GEMINI_API_KEY=", "GOOGLE_GEMINI_BASE_URL="),
		args: []string{"--fake-responses", responses},
	})
	for range 2 {
		h.mustPrompt("Hello", "end_turn")
		if got := h.client.MessageText(h.session); !strings.HasSuffix(got, "Hello from the recording.") {
			t.Errorf("the session's answer: %q", got)
		}
		res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatalf("session/new: %v", err)
		}
		h.session = res.SessionId
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the model saw %d requests", n)
	}
}
