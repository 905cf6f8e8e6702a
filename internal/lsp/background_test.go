package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/github/githubtest"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// fakeGH puts a program named gh first on PATH that prints token for
// `gh auth token` (or fails when token is ""), as the GitHub CLI does.
func fakeGH(t *testing.T, token string) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] || exit 2\n"
	if token == "" {
		script += "echo 'no oauth token found for github.com' >&2\nexit 1\n"
	} else {
		script += "echo " + token + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

type backgroundWire struct {
	Kind       string `json:"kind"`
	State      string `json:"state"`
	Error      string `json:"error"`
	Background *struct {
		ID     string `json:"id"`
		RunID  int64  `json:"runId"`
		RunURL string `json:"runUrl"`
	} `json:"background"`
	Worktree *struct {
		Name string `json:"name"`
	} `json:"worktree"`
}

// backgroundClient is a client of a server whose workspace is a git
// repository and whose GitHub is gh (the user's token GITHUB_TOKEN when
// token is not "").
func backgroundClient(t *testing.T, gh *githubtest.Server, token string) (*lsptest.Client, string) {
	t.Helper()
	dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, geminitest.NewTestServer(t))
	env["GITHUB_REPOSITORY"] = "ada/proj"
	env["GITHUB_API_URL"] = gh.URL
	if token != "" {
		env["GITHUB_TOKEN"] = token
	}
	c := agentClient(t, env, lsptest.NeovimPlugin())
	if _, err := c.Initialize(t.Context(), []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	return c, dir
}

// The token is the editor's when it gives one, else gh's, else
// GITHUB_TOKEN's; with none, the user is told the three ways to give one
// and nothing is dispatched.
func TestDelegateFindsTheUsersToken(t *testing.T) {
	for _, c := range []struct {
		name, param, gh, env string
	}{
		{"the editor's", "gho_editor", "gho_gh", "gho_env"},
		{"gh's", "", "gho_gh", "gho_env"},
		{"GITHUB_TOKEN's", "", "", "gho_env"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.param
			if want == "" {
				want = c.gh
			}
			if want == "" {
				want = c.env
			}
			gh := githubtest.New(t, "ada/proj", want) // any other token is refused
			fakeGH(t, c.gh)
			client, _ := backgroundClient(t, gh, c.env)
			var a backgroundWire
			params := map[string]any{"prompt": "Add a flag"}
			if c.param != "" {
				params["token"] = c.param
			}
			if err := client.Call(t.Context(), "gemini/delegate", params, &a); err != nil {
				t.Fatalf("delegate with %s token: %v", c.name, err)
			}
			if d := gh.Dispatches(); len(d) != 1 || d[0].Inputs["prompt"] != "Add a flag" {
				t.Errorf("dispatches %+v", d)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		gh := githubtest.New(t, "ada/proj", "gho_x")
		fakeGH(t, "")
		client, _ := backgroundClient(t, gh, "")
		err := client.Call(t.Context(), "gemini/delegate", map[string]any{"prompt": "Add a flag"}, nil)
		if err == nil || !strings.Contains(err.Error(), "gh auth login") || !strings.Contains(err.Error(), "GITHUB_TOKEN") || !strings.Contains(err.Error(), "sign in to GitHub in your editor") {
			t.Errorf("delegate without a token: %v", err)
		}
		if d := gh.Dispatches(); len(d) != 0 {
			t.Errorf("dispatched %+v", d)
		}
	})
}

// While its run is queued a background agent cannot be landed or
// followed up; a run that fails ends the agent failed, naming the run's
// log, and the user is warned; discarding it forgets it (the run stays
// on GitHub, as the question says).
func TestABackgroundAgentThatFails(t *testing.T) {
	gh := githubtest.New(t, "ada/proj", "gho_env")
	fakeGH(t, "")
	client, _ := backgroundClient(t, gh, "gho_env")
	ctx := t.Context()
	var a backgroundWire
	if err := client.Call(ctx, "gemini/delegate", map[string]any{"prompt": "Break things"}, &a); err != nil {
		t.Fatal(err)
	}
	id := a.Background.ID
	if err := client.Call(ctx, "gemini/landAgent", map[string]any{"id": id}, nil); err == nil || !strings.Contains(err.Error(), "still runs on GitHub") {
		t.Errorf("landing a queued background agent: %v", err)
	}
	if err := client.Call(ctx, "gemini/followUpAgent", map[string]any{"id": id, "prompt": "more"}, nil); err == nil || !strings.Contains(err.Error(), "still running on GitHub") {
		t.Errorf("following up a queued background agent: %v", err)
	}
	// The server finds its run by its title.
	var run backgroundWire
	if _, err := client.WaitMessage(ctx, "gemini/agent", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, &run) == nil && run.Background != nil && run.Background.RunID != 0
	}); err != nil {
		t.Fatal(err)
	}
	gh.FinishRun(run.Background.RunID, "failure")
	var failed backgroundWire
	if _, err := client.WaitMessage(ctx, "gemini/agent", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, &failed) == nil && failed.State == "failed"
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(failed.Error, "ended failure") || !strings.Contains(failed.Error, run.Background.RunURL) || failed.Worktree != nil {
		t.Errorf("the failed agent: %+v", failed)
	}
	if _, err := client.WaitMessage(ctx, "window/showMessage", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "Break things") && strings.Contains(string(raw), `"type":2`)
	}); err != nil {
		t.Errorf("no warning told the user: %v", err)
	}
	// A stock client's list says where it runs and how to forget it.
	var doc struct {
		URI string `json:"uri"`
	}
	if err := client.Call(ctx, "workspace/executeCommand", map[string]any{"command": "gemini.agents"}, &doc); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(strings.TrimPrefix(doc.URI, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"On GitHub Actions in ada/proj: " + run.Background.RunURL, "`gemini.discardAgent " + id + "`", "ended failure"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("gemini.agents' list lacks %q:\n%s", want, md)
		}
	}
	client.OnShowMessageRequest = func(msg string, actions []string) string {
		if !strings.Contains(msg, "stay on GitHub") {
			t.Errorf("the discard question: %s", msg)
		}
		return "Discard"
	}
	var discarded struct {
		Discarded bool `json:"discarded"`
	}
	if err := client.Call(ctx, "gemini/discardAgent", map[string]any{"id": id}, &discarded); err != nil || !discarded.Discarded {
		t.Fatalf("discard: %+v, %v", discarded, err)
	}
	var list struct {
		Agents []backgroundWire `json:"agents"`
	}
	if err := client.Call(ctx, "gemini/agents", nil, &list); err != nil || len(list.Agents) != 0 {
		t.Errorf("after the discard: %+v, %v", list.Agents, err)
	}
}

// A server started later lists the background agents an earlier one
// started, kept in the state directory, and follows on a run that had
// not ended.
func TestABackgroundAgentOutlivesItsServer(t *testing.T) {
	gh := githubtest.New(t, "ada/proj", "gho_env")
	fakeGH(t, "")
	dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, geminitest.NewTestServer(t))
	env["GITHUB_REPOSITORY"], env["GITHUB_API_URL"], env["GITHUB_TOKEN"] = "ada/proj", gh.URL, "gho_env"
	stateDir := t.TempDir()
	server := func() (*lsptest.Client, func()) {
		conn, exit := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: stateDir})
		c := lsptest.New(t, conn, lsptest.NeovimPlugin())
		if _, err := c.Initialize(t.Context(), []string{dir}, nil); err != nil {
			t.Fatal(err)
		}
		return c, func() { conn.Close(); <-exit }
	}
	first, stop := server()
	ctx := t.Context()
	var a backgroundWire
	if err := first.Call(ctx, "gemini/delegate", map[string]any{"prompt": "Outlive me"}, &a); err != nil {
		t.Fatal(err)
	}
	var found backgroundWire
	if _, err := first.WaitMessage(ctx, "gemini/agent", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, &found) == nil && found.Background != nil && found.Background.RunID != 0
	}); err != nil {
		t.Fatal(err)
	}
	stop()

	next, _ := server()
	var list struct {
		Agents []backgroundWire `json:"agents"`
	}
	if err := next.Call(ctx, "gemini/agents", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Agents) != 1 || list.Agents[0].Kind != "background" || list.Agents[0].Background.ID != a.Background.ID || list.Agents[0].Background.RunID != found.Background.RunID {
		t.Fatalf("the next server lists %+v, want the background agent with its run", list.Agents)
	}
	gh.FinishRun(found.Background.RunID, "failure")
	var failed backgroundWire
	if _, err := next.WaitMessage(ctx, "gemini/agent", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, &failed) == nil && failed.State == "failed"
	}); err != nil {
		t.Fatalf("the next server did not follow the run on: %v", err)
	}
}
