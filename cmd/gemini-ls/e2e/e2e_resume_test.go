package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// contentTexts is the role and first text of each content of a request.
func contentTexts(contents []*genai.Content) []string {
	var out []string
	for _, c := range withoutSessionContext(contents) {
		text := ""
		for _, p := range c.Parts {
			if p.Text != "" {
				text = p.Text
				break
			}
		}
		out = append(out, c.Role+": "+text)
	}
	return out
}

type listedSession struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	Root      string    `json:"root"`
	Prompts   int       `json:"prompts"`
	Live      bool      `json:"live"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// A session outlives the server: a new server process, as after an editor
// restart, lists it, shows its transcript, what it has cost (its tokens,
// the cached among them, how full the window was) and continues it, and
// the model sees the whole earlier conversation.
func TestSessionResumedByANewServerProcess(t *testing.T) {
	home := t.TempDir()
	noted := geminitest.TextTurn("noted: 42")
	noted.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1200, CachedContentTokenCount: 400, CandidatesTokenCount: 5, TotalTokenCount: 1205}
	first := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home}}, noted)
	old := first.prompt(map[string]any{"prompt": "remember 42\nplease"})
	if old.StopReason != "end_turn" {
		t.Fatalf("first prompt: %+v", old)
	}
	if err := first.proc.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home}}, geminitest.TextTurn("it was 42"))
	var list struct {
		Sessions []listedSession `json:"sessions"`
	}
	if err := second.client.Call(second.ctx, "gemini/listSessions", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != old.SessionID || list.Sessions[0].Title != "remember 42" ||
		list.Sessions[0].Live || list.Sessions[0].Prompts != 1 || list.Sessions[0].Root != first.root {
		t.Fatalf("sessions = %+v", list.Sessions)
	}
	// Filtered by root: the new server's own root has none.
	if err := second.client.Call(second.ctx, "gemini/listSessions", map[string]any{"root": "file://" + second.root}, &list); err != nil || len(list.Sessions) != 0 {
		t.Errorf("sessions of another root = %+v, %v", list.Sessions, err)
	}

	var resumed struct {
		Session   listedSession `json:"session"`
		Exchanges []struct {
			Prompt     string `json:"prompt"`
			Answer     string `json:"answer"`
			StopReason string `json:"stopReason"`
		} `json:"exchanges"`
		Usage *struct {
			SessionID    string `json:"sessionId"`
			Kind         string `json:"kind"`
			SessionUsage struct {
				TotalTokens  int `json:"totalTokens"`
				CachedTokens int `json:"cachedTokens"`
			} `json:"sessionUsage"`
			ContextUsed int `json:"contextUsed"`
			ContextSize int `json:"contextSize"`
		} `json:"usage"`
	}
	if err := second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{"sessionId": old.SessionID}, &resumed); err != nil {
		t.Fatal(err)
	}
	if !resumed.Session.Live || len(resumed.Exchanges) != 1 || resumed.Exchanges[0].Prompt != "remember 42\nplease" ||
		resumed.Exchanges[0].Answer != "noted: 42" || resumed.Exchanges[0].StopReason != "end_turn" {
		t.Errorf("resumed = %+v", resumed)
	}
	if u := resumed.Usage; u == nil || u.Kind != "usage" || u.SessionID != old.SessionID || u.SessionUsage.TotalTokens != 1205 ||
		u.SessionUsage.CachedTokens != 400 || u.ContextUsed != 1200 || u.ContextSize <= 0 {
		t.Errorf("resumed usage = %+v, want the session's 1205 tokens, 400 cached, 1200 of the window used", u)
	}

	res := second.prompt(map[string]any{"prompt": "what was it?", "sessionId": old.SessionID})
	if res.StopReason != "end_turn" || res.SessionID != old.SessionID {
		t.Fatalf("resumed prompt: %+v", res)
	}
	got := contentTexts(second.model.Requests()[0].Contents)
	want := []string{"user: remember 42\nplease", "model: noted: 42", "user: what was it?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the resumed session's request holds %q, want %q", got, want)
	}

	err := second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{"sessionId": "NOSUCHSESSION"}, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown session "NOSUCHSESSION"`) {
		t.Errorf("resuming an unknown session: %v", err)
	}
	err = second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{"sessionId": "../../etc/passwd"}, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("resuming a path: %v", err)
	}
	if err := second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "sessionId") {
		t.Errorf("resumeSession without an id: %v", err)
	}
}

// `run -resume ID` continues a saved session headless, and an unknown id
// says so without a usage message.
func TestRunResume(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("noted: 42"), geminitest.TextTurn("it was 42"), geminitest.TextTurn("still 42"), geminitest.TextTurn("yes, 42"))
	first := h.run("run", "-p", "remember 42", "-output-format", "json")
	first.wantExit(t, 0)
	id := jsonField(t, first.stdout, "session_id")

	list := h.run("run", "-list-sessions")
	list.wantExit(t, 0)
	if list.stdout != "\nAvailable sessions for this project (1):\n  1. remember 42 (Just now) ["+id+"]\n" {
		t.Errorf("-list-sessions printed %q", list.stdout)
	}

	again := h.run("run", "-resume", "latest", "-p", "what was it?", "-output-format", "json")
	again.wantExit(t, 0)
	if got := jsonField(t, again.stdout, "session_id"); got != id {
		t.Errorf("resumed session id %q, want %q", got, id)
	}
	got := contentTexts(h.model.Requests()[1].Contents)
	want := []string{"user: remember 42", "model: noted: 42", "user: what was it?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the resumed run's request holds %q, want %q", got, want)
	}
	if !strings.Contains(again.stdout, `"session": {`) {
		t.Errorf("the stats lack the session's usage: %s", again.stdout)
	}

	// An empty value is latest, and a value is trimmed, as in Gemini CLI.
	for _, resume := range []string{"--resume=", "--resume= 1 "} {
		r := h.run("run", resume, "-p", "and now?", "-output-format", "json")
		r.wantExit(t, 0)
		if got := jsonField(t, r.stdout, "session_id"); got != id {
			t.Errorf("%q: session id %q, want %q", resume, got, id)
		}
	}

	bad := h.run("run", "-resume", "NOSUCHSESSION", "-p", "hi")
	bad.wantExit(t, exitInput)
	if !strings.Contains(bad.stderr, "--resume NOSUCHSESSION: invalid session identifier") || strings.Contains(bad.stderr, "Usage") {
		t.Errorf("stderr = %q", bad.stderr)
	}
}

func jsonField(t *testing.T, out, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	s, _ := m[field].(string)
	return s
}

// gemini/resumeSession replays each exchange's turn as gemini/update
// showed it live: the call with its tool's title, its result, the text;
// the same replay ACP's session/load shows (TestACPSessionLoadedAfterRestart).
func TestResumeSessionReplaysTheTurnOverLSP(t *testing.T) {
	home := t.TempDir()
	first := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home}, files: map[string]string{"a.go": "package a\n"}},
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.go"})),
		geminitest.TextTurn("It is package a."))
	old := first.prompt(map[string]any{"prompt": "What is in a.go?"})
	if old.StopReason != "end_turn" {
		t.Fatalf("first prompt: %+v", old)
	}
	if err := first.proc.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home}})
	var resumed struct {
		Exchanges []struct {
			Prompt  string `json:"prompt"`
			Updates []struct {
				SessionID string `json:"sessionId"`
				Kind      string `json:"kind"`
				Text      string `json:"text"`
				Name      string `json:"name"`
				Title     string `json:"title"`
				Status    string `json:"status"`
				Display   string `json:"display"`
			} `json:"updates"`
		} `json:"exchanges"`
	}
	if err := second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{"sessionId": old.SessionID}, &resumed); err != nil {
		t.Fatal(err)
	}
	if len(resumed.Exchanges) != 1 || resumed.Exchanges[0].Prompt != "What is in a.go?" {
		t.Fatalf("resumed = %+v", resumed)
	}
	var got []string
	for _, u := range resumed.Exchanges[0].Updates {
		if u.SessionID != old.SessionID {
			t.Errorf("an update of session %q", u.SessionID)
		}
		got = append(got, strings.Join(strings.Fields(strings.Join([]string{u.Kind, u.Name, u.Title, u.Status, u.Display, u.Text}, " ")), " "))
	}
	want := []string{"toolCall read_file ReadFile a.go", "toolResult read_file ok package a", "text It is package a."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
