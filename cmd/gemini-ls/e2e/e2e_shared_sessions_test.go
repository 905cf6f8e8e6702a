package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// geminiHome is a home where Gemini CLI 0.61 runs deterministically
// against the fake (bench/compare-0.61): API-key auth, no router, no
// next-speaker check, root trusted.
func geminiHome(t *testing.T, root string) string {
	t.Helper()
	home := t.TempDir()
	writeGeminiSettings(t, home, root)
	return home
}

// writeGeminiSettings writes geminiHome's files into home.
func writeGeminiSettings(t *testing.T, home, root string) {
	t.Helper()
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"trustedFolders.json": `{"` + root + `": "TRUST_FOLDER"}`,
		"settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "model": {"skipNextSpeakerCheck": true},
 "experimental": {"useModelRouter": false},
 "general": {"disableAutoUpdate": true}}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// gemini61 runs Gemini CLI 0.61 in root against srv; stdout, stderr.
func gemini61(t *testing.T, home, root string, srv *geminitest.Server, args ...string) (string, string) {
	t.Helper()
	cmd := geminicli.Command(t, home, root, srv.URL, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gemini %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("gemini %s did not finish", strings.Join(args, " "))
	}
	return stdout.String(), stderr.String()
}

// gls runs gemini-ls in root with home as HOME against srv.
func gls(t *testing.T, home, root string, srv *geminitest.Server, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + t.TempDir(),
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL, "GEMINI_API_KEY=test-key", pinnedModel}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		res.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return res
}

// flat is each content of a request as "role: part, part…", a part
// shown as its text, "call NAME(ID) sig=SIG" or "response NAME(ID)
// OUTPUT"; thoughts left out.
func flat(contents []*genai.Content) []string {
	var out []string
	for _, c := range contents {
		var ps []string
		for _, p := range c.Parts {
			switch {
			case p.Thought:
			case p.FunctionCall != nil:
				ps = append(ps, "call "+p.FunctionCall.Name+" sig="+string(p.ThoughtSignature))
			case p.FunctionResponse != nil:
				output, _ := p.FunctionResponse.Response["output"].(string)
				ps = append(ps, "response "+p.FunctionResponse.Name+" "+strings.TrimSpace(output))
			case strings.HasPrefix(p.Text, "<session_context>"):
				// 0.61's own context, made anew by each run.
			default:
				ps = append(ps, p.Text)
			}
		}
		out = append(out, c.Role+": "+strings.Join(ps, " | "))
	}
	return out
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// A session Gemini CLI 0.61 started (a call, its result, the answer) is
// listed by gemini-ls over LSP and continued there: the model's next
// request holds the whole conversation, each result once. What gemini-ls
// adds, 0.61 continues in turn.
func TestSessionOfGeminiCLIResumedOverLSP(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "hello file\n"})
	home := geminiHome(t, root)
	srv61 := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Reading** the file"},
			{Call: geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}), ThoughtSignature: []byte("sig61")},
		}},
		geminitest.TextTurn("The file says hello."))
	if out, _ := gemini61(t, home, root, srv61, "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "-p", "What is in a.txt?", "-o", "text"); !strings.Contains(out, "The file says hello.") {
		t.Fatalf("gemini -p printed %q", out)
	}

	h := start(t, setup{profile: lsptest.Plugin(), root: root, env: []string{"HOME=" + home}}, geminitest.TextTurn("It said hello."))
	var list struct {
		Sessions []listedSession `json:"sessions"`
	}
	if err := h.client.Call(h.ctx, "gemini/listSessions", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || !uuidRE.MatchString(list.Sessions[0].SessionID) || list.Sessions[0].Title != "What is in a.txt?" ||
		list.Sessions[0].Live || list.Sessions[0].Prompts != 1 || list.Sessions[0].Root != root {
		t.Fatalf("sessions = %+v", list.Sessions)
	}
	id := list.Sessions[0].SessionID
	res := h.prompt(map[string]any{"prompt": "What did it say?", "sessionId": id})
	if res.StopReason != "end_turn" || res.SessionID != id {
		t.Fatalf("resumed prompt: %+v", res)
	}
	got := flat(h.model.Requests()[0].Contents)
	want := []string{
		"user: What is in a.txt?",
		"model: call read_file sig=",
		"user: response read_file hello file",
		"model: The file says hello.",
		"user: What did it say?",
	}
	if !slices.Equal(got, want) {
		t.Errorf("gemini-ls's request holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := h.proc.Close(); err != nil {
		t.Fatal(err)
	}

	// 0.61 continues what gemini-ls added.
	again := geminitest.NewTestServer(t, geminitest.TextTurn("Still hello."))
	gemini61(t, home, root, again, "-m", "gemini-2.5-pro", "--resume", id, "-p", "Once more?", "-o", "text")
	got = flat(again.Requests()[0].Contents)
	if n := len(got); n < 3 || got[n-3] != "user: What did it say?" || got[n-2] != "model: It said hello." || got[n-1] != "user: Once more?" {
		t.Errorf("0.61's request after gemini-ls's prompt holds\n%s", strings.Join(got, "\n"))
	}
}

// A session gemini-ls saved (a call with its thought signature, its
// result, the answer) is Gemini CLI 0.61's to list and resume: `gemini
// --resume latest` sends the model gemini-ls's history, the signature
// included; both list it alike; gemini-ls's --delete-session removes it
// for both.
func TestSessionOfGeminiLSResumedByGeminiCLI(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "hello file\n"})
	home := geminiHome(t, root)
	// 0.61's --resume below makes a second file of the session, with
	// nothing to resume, when the minute has turned since the session
	// began (its name holds the minute); 0.61's clean-up at its next start
	// removes that file and, as it removes every file of a session by the
	// id in its name, the session with it. Clean-up is not what this test
	// is about: off, for both programs.
	noCleanup := `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "model": {"skipNextSpeakerCheck": true},
 "experimental": {"useModelRouter": false},
 "general": {"disableAutoUpdate": true, "sessionRetention": {"enabled": false}}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(noCleanup), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Call: geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}), ThoughtSignature: []byte("sig-ls")},
		}},
		geminitest.TextTurn("It says hello."))
	first := gls(t, home, root, srv, "run", "-p", "What is in a.txt?")
	first.wantExit(t, 0)

	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files = %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the session file: %v, %v", fi.Mode(), err)
	}

	resumed := geminitest.NewTestServer(t, geminitest.TextTurn("Yes."))
	gemini61(t, home, root, resumed, "-m", "gemini-2.5-pro", "--resume", "latest", "-p", "Do you remember?", "-o", "text")
	got := flat(resumed.Requests()[0].Contents)
	want := []string{
		"user: What is in a.txt?",
		"model: call read_file sig=sig-ls",
		"user: response read_file hello file",
		"model: It says hello.",
		"user: Do you remember?",
	}
	if !slices.Equal(got, want) {
		t.Errorf("0.61's request holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// gemini-ls's --resume N takes 0.61's numbers, and the session now
	// holds 0.61's prompt too.
	third := geminitest.NewTestServer(t, geminitest.TextTurn("Sure."))
	gls(t, home, root, third, "run", "--resume", "1", "-p", "Again?").wantExit(t, 0)
	got = flat(third.Requests()[0].Contents)
	if n := len(got); n != 7 || got[4] != "user: Do you remember?" || got[5] != "model: Yes." || got[6] != "user: Again?" {
		t.Errorf("gemini-ls's --resume 1 request holds\n%s", strings.Join(got, "\n"))
	}

	// Listing, 0.61 asks the model to summarise the earlier session; the
	// summary is saved in the file, and both show it.
	summaries := geminitest.NewTestServer(t)
	summaries.AddRule(geminitest.Rule{Contains: "", Turn: geminitest.TextTurn("Reading a.txt")})
	list61, _ := gemini61(t, home, root, summaries, "--list-sessions")
	list := gls(t, home, root, summaries, "run", "--list-sessions")
	list.wantExit(t, 0)
	if list.stdout != list61 || !strings.Contains(list61, "Available sessions for this project (1):\n  1. ") {
		t.Errorf("gemini-ls --list-sessions printed\n%q\n0.61 printed\n%q", list.stdout, list61)
	}

	del := gls(t, home, root, summaries, "run", "--delete-session", "1")
	del.wantExit(t, 0)
	if !strings.HasPrefix(del.stdout, "Deleted session 1: ") {
		t.Errorf("--delete-session printed %q, %q", del.stdout, del.stderr)
	}
	if after, _ := gemini61(t, home, root, summaries, "--list-sessions"); after != "No previous sessions found for this project." {
		t.Errorf("0.61 lists after the delete: %q", after)
	}
	bad := gls(t, home, root, summaries, "run", "--delete-session", "7")
	if bad.code != 0 || bad.stderr != "No sessions found for this project.\n" {
		t.Errorf("deleting with none left: %d %q", bad.code, bad.stderr)
	}
}

// ACP's session/list lists a session Gemini CLI 0.61 started, and
// session/load replays it and continues it with its history.
func TestSessionOfGeminiCLILoadedOverACP(t *testing.T) {
	home := t.TempDir()
	h := startACP(t, acpSetup{home: home, noSession: true, files: map[string]string{"a.txt": "hello file\n"}}, geminitest.TextTurn("It said hello."))
	writeGeminiSettings(t, home, h.root)
	srv61 := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})),
		geminitest.TextTurn("The file says hello."))
	gemini61(t, home, h.root, srv61, "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "-p", "What is in a.txt?", "-o", "text")

	list, err := h.client.Conn.ListSessions(h.ctx, sdk.ListSessionsRequest{Cwd: &h.root})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "What is in a.txt?" {
		t.Fatalf("session/list = %+v", list)
	}
	id := list.Sessions[0].SessionId
	if _, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	h.session = id
	var got []string
	for _, u := range h.since(0) {
		if u.AvailableCommandsUpdate == nil {
			got = append(got, replayed(u))
		}
	}
	if n := len(got); n < 2 || got[0] != "user: What is in a.txt?" || got[n-2] != "agent: The file says hello." || got[n-1] != "session_info What is in a.txt?" {
		t.Errorf("session/load replayed:\n%s", strings.Join(got, "\n"))
	}
	h.mustPrompt("What did it say?", sdk.StopReasonEndTurn)
	flatGot := flat(h.model.Requests()[0].Contents)
	want := []string{
		"user: What is in a.txt?",
		"model: call read_file sig=",
		"user: response read_file hello file",
		"model: The file says hello.",
		"user: What did it say?",
	}
	if !slices.Equal(flatGot, want) {
		t.Errorf("the request holds\n%s\nwant\n%s", strings.Join(flatGot, "\n"), strings.Join(want, "\n"))
	}
}
