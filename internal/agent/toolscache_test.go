package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

var updateRequests = flag.Bool("update-requests", false, "rewrite testdata/requests.golden from this build's requests")

// toolsAgent is an agent over the built-in tools as setup offers them by
// default (plan mode's, activate_skill over catalog), in a workspace and
// with a plans directory of their own, talking to srv.
func toolsAgent(t *testing.T, srv *geminitest.Server, catalog *skills.Catalog, cfg agent.Config) (*agent.Agent, *tools.Registry, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The shell the agent is told of (cfg.Shell, bash when zero), on every
	// system: the tools' declarations are the same everywhere.
	bash := osshell.Detect("linux", os.Getenv, exec.LookPath)
	reg := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Skills: catalog, Plan: tools.PlanOptions{Enabled: true}, Shell: tools.ShellOptions{Shell: bash}})...)
	cfg.Tools = reg
	cfg.PlansDir = func(id string) (string, error) { return filepath.Join(root, "plans", id), nil }
	a, _ := newAgent(t, srv, cfg)
	return a, reg, root
}

// userSkills is a catalog of the skills named in a user directory.
func userSkills(t *testing.T, names ...string) (*skills.Catalog, string) {
	t.Helper()
	user := filepath.Join(t.TempDir(), ".gemini")
	for _, name := range names {
		writeSkill(t, user, name)
	}
	catalog, problems := skills.Discover(skills.Config{UserDir: user})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return catalog, user
}

func writeSkill(t *testing.T, user, name string) {
	t.Helper()
	path := filepath.Join(user, "skills", name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\nname: "+name+"\ndescription: The "+name+" skill.\n---\nDo it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The model is told of the tools exactly as before their declarations
// were kept between requests: every request body of a turn in the
// default mode, one in plan mode and one in the default mode again is
// byte for byte the one recorded in testdata/requests.golden (made by
// the build before, with -update-requests), the workspace and plans
// directory aside.
func TestRequestBodiesAsBefore(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call(tools.WriteTodosName, map[string]any{"todos": []any{
			map[string]any{"description": "Look", "status": "in_progress"},
		}})),
		geminitest.TextTurn("Looked."),
		geminitest.TextTurn("Planned."),
		geminitest.TextTurn("Done."),
	)
	catalog, _ := userSkills(t, "review", "deploy")
	// A Gemini 2 model, which is offered write_todos (the golden's).
	a, _, root := toolsAgent(t, srv, catalog, agent.Config{Model: models.Gemini25Flash})
	s := a.NewSession()
	for _, step := range []struct {
		mode dialog.ApprovalMode
		text string
	}{{dialog.ApprovalDefault, "Look around."}, {dialog.ApprovalPlan, "Plan it."}, {dialog.ApprovalDefault, "Do it."}} {
		s.SetApprovalMode(step.mode)
		if res, _ := prompt(t, s, step.text); res.Err != nil {
			t.Fatalf("%s: %v", step.text, res.Err)
		}
	}
	var got bytes.Buffer
	for _, r := range srv.Requests() {
		got.Write(bytes.ReplaceAll(bytes.ReplaceAll(r.Body, jsonText(t, filepath.Join(root, "plans", s.ID())), []byte("PLANS")), jsonText(t, root), []byte("ROOT")))
		got.WriteByte('\n')
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
	golden := filepath.Join("testdata", "requests.golden")
	if *updateRequests {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if !slices.Equal(gotLines, wantLines) {
		for i := range min(len(gotLines), len(wantLines)) {
			if gotLines[i] != wantLines[i] {
				t.Errorf("request %d differs:\n got %s\nwant %s", i+1, gotLines[i], wantLines[i])
			}
		}
		if len(gotLines) != len(wantLines) {
			t.Errorf("%d lines, want %d", len(gotLines), len(wantLines))
		}
	}
}

// declared is the names of the functions a request declares, in order.
func declared(r geminitest.Request) []string {
	var names []string
	for _, tool := range r.Tools {
		for _, d := range tool.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

// declaration is the function called name that r declares, nil when none.
func declaration(r geminitest.Request, name string) *genai.FunctionDeclaration {
	for _, tool := range r.Tools {
		for _, d := range tool.FunctionDeclarations {
			if d.Name == name {
				return d
			}
		}
	}
	return nil
}

// skillEnum is the skill names activate_skill offers in r.
func skillEnum(t *testing.T, r geminitest.Request) []any {
	t.Helper()
	d := declaration(r, tools.ActivateSkillName)
	if d == nil {
		t.Fatalf("activate_skill not declared: %v", declared(r))
	}
	schema, _ := d.ParametersJsonSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	name, _ := props["name"].(map[string]any)
	enum, _ := name["enum"].([]any)
	return enum
}

// Each request offers the skills enabled when it is made: /skills
// disable, enable and reload change the next request's activate_skill.
func TestOfferedToolsFollowTheSkills(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	catalog, user := userSkills(t, "review", "deploy")
	a, _, _ := toolsAgent(t, srv, catalog, agent.Config{})
	s := a.NewSession()
	ask := func(change func()) []any {
		t.Helper()
		change()
		return skillEnum(t, promptOnce(t, srv, s))
	}
	if got, want := ask(func() {}), []any{"deploy", "review"}; !slices.Equal(got, want) {
		t.Errorf("at first: %v, want %v", got, want)
	}
	if got, want := ask(func() { catalog.SetDisabled([]string{"deploy"}) }), []any{"review"}; !slices.Equal(got, want) {
		t.Errorf("deploy disabled: %v, want %v", got, want)
	}
	if got, want := ask(func() { catalog.SetDisabled(nil) }), []any{"deploy", "review"}; !slices.Equal(got, want) {
		t.Errorf("deploy enabled again: %v, want %v", got, want)
	}
	reload := func() {
		writeSkill(t, user, "lint")
		if problems := catalog.Reload(); len(problems) > 0 {
			t.Fatal(problems)
		}
	}
	if got, want := ask(reload), []any{"deploy", "lint", "review"}; !slices.Equal(got, want) {
		t.Errorf("lint found by a reload: %v, want %v", got, want)
	}
}

// toolSource is a tools.Source whose tools the test sets, as an MCP
// server's come and go.
type toolSource struct {
	mu    sync.Mutex
	tools []tools.Tool
}

func (s *toolSource) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *toolSource) set(ts ...tools.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = ts
}

// sourceTool is a source's tool, whose declaration is made with it.
type sourceTool struct {
	fakeTool
	decl *genai.FunctionDeclaration
}

func newSourceTool(name string) *sourceTool {
	f := fakeTool{name: name}
	return &sourceTool{fakeTool: f, decl: f.Declaration()}
}

func (s *sourceTool) Declaration() *genai.FunctionDeclaration { return s.decl }

// Each request declares the tools there are when it is made: an MCP
// server's tools join the next request once listed, and leave it once the
// server is gone.
func TestOfferedToolsFollowToolsComingAndGoing(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	src := &toolSource{}
	reg := tools.NewRegistry(readTool())
	reg.AddSource(src)
	a, _ := newAgent(t, srv, agent.Config{Tools: reg})
	s := a.NewSession()
	ask := func(change func()) []string {
		t.Helper()
		change()
		return declared(promptOnce(t, srv, s))
	}
	if got, want := ask(func() {}), []string{"read_file"}; !slices.Equal(got, want) {
		t.Errorf("no server yet: %v, want %v", got, want)
	}
	if got, want := ask(func() { src.set(newSourceTool("mcp_search"), newSourceTool("mcp_fetch")) }), []string{"read_file", "mcp_search", "mcp_fetch"}; !slices.Equal(got, want) {
		t.Errorf("server listed its tools: %v, want %v", got, want)
	}
	if got, want := ask(func() { src.set(newSourceTool("mcp_search")) }), []string{"read_file", "mcp_search"}; !slices.Equal(got, want) {
		t.Errorf("server relisted one tool: %v, want %v", got, want)
	}
	if got, want := ask(func() { src.set() }), []string{"read_file"}; !slices.Equal(got, want) {
		t.Errorf("server gone: %v, want %v", got, want)
	}
}

// In plan mode write_file and replace name the session's own plans
// directory, each session its own, and the declarations every session
// shares stay as they were: outside plan mode they do not.
func TestPlanModeDeclarationsNameEachSessionsPlans(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a, _, root := toolsAgent(t, srv, nil, agent.Config{})
	ask := func(s *agent.Session, mode dialog.ApprovalMode) geminitest.Request {
		t.Helper()
		s.SetApprovalMode(mode)
		return promptOnce(t, srv, s)
	}
	first, second := a.NewSession(), a.NewSession()
	for _, s := range []*agent.Session{first, second, first} {
		req := ask(s, dialog.ApprovalPlan)
		plans := filepath.Join(root, "plans", s.ID())
		for _, name := range []string{tools.WriteFileName, tools.ReplaceName} {
			if d := declaration(req, name); d == nil || !strings.Contains(d.Description, "plans directory: "+plans+"/.") {
				t.Errorf("session %s in plan mode: %s declared as %+v, want its plans directory %s", s.ID(), name, d, plans)
			}
		}
		if d := declaration(req, tools.ExitPlanModeName); d == nil || declaration(req, tools.EnterPlanModeName) != nil {
			t.Errorf("plan mode declares %v", declared(req))
		}
	}
	req := ask(second, dialog.ApprovalDefault)
	for _, name := range []string{tools.WriteFileName, tools.ReplaceName} {
		if d := declaration(req, name); d == nil || strings.Contains(d.Description, "ONLY FOR PLANS") {
			t.Errorf("default mode after plan mode: %s declared as %+v", name, d)
		}
	}
	if d := declaration(req, tools.EnterPlanModeName); d == nil || declaration(req, tools.ExitPlanModeName) != nil {
		t.Errorf("default mode declares %v", declared(req))
	}
}

// selectingHooks answers every BeforeToolSelection with choice, while
// it is set.
type selectingHooks struct {
	mu     sync.Mutex
	choice *agent.HookToolConfig
}

func (h *selectingHooks) choose(c *agent.HookToolConfig) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.choice = c
}

func (h *selectingHooks) Handles(name string) bool { return name == agent.HookBeforeToolSelection }
func (h *selectingHooks) Fire(context.Context, agent.HookEvent) agent.HookOutcome {
	h.mu.Lock()
	defer h.mu.Unlock()
	return agent.HookOutcome{ToolConfig: h.choice}
}

// A BeforeToolSelection hook's choice of tools applies to its request
// only: the tools shared by the requests stay whole, and the next request,
// whose hook chooses nothing, is offered all of them.
func TestToolSelectionLeavesTheSharedToolsWhole(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("all"))
	reg := tools.NewRegistry(readTool(), fakeTool{name: "write_file"}, fakeTool{name: "glob"})
	hooks := &selectingHooks{}
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Hooks: hooks})
	s := a.NewSession()
	hooks.choose(&agent.HookToolConfig{Mode: "AUTO", AllowedFunctionNames: []string{"glob"}})
	if res, _ := prompt(t, s, "hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	hooks.choose(nil)
	if res, _ := prompt(t, s, "hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	reqs := srv.Requests()
	if got, want := declared(reqs[0]), []string{"glob"}; !slices.Equal(got, want) {
		t.Errorf("the hook's request declares %v, want %v", got, want)
	}
	all := []string{"read_file", "write_file", "glob"}
	if got := declared(reqs[1]); !slices.Equal(got, all) {
		t.Errorf("the next request declares %v, want %v", got, all)
	}
	if got := declaredNames(reg.Declarations()); !slices.Equal(got, all) {
		t.Errorf("the registry's declarations are now %v", got)
	}
}

func declaredNames(decls []*genai.FunctionDeclaration) []string {
	var names []string
	for _, d := range decls {
		names = append(names, d.Name)
	}
	return names
}

// Plan mode's instruction lists the read-only tools there are when each
// request is made.
func TestPlanInstructionFollowsTheTools(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	src := &toolSource{}
	reg := tools.NewRegistry(readTool())
	reg.AddSource(src)
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, ApprovalMode: dialog.ApprovalPlan,
		PlansDir: func(string) (string, error) { return t.TempDir(), nil }})
	s := a.NewSession()
	listsGlob := func(change func()) bool {
		t.Helper()
		change()
		system := promptOnce(t, srv, s).SystemInstruction.Parts[0].Text
		if !strings.Contains(system, "<tool>`read_file`</tool>") {
			t.Fatalf("plan mode's instruction lists no read_file:\n%s", system)
		}
		return strings.Contains(system, "<tool>`glob`</tool>")
	}
	if listsGlob(func() {}) {
		t.Error("glob listed before there was one")
	}
	if !listsGlob(func() { src.set(newSourceTool(tools.GlobName)) }) {
		t.Error("glob came, but is not listed")
	}
	if listsGlob(func() { src.set() }) {
		t.Error("glob went, but is still listed")
	}
}

// promptOnce prompts s once, the model answering with text, and returns
// the request the prompt made.
func promptOnce(t *testing.T, srv *geminitest.Server, s *agent.Session) geminitest.Request {
	t.Helper()
	srv.Push(geminitest.TextTurn("ok"))
	if res, _ := prompt(t, s, "hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	reqs := srv.Requests()
	return reqs[len(reqs)-1]
}

// jsonText is s as it is written inside a JSON string: a Windows path's
// backslashes doubled.
func jsonText(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b[1 : len(b)-1]
}
