package builtin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// Every built-in is declared once, by name, with a description; only
// /init and /plan are prompts; a command of subcommands lists them in its
// hint, the hidden ones aside; Find finds each by its name and its other
// names, and no name is two commands'.
func TestTable(t *testing.T) {
	var names []string
	for _, b := range builtin.Table() {
		names = append(names, b.Name)
		if b.Description == "" || b.Run == nil || b.Source != commands.BuiltIn || b.Prompt != (b.Name == "init" || b.Name == "plan") {
			t.Errorf("built-in %+v", b.Command)
		}
		for _, s := range b.Subcommands {
			if s.Run == nil || s.Description == "" || s.Hidden == strings.Contains(b.Hint, s.Name) {
				t.Errorf("/%s %s: %+v", b.Name, s.Name, s.Command)
			}
		}
		for _, name := range append([]string{b.Name}, b.AltNames...) {
			if found, ok := builtin.Find(name); !ok || found.Name != b.Name {
				t.Errorf("Find(%q) = %q, %v; want /%s", name, found.Name, ok, b.Name)
			}
		}
	}
	// The table is the one list of built-ins (every other, the editors'
	// included, derives from it): in name order, as /help and the
	// completions show it, each name once.
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("built-ins %v are not each once, in name order", names)
	}
	if _, ok := builtin.Find("xyz"); ok {
		t.Error("Find found /xyz")
	}
}

// /help lists every command available, the user's too, and the
// subcommands of the built-ins.
func TestHelp(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/commands/deploy.toml", "description = \"Ship it\"\nprompt = \"Deploy the app.\"\n")
	env := h.conversation()
	got := h.answer(env, "/help")
	for _, want := range []string{
		"- `/about` — Show the version",
		"- `/chat` (or `/resume`) — ",
		"- `/quit` (or `/exit`) — ",
		"- `/tasks` (or `/bg`, `/background`) — ",
		"  - `reload` (or `refresh`) — Read the GEMINI.md and AGENTS.md files and MEMORY.md again",
		"  - `save <tag>` — Save the conversation as a checkpoint",
		"  - `inbox [apply|dismiss <private|global> [patch] | dismiss skill <name> | move <skill> <global|project>]` — Review what auto memory",
		"- `/deploy` — Ship it (user)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/help lacks %q:\n%s", want, got)
		}
	}
}

// /about says what runs, and no secret.
func TestAbout(t *testing.T) {
	h := newHarness(t)
	got := h.answer(h.conversation(), "/about")
	for _, want := range []string{"Version: 1.2.3-test", "Model: gemini-2.5-pro", "Auth: gemini-api-key", "Sandbox: no sandbox", runtime.GOOS + "/" + runtime.GOARCH, runtime.Version()} {
		if !strings.Contains(got, want) {
			t.Errorf("/about lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "test-key") {
		t.Errorf("/about shows the API key:\n%s", got)
	}
}

// /about shows the model as configured, an alias by Gemini CLI 0.61's
// display name, and the concrete model the last prompt was routed to;
// /stats says the same model, and /stats model has a column for each
// concrete model asked, the classifier's too.
func TestAboutAndStatsShowTheRoutedModel(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`), geminitest.TextTurn("Hi."))
	h.env["GEMINI_MODEL"] = "auto-gemini-3"
	env := h.conversation()
	if got := h.answer(env, "/about"); !strings.Contains(got, "- Model: Auto (Gemini 3)\n") || strings.Contains(got, "Last prompt") {
		t.Errorf("/about before a prompt:\n%s", got)
	}
	if res := h.prompt(env, "hi"); res.Model != "gemini-3.8-flash" {
		t.Errorf("the prompt's model = %q, want gemini-3.8-flash", res.Model)
	}
	if got := h.answer(env, "/about"); !strings.Contains(got, "- Model: Auto (Gemini 3)\n- Last prompt's model: gemini-3.8-flash\n") {
		t.Errorf("/about after a routed prompt:\n%s", got)
	}
	if got := h.answer(env, "/stats"); !strings.Contains(got, "- Model: Auto (Gemini 3)\n") {
		t.Errorf("/stats:\n%s", got)
	}
	got := h.answer(env, "/stats model")
	for _, want := range []string{"gemini-3.5-flash-lite", "gemini-3.8-flash", "| Requests | 1 | 1 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("/stats model lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "auto") {
		t.Errorf("/stats model has a column for the alias:\n%s", got)
	}
}

// /memory shows, lists and reloads the GEMINI.md files; it has no add,
// as 0.61 has none.
func TestMemory(t *testing.T) {
	h := newHarness(t)
	global := h.write("~/.gemini/GEMINI.md", "Use tabs.\n")
	env := h.conversation()
	for _, line := range []string{"/memory", "/memory show"} {
		if got := h.answer(env, line); !strings.HasPrefix(got, "Current memory content from 1 file(s):") || !strings.Contains(got, "Use tabs.") {
			t.Errorf("%s said %q", line, got)
		}
	}
	if got := h.answer(env, "/memory list"); !strings.Contains(got, "1 context file(s) (GEMINI.md) in use") || !strings.Contains(got, "- "+global+" (9 bytes)") {
		t.Errorf("/memory list said %q", got)
	}
	if got := h.answer(env, "/memory add Prefers  Go over Rust"); got != `Okay, I've remembered that: "Prefers Go over Rust"` {
		t.Errorf("/memory add said %q", got)
	}
	data, err := os.ReadFile(global)
	if err != nil || string(data) != "Use tabs.\n\n## Gemini Added Memories\n- Prefers Go over Rust\n" {
		t.Errorf("GEMINI.md after /memory add = %q, %v", data, err)
	}
	if got := h.answer(env, "/memory refresh"); !strings.HasPrefix(got, "Memory reloaded: ") || !strings.Contains(got, "from 1 file(s)") {
		t.Errorf("/memory refresh said %q", got)
	}
	if got := h.answer(env, "/memory show"); !strings.Contains(got, "- Prefers Go over Rust") {
		t.Errorf("/memory show after add said %q", got)
	}
	if err := h.fails(env, "/memory forget it"); err.Error() != `unknown /memory subcommand "forget"; usage: /memory show | add <text> | reload | list | inbox [apply|dismiss <private|global> [patch] | dismiss skill <name> | move <skill> <global|project>]` {
		t.Errorf("/memory forget: %v", err)
	}
	if err := h.fails(env, "/memory add"); !strings.Contains(err.Error(), "usage: /memory add <text>") {
		t.Errorf("/memory add without text: %v", err)
	}
}

// /memory show and list name AGENTS.md, read by default, and say that
// Gemini CLI 0.61 would not have read it; with context.fileName set they
// do not.
func TestMemoryAgentsFileDivergesFromGeminiCLI(t *testing.T) {
	h := newHarness(t)
	agents := h.write("AGENTS.md", "Run make check.\n")
	h.write("GEMINI.md", "Use tabs.\n")
	env := h.conversation()
	const note = "AGENTS.md is read by default beside GEMINI.md, as other agents read it; Gemini CLI 0.61 reads it only when context.fileName names it."
	show := h.answer(env, "/memory show")
	if !strings.HasPrefix(show, "Current memory content from 2 file(s):") || !strings.Contains(show, "Run make check.") || !strings.Contains(show, note) {
		t.Errorf("/memory show said %q", show)
	}
	if strings.Index(show, "Use tabs.") > strings.Index(show, "Run make check.") {
		t.Errorf("AGENTS.md came before GEMINI.md:\n%s", show)
	}
	list := h.answer(env, "/memory list")
	if !strings.Contains(list, "2 context file(s) (GEMINI.md, AGENTS.md) in use") || !strings.Contains(list, "- "+agents+" (15 bytes)") || !strings.Contains(list, note) {
		t.Errorf("/memory list said %q", list)
	}

	h.write(".gemini/settings.json", `{"context": {"fileName": ["GEMINI.md", "AGENTS.md"]}}`)
	env = h.conversation()
	if show := h.answer(env, "/memory show"); !strings.Contains(show, "Run make check.") || strings.Contains(show, note) {
		t.Errorf("/memory show with context.fileName naming AGENTS.md said %q", show)
	}
}

// /memory on an empty memory says so.
func TestMemoryEmpty(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	if got := h.answer(env, "/memory show"); got != "Memory is currently empty." {
		t.Errorf("/memory show said %q", got)
	}
	if got := h.answer(env, "/memory list"); got != "No context files (GEMINI.md) are in use." {
		t.Errorf("/memory list said %q", got)
	}
}

// /tools lists exactly the tools the model is offered, in their order:
// invoke_agent while agents are enabled, and in plan mode its planning
// tool, not the other; "desc" adds what the model is told.
func TestTools(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("Hi."), geminitest.TextTurn("Planned."))
	env := h.conversation()
	got := h.answer(env, "/tools")
	h.prompt(env, "hi")
	offered := declaredNames(h.model.Requests()[0])
	if !slices.Contains(offered, "invoke_agent") {
		t.Fatalf("the model was not offered invoke_agent (%q): the test needs an agent enabled", offered)
	}
	if want := toolList(offered); got != want {
		t.Errorf("/tools said\n%s\nwant what the model was offered:\n%s", got, want)
	}
	desc := h.answer(env, "/tools desc")
	decl := toolDescription(t, env, "read_file")
	if !strings.Contains(desc, "- `read_file`: "+strings.SplitN(decl, "\n", 2)[0]) {
		t.Errorf("/tools desc lacks read_file's description %q:\n%s", decl, desc)
	}
	if err := h.fails(env, "/tools all"); !strings.Contains(err.Error(), "usage: /tools list | desc") {
		t.Errorf("/tools all: %v", err)
	}

	env.Session.SetApprovalMode("plan")
	got = h.answer(env, "/tools")
	h.prompt(env, "plan")
	planning := declaredNames(h.model.Requests()[1])
	if want := toolList(planning); got != want || !slices.Contains(planning, "exit_plan_mode") || slices.Contains(planning, "enter_plan_mode") {
		t.Errorf("/tools in plan mode said\n%s\nthe model was offered %q", got, planning)
	}
}

// declaredNames are the functions req declared, in order.
func declaredNames(req geminitest.Request) []string {
	var names []string
	for _, tool := range req.Tools {
		for _, d := range tool.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

// toolList is /tools' answer listing names, none of them MCP tools.
func toolList(names []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The model can call %d tools:", len(names))
	for _, n := range names {
		b.WriteString("\n- `" + n + "`")
	}
	return b.String()
}

func toolDescription(t *testing.T, env builtin.Env, name string) string {
	tool, ok := env.Built.Tools.Registry.Get(name)
	if !ok {
		t.Fatalf("no %s tool", name)
	}
	return tool.Declaration().Description
}

// /mcp says how each server stands, with its tools; "desc" adds their
// descriptions and "schema" their parameters.
func TestMCP(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/mcp"); !strings.HasPrefix(got, "No MCP servers are configured") {
		t.Errorf("/mcp without servers said %q", got)
	}
	server := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command(platformtest.Tool(t, "go"), "build", "-o", server, "../../tools/mcp/testdata/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test MCP server: %v\n%s", err, out)
	}
	h.write("~/.gemini/settings.json", `{"mcpServers": {
		"alpha": {"command": `+strconv.Quote(server)+`},
		"broken": {"command": `+strconv.Quote(server)+`, "args": ["-fail-at-start"]}
	}}`)
	env := h.conversation()
	h.answer(env, "/tools") // waits for the servers
	got := h.answer(env, "/mcp")
	if !strings.Contains(got, "- `alpha`: ready, ") || !strings.Contains(got, "`mcp_alpha_echo`, ") ||
		!strings.Contains(got, "- `broken`: failed: ") {
		t.Errorf("/mcp said %q", got)
	}
	if strings.Contains(got, "Echoes the message.") {
		t.Errorf("/mcp shows descriptions without desc: %q", got)
	}
	if got := h.answer(env, "/mcp desc"); !strings.Contains(got, "echo`: Echoes the message.") || strings.Contains(got, "```json") {
		t.Errorf("/mcp desc said %q", got)
	}
	if got := h.answer(env, "/mcp schema"); !strings.Contains(got, "echo`: Echoes the message.\n    ```json\n    {") || !strings.Contains(got, `"message"`) {
		t.Errorf("/mcp schema said %q", got)
	}
	// A word that names no subcommand narrows the list, as in 0.61.
	if got := h.answer(env, "/mcp ALP"); !strings.Contains(got, "- `alpha`: ready, ") || strings.Contains(got, "broken") {
		t.Errorf("/mcp ALP said %q", got)
	}
	if got := h.answer(env, "/mcp desc bro"); !strings.Contains(got, "- `broken`: failed: ") || strings.Contains(got, "alpha") {
		t.Errorf("/mcp desc bro said %q", got)
	}
	if got := h.answer(env, "/mcp everything"); got != `No MCP server's name contains "everything".` {
		t.Errorf("/mcp everything said %q", got)
	}
}

// /stats (and /stats session) shows the session's prompts and tokens.
func TestStats(t *testing.T) {
	turn := geminitest.TextTurn("Hello.")
	turn.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 3000, CandidatesTokenCount: 7, TotalTokenCount: 3007}
	h := newHarness(t, turn)
	env := h.conversation()
	h.prompt(env, "hi")
	for _, line := range []string{"/stats", "/stats session"} {
		got := h.answer(env, line)
		for _, want := range []string{"Session " + env.Session.ID(), "- Prompts: 1", "- Tokens: 3000 input, 7 output, 0 thinking, 3007 in all", "- Approval mode: default"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", line, want, got)
			}
		}
	}
}

// /stats model and /stats tools answer apart from /stats, as Gemini
// CLI's do: each model's requests and tokens, each tool's calls and the
// user's decisions (here two reads nobody was asked about, accepted as
// Gemini CLI 0.61 counts them, and a shell command refused with nobody to
// ask).
func TestStatsModelAndTools(t *testing.T) {
	calls := geminitest.CallTurn(
		geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
		geminitest.Call("read_file", map[string]any{"path": "missing.txt"}),
		geminitest.Call("run_shell_command", map[string]any{"command": "echo hi"}),
	)
	calls.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 5, ThoughtsTokenCount: 2, TotalTokenCount: 107}
	done := geminitest.TextTurn("Read.")
	done.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 200, CandidatesTokenCount: 3, TotalTokenCount: 203}
	h := newHarness(t, calls, done)
	h.write("a.txt", "text\n")
	env := h.conversation()

	if got := h.answer(env, "/stats model"); got != "No model requests have been made since gemini-ls started or resumed this session." {
		t.Errorf("/stats model before any request said %q", got)
	}
	if got := h.answer(env, "/stats tools"); got != "No tool calls have been made since gemini-ls started or resumed this session." {
		t.Errorf("/stats tools before any call said %q", got)
	}
	h.prompt(env, "read")

	model := env.Built.Agent.Model()
	got := h.answer(env, "/stats model")
	for _, want := range []string{"|  | " + model + " |", "| Requests | 2 |", "| Errors | 0 (0.0%) |", "| Tokens | 310 |", "| ↳ Input | 300 |", "| ↳ Thoughts | 2 |", "| ↳ Output | 8 |", "Avg latency"} {
		if !strings.Contains(got, want) {
			t.Errorf("/stats model lacks %q:\n%s", want, got)
		}
	}
	got = h.answer(env, "/stats tools")
	for _, want := range []string{"| read_file | 2 | 50.0% |", "| run_shell_command | 1 | 0.0% |", "3 calls reviewed", "- Accepted: 2", "- Rejected: 1", "- Agreement rate: 66.7%"} {
		if !strings.Contains(got, want) {
			t.Errorf("/stats tools lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Prompts") || strings.Contains(h.answer(env, "/stats model"), "Prompts") {
		t.Error("/stats model or /stats tools printed /stats's summary")
	}
	if err := h.fails(env, "/stats everything"); err.Error() != `unknown /stats subcommand "everything"; usage: /stats session | model | tools` {
		t.Errorf("/stats everything: %v", err)
	}
}

// /compress of a history with nothing old enough says so, asking the
// model nothing.
func TestCompressNothing(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/compress"); !strings.HasPrefix(got, "Nothing to compress yet: ") {
		t.Errorf("/compress said %q", got)
	}
}

// /clear empties the conversation in place: the next prompt's request
// carries nothing of what came before, in the same session.
func TestClear(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("Noted."), geminitest.TextTurn("I do not know."))
	env := h.conversation()
	h.prompt(env, "my number is 7")
	id := env.Session.ID()
	if got := h.answer(env, "/clear"); got != "The conversation was cleared: the next prompt starts afresh." {
		t.Errorf("/clear said %q", got)
	}
	h.prompt(env, "what is my number?")
	if got := h.lastRequest(); !slices.Equal(got, []string{"user:what is my number?"}) || env.Session.ID() != id {
		t.Errorf("the request after /clear: %q", got)
	}
}

// /init asks for Gemini CLI's prompt, which the front end sends; with a
// GEMINI.md in the root it changes nothing.
func TestInit(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	reply, err := h.run(env, "/init")
	if err != nil || reply.Input == nil || !strings.Contains(reply.Input.Text, "generate a comprehensive GEMINI.md file") {
		t.Fatalf("/init = %+v, %v", reply, err)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("/init made %d model requests itself", n)
	}
	h.write("GEMINI.md", "# Project\n")
	if got := h.answer(env, "/init"); got != "A GEMINI.md file already exists in this directory. No changes were made." {
		t.Errorf("/init with a GEMINI.md said %q", got)
	}
}

// docs/configuration.md's table of the slash commands has a row for every
// built-in, and names no command the table lacks: a command added or
// removed fails here until the documentation follows.
func TestEveryBuiltinHasItsRowInTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "| 0.61 command | In gemini-ls | Test |\n| --- | --- | --- |\n")
	if !ok {
		t.Fatal("configuration.md has no table of the slash commands")
	}
	rows := map[string]bool{}
	for line := range strings.Lines(table) {
		if !strings.HasPrefix(line, "| `/") {
			break
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for _, m := range docCommand.FindAllStringSubmatch(first, -1) {
			b, ok := builtin.Find(m[1])
			if !ok {
				t.Errorf("the docs' row %q names /%s, which is no built-in", first, m[1])
				continue
			}
			rows[b.Name] = true
		}
	}
	for _, b := range builtin.Table() {
		if !rows[b.Name] {
			t.Errorf("/%s has no row in configuration.md's table of the slash commands", b.Name)
		}
	}
}

// docCommand is a command's name where a docs row starts one: "`/name".
var docCommand = regexp.MustCompile("`/([a-z][a-z-]*)")
