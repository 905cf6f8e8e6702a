package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// gitRepo is a git repository holding files, committed, its path real.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	sandboxtest.NeedGit(t)
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-qm", "first")
	return dir
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@e", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// agentModelTurn answers an agent's request by where it is in its
// turn, from the request itself, so agents running at once each get
// their own: first write_file of notes.txt naming the agent's worktree
// (found in the request: its root), then a shell command naming it,
// then "Done.".
func agentModelTurn() geminitest.Turn {
	worktreeName := regexp.MustCompile(`\.gemini/worktrees/([a-z0-9-]+)`)
	return geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		name := "unknown"
		if m := worktreeName.FindSubmatch(req.Body); m != nil {
			name = string(m[1])
		}
		answered := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					answered++
				}
			}
		}
		switch answered {
		case 0:
			return geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "notes.txt", "content": "written by " + name + "\n"}))
		case 1:
			return geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo " + name}))
		}
		return geminitest.TextTurn("Done.")
	}}
}

func agentEnv(t *testing.T, model *geminitest.Server) map[string]string {
	home := t.TempDir()
	return map[string]string{
		"HOME": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
		"XDG_STATE_HOME":                  filepath.Join(home, "state"),
	}
}

// agentClient is a client of profile connected to a server of env.
func agentClient(t *testing.T, env map[string]string, profile lsptest.Profile) *lsptest.Client {
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir()})
	return lsptest.New(t, conn, profile)
}

// writeHomeFile writes text to rel (slashes) under env's HOME.
func writeHomeFile(t *testing.T, env map[string]string, rel, text string) {
	t.Helper()
	path := filepath.Join(env["HOME"], filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

type agentWire struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
	State     string `json:"state"`
	Tokens    int    `json:"tokens"`
	Worktree  struct {
		Name   string `json:"name"`
		Path   string `json:"path"`
		Branch string `json:"branch"`
		Base   string `json:"base"`
	} `json:"worktree"`
	Files []struct {
		Path    string `json:"path"`
		Status  string `json:"status"`
		Added   int    `json:"added"`
		Removed int    `json:"removed"`
	} `json:"files"`
}

// promptEnd is gemini/prompt's result.
type promptEnd struct {
	SessionID  string `json:"sessionId"`
	StopReason string `json:"stopReason"`
	Text       string `json:"text"`
}

// Four agents over one connection, a worktree each, each writing the
// same file name differently: each worktree holds its own version, the
// main tree none, and each agent's question names its own session.
func TestFourAgentsEachInItsOwnWorktree(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	turns := make([]geminitest.Turn, 12)
	for i := range turns {
		turns[i] = agentModelTurn()
	}
	model := geminitest.NewTestServer(t, turns...)
	root := gitRepo(t, map[string]string{"README": "hello\n"})
	env := agentEnv(t, model)
	c := agentClient(t, env, lsptest.NeovimPlugin())
	var mu sync.Mutex
	asked := map[string]string{} // session id → the command it asked about
	c.OnConfirm = func(_ context.Context, raw json.RawMessage) string {
		var p struct {
			SessionID string `json:"sessionId"`
			Details   string `json:"details"`
		}
		_ = json.Unmarshal(raw, &p)
		mu.Lock()
		asked[p.SessionID] = p.Details
		mu.Unlock()
		return "proceed_once"
	}
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}

	names := []string{"alpha", "beta", "gamma", "delta"}
	type end struct {
		name string
		res  promptEnd
		err  error
	}
	ended := make(chan end, len(names))
	for _, name := range names {
		go func() {
			e := end{name: name}
			e.err = c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "Note who you are\nin notes.txt", "worktree": name}, &e.res)
			ended <- e
		}()
	}
	sessions := map[string]string{} // name → session id
	for range names {
		e := <-ended
		if e.err != nil || e.res.StopReason != "end_turn" || e.res.Text != "Done." {
			t.Fatalf("agent %s ended %+v, %v", e.name, e.res, e.err)
		}
		sessions[e.name] = e.res.SessionID
	}

	for _, name := range names {
		wt := filepath.Join(root, ".gemini", "worktrees", name)
		got, err := os.ReadFile(filepath.Join(wt, "notes.txt"))
		if err != nil || string(got) != "written by "+name+"\n" {
			t.Errorf("%s's worktree holds notes.txt %q (%v), want its own", name, got, err)
		}
		if branch := runGit(t, wt, "branch", "--show-current"); branch != "worktree-"+name {
			t.Errorf("%s's worktree is on %q", name, branch)
		}
		mu.Lock()
		q := asked[sessions[name]]
		mu.Unlock()
		if !strings.Contains(q, "echo "+name) {
			t.Errorf("%s's session was asked %q, want its own command (echo %s)", name, q, name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the main tree has notes.txt (%v): an agent's edit reached it", err)
	}
	if status := runGit(t, root, "status", "--porcelain", "--untracked-files=no"); status != "" {
		t.Errorf("the main tree changed: %q", status)
	}

	var list struct {
		Agents []agentWire `json:"agents"`
	}
	if err := c.Call(ctx, "gemini/agents", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Agents) != len(names) {
		t.Fatalf("gemini/agents lists %d agents, want %d: %+v", len(list.Agents), len(names), list.Agents)
	}
	for _, a := range list.Agents {
		if a.State != "done" || a.Title != "Note who you are" || sessions[a.Worktree.Name] != a.SessionID || a.Tokens == 0 {
			t.Errorf("agent %+v: want done, its title, its session and its tokens", a)
		}
		if len(a.Files) != 1 || a.Files[0].Path != "notes.txt" || a.Files[0].Status != "added" || a.Files[0].Added != 1 {
			t.Errorf("agent %s's files are %+v, want notes.txt added", a.Worktree.Name, a.Files)
		}
	}
	// Each state change was told: started working, waited on its
	// question, done.
	states := map[string][]string{}
	for _, m := range c.Messages("gemini/agent") {
		var a agentWire
		_ = json.Unmarshal(m.Params, &a)
		if s := states[a.Worktree.Name]; len(s) == 0 || s[len(s)-1] != a.State {
			states[a.Worktree.Name] = append(s, a.State)
		}
	}
	for _, name := range names {
		if want := []string{"working", "waiting", "working", "done"}; !slices.Equal(states[name], want) {
			t.Errorf("%s was told as %q, want %q", name, states[name], want)
		}
	}
}

// An agent's work lands as one edit of the user's tree: the hunk whose
// lines the user changed (unsaved, in the editor) is a conflict with
// both sides, the rest lands; a new file is created. Discard removes
// the worktree and its branch.
func TestLandAnAgentWithAConflictThenDiscardIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
	model := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			geminitest.Call("write_file", map[string]any{"file_path": "code.txt", "content": "one\nTWO\nthree\nfour\nfive\nsix\nSEVEN\neight\n"}),
			geminitest.Call("write_file", map[string]any{"file_path": "new.txt", "content": "new\n"})),
		geminitest.TextTurn("Done."))
	root := gitRepo(t, map[string]string{"code.txt": base})
	env := agentEnv(t, model)
	c := agentClient(t, env, lsptest.NeovimPlugin())
	var questions []string
	c.OnShowMessageRequest = func(message string, actions []string) string {
		questions = append(questions, message)
		return actions[0]
	}
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	var res promptEnd
	if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "shout", "worktree": "shout"}, &res); err != nil || res.StopReason != "end_turn" {
		t.Fatalf("the agent's prompt: %+v, %v", res, err)
	}
	wt := filepath.Join(root, ".gemini", "worktrees", "shout")

	// The user changes line 7 meanwhile, unsaved.
	codePath := filepath.Join(root, "code.txt")
	if err := c.Open(ctx, codePath, base); err != nil {
		t.Fatal(err)
	}
	yours := "one\ntwo\nthree\nfour\nfive\nsix\nseven (mine)\neight\n"
	if err := c.Type(ctx, codePath, yours); err != nil {
		t.Fatal(err)
	}

	var landed struct {
		Applied bool `json:"applied"`
		Files   []struct {
			Path   string `json:"path"`
			Status string `json:"status"`
		} `json:"files"`
		Conflicts []struct {
			Path   string `json:"path"`
			Line   int    `json:"line"`
			Yours  string `json:"yours"`
			Theirs string `json:"theirs"`
		} `json:"conflicts"`
		Message string `json:"message"`
	}
	if err := c.Call(ctx, "gemini/landAgent", map[string]any{"sessionId": res.SessionID}, &landed); err != nil {
		t.Fatal(err)
	}
	edits := c.Messages("workspace/applyEdit")
	if len(edits) != 1 {
		t.Fatalf("landing sent %d workspace/applyEdit, want one", len(edits))
	}
	if !strings.Contains(string(edits[0].Params), `"needsConfirmation":true`) {
		t.Errorf("the landing's edit is not previewed: %s", edits[0].Params)
	}
	if !landed.Applied || len(landed.Files) != 2 {
		t.Errorf("landed %+v, want two files applied", landed)
	}
	if len(landed.Conflicts) != 1 || landed.Conflicts[0].Line != 7 || landed.Conflicts[0].Yours != "seven (mine)\n" || landed.Conflicts[0].Theirs != "SEVEN\n" || landed.Conflicts[0].Path != codePath {
		t.Errorf("conflicts %+v, want line 7 with both sides", landed.Conflicts)
	}
	if !strings.Contains(landed.Message, "1 conflict") {
		t.Errorf("message %q does not tell the conflict", landed.Message)
	}
	if got, _ := c.Buffer(codePath); got != "one\nTWO\nthree\nfour\nfive\nsix\nseven (mine)\neight\n" {
		t.Errorf("code.txt holds %q: want the agent's line 2 and the user's line 7", got)
	}
	if got, _ := c.Buffer(filepath.Join(root, "new.txt")); got != "new\n" {
		t.Errorf("new.txt is %q, want the agent's", got)
	}

	var discarded struct {
		Discarded bool `json:"discarded"`
	}
	if err := c.Call(ctx, "gemini/discardAgent", map[string]any{"worktree": "shout"}, &discarded); err != nil || !discarded.Discarded {
		t.Fatalf("discard: %+v, %v", discarded, err)
	}
	if len(questions) == 0 || !strings.Contains(questions[len(questions)-1], "Discard the agent \"shout\"") {
		t.Errorf("the user was not asked before the discard: %q", questions)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there (%v)", err)
	}
	if branches := runGit(t, root, "branch", "--list", "worktree-shout"); branches != "" {
		t.Errorf("the branch is still there: %q", branches)
	}
	var list struct {
		Agents []agentWire `json:"agents"`
	}
	if err := c.Call(ctx, "gemini/agents", nil, &list); err != nil || len(list.Agents) != 0 {
		t.Errorf("gemini/agents after the discard: %+v, %v", list.Agents, err)
	}
}

// A declined landing changes nothing; a name that would escape is
// refused before git runs.
func TestAgentRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t)
	root := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, model)
	c := agentClient(t, env, lsptest.NeovimPlugin())
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []any{"../x", "-rf", "a/b", false, ""} {
		err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "hi", "worktree": name}, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid params") {
			t.Errorf("worktree %q: %v, want InvalidParams", name, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".gemini")); len(entries) != 0 {
		t.Errorf("a refused name made %v", entries)
	}
}

// An agent's edit that a rule says to ask about is asked of the user,
// naming the agent, and lands in its worktree only on the yes.
func TestAnAgentsAskedEditNamesTheAgent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "asked.txt", "content": "yes\n"})),
		geminitest.TextTurn("Done."))
	root := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, model)
	writeHomeFile(t, env, ".gemini/policies/ask.toml", "[[rule]]\ntoolName = \"write_file\"\ndecision = \"ask_user\"\npriority = 500\n")
	c := agentClient(t, env, lsptest.NeovimPlugin())
	var asked []string
	c.OnShowMessageRequest = func(message string, actions []string) string {
		asked = append(asked, message)
		return "Apply"
	}
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	var res promptEnd
	if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "write", "worktree": "asker"}, &res); err != nil || res.StopReason != "end_turn" {
		t.Fatalf("%+v, %v", res, err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], `in the agent "asker"'s worktree`) {
		t.Errorf("asked %q, want one question naming the agent", asked)
	}
	if got, err := os.ReadFile(filepath.Join(root, ".gemini", "worktrees", "asker", "asked.txt")); err != nil || string(got) != "yes\n" {
		t.Errorf("the allowed edit is %q (%v) in the worktree", got, err)
	}
	if len(c.Messages("workspace/applyEdit")) != 0 {
		t.Errorf("an agent's edit went to the editor as an applyEdit")
	}
}

// The worktree setup command the settings name runs first in a new
// agent's worktree, as the agent's own shell call: asked of the user
// under the agent's session, run in the worktree, and told to the model
// before the prompt.
func TestAgentRunsTheWorktreeSetupCommandFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t, geminitest.TextTurn("Done."))
	root := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, model)
	writeHomeFile(t, env, ".gemini/settings.json", `{"experimental": {"worktreeSetupCommand": "echo installed > deps.txt"}}`)
	c := agentClient(t, env, lsptest.NeovimPlugin())
	var asked []string
	c.OnConfirm = func(_ context.Context, raw json.RawMessage) string {
		var p struct {
			SessionID string `json:"sessionId"`
			Details   string `json:"details"`
		}
		_ = json.Unmarshal(raw, &p)
		asked = append(asked, p.SessionID+": "+p.Details)
		return "proceed_once"
	}
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	var res promptEnd
	if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "go", "worktree": "setup"}, &res); err != nil || res.StopReason != "end_turn" {
		t.Fatalf("%+v, %v", res, err)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], res.SessionID+": ") || !strings.Contains(asked[0], "echo installed > deps.txt") {
		t.Errorf("asked %q, want the setup command under the agent's session", asked)
	}
	wt := filepath.Join(root, ".gemini", "worktrees", "setup")
	if got, err := os.ReadFile(filepath.Join(wt, "deps.txt")); err != nil || string(got) != "installed\n" {
		t.Errorf("deps.txt in the worktree is %q (%v)", got, err)
	}
	if _, err := os.Stat(filepath.Join(root, "deps.txt")); !os.IsNotExist(err) {
		t.Errorf("the setup ran in the main tree (%v)", err)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "installed") || !strings.Contains(string(reqs[0].Body), "deps.txt") {
		t.Errorf("the model was not told the setup ran: %d requests", len(reqs))
	}
	// A later prompt to the agent does not run it again.
	model.Push(geminitest.TextTurn("Again."))
	if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "more", "sessionId": res.SessionID}, &res); err != nil || res.Text != "Again." {
		t.Fatalf("%+v, %v", res, err)
	}
	if len(asked) != 1 {
		t.Errorf("the setup ran again: %q", asked)
	}
}

// A stock client (Helix) has the agents through workspace commands: it
// starts one, sees the list as a document it opens, lands the agent's
// work after a question and discards it after another.
func TestAgentsThroughWorkspaceCommands(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "a.txt", "content": "A\n"})),
		geminitest.TextTurn("Done."))
	root := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, model)
	c := agentClient(t, env, lsptest.Helix())
	var questions []string
	c.OnShowMessageRequest = func(message string, actions []string) string {
		questions = append(questions, message)
		return actions[0]
	}
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	command := func(name string, arg any, result any) {
		t.Helper()
		if err := c.Call(ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, result); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var started struct {
		SessionID string `json:"sessionId"`
		Status    string `json:"status"`
	}
	command("gemini.startAgent", map[string]any{"prompt": "Capitalise a.txt", "worktree": "caps"}, &started)
	if started.Status != "started" || started.SessionID == "" {
		t.Fatalf("gemini.startAgent answered %+v", started)
	}
	if _, err := c.WaitMessage(ctx, "gemini/agent", func(raw json.RawMessage) bool {
		var a agentWire
		return json.Unmarshal(raw, &a) == nil && a.State == "done"
	}); err != nil {
		t.Fatal(err)
	}

	var doc struct {
		URI string `json:"uri"`
	}
	command("gemini.agents", nil, &doc)
	shown := c.Messages("window/showDocument")
	if len(shown) == 0 || !strings.Contains(string(shown[len(shown)-1].Params), doc.URI) || !strings.HasSuffix(doc.URI, "agents.md") {
		t.Fatalf("the list %q was not shown: %v", doc.URI, shown)
	}
	list, err := os.ReadFile(strings.TrimPrefix(doc.URI, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## caps — done", "Capitalise a.txt", "a.txt (modified, +1 −1)", "`gemini.landAgent caps`", "`gemini.discardAgent caps`"} {
		if !strings.Contains(string(list), want) {
			t.Errorf("the list lacks %q:\n%s", want, list)
		}
	}

	var landed struct {
		Applied bool   `json:"applied"`
		Message string `json:"message"`
	}
	command("gemini.landAgent", "caps", &landed)
	if !landed.Applied || len(questions) != 1 || !strings.Contains(questions[0], `land the agent "caps"`) {
		t.Errorf("landed %+v after the questions %q", landed, questions)
	}
	if got, _ := c.Buffer(filepath.Join(root, "a.txt")); got != "A\n" {
		t.Errorf("a.txt holds %q after landing", got)
	}
	var discarded struct {
		Discarded bool `json:"discarded"`
	}
	command("gemini.discardAgent", "caps", &discarded)
	if !discarded.Discarded || len(questions) != 2 {
		t.Errorf("discarded %+v after the questions %q", discarded, questions)
	}
}

// Merge lands an agent's work by git, at the user's request: its
// worktree's changes committed on its branch, the branch merged into
// the user's; a merge git would stop (the user's own uncommitted change
// of the same file) is refused and leaves the user's tree as it was.
func TestMergeAnAgentsBranch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "a.txt", "content": "A\n"})),
		geminitest.TextTurn("Done."),
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "b.txt", "content": "B\n"})),
		geminitest.TextTurn("Done."))
	root := gitRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	env := agentEnv(t, model)
	c := agentClient(t, env, lsptest.NeovimPlugin())
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"first", "second"} {
		var res promptEnd
		if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "change " + name, "worktree": name}, &res); err != nil || res.StopReason != "end_turn" {
			t.Fatalf("%s: %+v, %v", name, res, err)
		}
	}
	var merged struct {
		Applied bool   `json:"applied"`
		Message string `json:"message"`
	}
	if err := c.Call(ctx, "gemini/landAgent", map[string]any{"worktree": "first", "how": "merge"}, &merged); err != nil || !merged.Applied {
		t.Fatalf("merge: %+v, %v", merged, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "A\n" {
		t.Errorf("a.txt after the merge: %q", got)
	}
	if log := runGit(t, root, "log", "--format=%s", "-3"); !strings.Contains(log, "Merge the gemini-ls agent first") || !strings.Contains(log, "gemini-ls agent first: change first") {
		t.Errorf("the history after the merge:\n%s", log)
	}
	if len(c.Messages("workspace/applyEdit")) != 0 {
		t.Errorf("a merge sent an applyEdit")
	}

	// The user's own uncommitted change to b.txt: git would overwrite it.
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := runGit(t, root, "rev-parse", "HEAD")
	err := c.Call(ctx, "gemini/landAgent", map[string]any{"worktree": "second", "how": "merge"}, &merged)
	if err == nil || !strings.Contains(err.Error(), "your tree is as it was") {
		t.Errorf("merge over the user's change: %v, want a refusal saying the tree is as it was", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(got) != "mine\n" {
		t.Errorf("b.txt after the refused merge: %q", got)
	}
	if now := runGit(t, root, "rev-parse", "HEAD"); now != head {
		t.Errorf("HEAD moved from %s to %s", head, now)
	}
}

// A worktree deleted by hand is pruned: the agent leaves the list, and
// the client is told it is gone.
func TestADeletedWorktreeIsPruned(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t, geminitest.TextTurn("Done."))
	root := gitRepo(t, map[string]string{"a.txt": "a\n"})
	env := agentEnv(t, model)
	c := agentClient(t, env, lsptest.NeovimPlugin())
	if _, err := c.Initialize(ctx, []string{root}, nil); err != nil {
		t.Fatal(err)
	}
	var res promptEnd
	if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "hi", "worktree": "gone"}, &res); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, ".gemini", "worktrees", "gone")); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Agents []agentWire `json:"agents"`
	}
	if err := c.Call(ctx, "gemini/agents", nil, &list); err != nil || len(list.Agents) != 0 {
		t.Errorf("gemini/agents after the worktree was deleted: %+v, %v", list.Agents, err)
	}
	if out := runGit(t, root, "worktree", "list"); strings.Contains(out, "gone") {
		t.Errorf("git still knows the worktree:\n%s", out)
	}
	told := c.Messages("gemini/agent")
	var last agentWire
	_ = json.Unmarshal(told[len(told)-1].Params, &last)
	if last.State != "discarded" || last.Worktree.Name != "gone" {
		t.Errorf("the client was last told %+v, want the agent gone", last)
	}
}
