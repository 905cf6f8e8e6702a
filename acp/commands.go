package acp

// Slash commands. The built-ins are declared once, in the builtins table;
// the user's commands (conversation/commands: custom commands as they are
// on disk, the running MCP servers' prompts) are read when the session
// starts, once its MCP servers have started, and at each prompt starting
// with "/". Both what clients are told (available_commands_update) and
// the dispatch of a "/name" prompt come from that one table. A built-in
// answers in the agent's message and ends the prompt with end_turn, as
// Gemini CLI's ACP commands do; a user's command sends the prompt it
// expands to to the model; a prompt naming no command goes to the model
// as typed, as Gemini CLI sends it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/tools/mcp"
	"github.com/gemini-ls/gemini-ls/tools/toolset"
)

// builtin is one of gemini-ls's own commands.
type builtin struct {
	commands.Command
	// run does the command with what followed the name.
	run func(sess *session, ctx context.Context, args string) (sdk.PromptResponse, error)
}

var builtins = []builtin{
	{commands.Command{Name: "memory", Description: "Show the GEMINI.md files the model is given, or reload them", Hint: "show | refresh"}, (*session).memoryCommand},
	{commands.Command{Name: "tools", Description: "List the tools the model can call"}, (*session).toolsCommand},
	{commands.Command{Name: "mcp", Description: "List the MCP servers and how each stands"}, (*session).mcpCommand},
	{commands.Command{Name: "stats", Description: "Show the session's token usage and prompt count"}, (*session).statsCommand},
	{commands.Command{Name: "compress", Description: "Replace the older part of the history with a summary, now"}, (*session).compressCommand},
	{commands.Command{Name: "init", Description: "Analyze the project and write a GEMINI.md file for it", Prompt: true}, (*session).initCommand},
}

// commandTable is a session's commands as they stand now.
type commandTable struct {
	list    []commands.Command // for the client, in the order shown
	builtin map[string]builtin
	user    commands.UserCommands
}

// commandTable reads the user's commands again (the custom commands on
// disk, the running MCP servers' prompts) and lays them after the
// built-ins; one of the user's replaces a built-in of its name, as a
// later command of a name does in Gemini CLI.
func (sess *session) commandTable(ctx context.Context) commandTable {
	t := commandTable{builtin: map[string]builtin{}, user: sess.built.UserCommands(ctx)}
	for _, b := range builtins {
		if !t.user.Has(b.Name) {
			t.builtin[b.Name] = b
			t.list = append(t.list, b.Command)
		}
	}
	t.list = append(t.list, t.user.List...)
	return t
}

// available is the table as ACP lists it.
func (t commandTable) available() []sdk.AvailableCommand {
	var list []sdk.AvailableCommand
	for _, c := range t.list {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		list = append(list, ac)
	}
	return list
}

// announceDelay is how long announce waits before telling a new session's
// client its commands: the update must follow the session/new answer,
// which is written once the handler returns, as clients drop updates for
// a session whose id they do not know yet (Gemini CLI waits a tick too).
const announceDelay = 50 * time.Millisecond

// announce tells the client the session's commands, right after the
// answer that made the session known (session/new, session/load), and
// which custom command files were skipped, and why; and again once the
// MCP servers have started, if their prompts changed the list.
func (sess *session) announce() {
	s := sess.srv
	go func() {
		select {
		case <-time.After(announceDelay):
		case <-s.life.Done():
			return
		}
		if live, err := s.lookup(sdk.SessionId(sess.id)); err != nil || live != sess {
			return // closed, or loaded again, meanwhile
		}
		t := sess.commandTable(s.life)
		first := t.available()
		sess.update(s.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: first}})
		var skipped strings.Builder
		for _, err := range t.user.Errs {
			sess.log.Warn("custom command skipped", zap.Error(err))
			fmt.Fprintf(&skipped, "- %v\n", err)
		}
		if skipped.Len() > 0 {
			sess.update(s.life, sdk.UpdateAgentMessageText("Some custom commands could not be loaded:\n"+skipped.String()))
		}
		if len(sess.built.Tools.MCPServers()) == 0 || sess.built.Tools.WaitForServers(s.life) != nil {
			return
		}
		if live, err := s.lookup(sdk.SessionId(sess.id)); err != nil || live != sess {
			return
		}
		if now := sess.commandTable(s.life).available(); !reflect.DeepEqual(now, first) {
			sess.update(s.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: now}})
		}
	}()
}

// runCommand runs a slash command; done is false for a prompt that is not
// one (which then goes to the model).
func (sess *session) runCommand(ctx context.Context, in agent.Input) (done bool, res sdk.PromptResponse, err error) {
	inv, ok := commands.Parse(in.Text)
	if !ok || inv.Name == "" {
		return false, sdk.PromptResponse{}, nil
	}
	t := sess.commandTable(ctx)
	user := t.user.Has(inv.Name)
	b, builtin := t.builtin[inv.Name]
	if !user && !builtin {
		return false, sdk.PromptResponse{}, nil
	}
	sess.tail = ""
	sess.log.Info("slash command", zap.String("command", inv.Name))
	if user {
		res, err = sess.userCommand(ctx, t.user, inv, in)
	} else {
		res, err = b.run(sess, ctx, inv.Args)
	}
	if err == nil && ctx.Err() != nil {
		res = sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}
	}
	return true, res, err
}

// userCommand sends the model the prompt one of the user's commands
// expands to (a custom command's, once the user has allowed each !{…}
// command it runs; an MCP prompt's); the prompt's attachments follow.
func (sess *session) userCommand(ctx context.Context, u commands.UserCommands, inv commands.Invocation, in agent.Input) (sdk.PromptResponse, error) {
	exp, err := u.Expand(ctx, inv, sess.commandShell(), commands.WorkspaceFiles{WS: sess.ws})
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sess.done(ctx, fmt.Sprintf("%s was not run: %v.", upperFirst(u.Source(inv.Name)), err))
	}
	for _, note := range exp.Notes {
		sess.say(ctx, note)
	}
	return sess.runTurn(ctx, agent.Input{Command: inv.Raw, Parts: append(exp.Parts, in.Parts...), Editor: in.Editor})
}

// upperFirst starts s with a capital.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// commandShell decides a custom command's !{…} commands as the model's
// shell calls are decided, through the session's approval door (which
// asks through session/request_permission, offering Always allow, unless
// settings or an earlier answer allow the command), and runs them on this
// machine, in the session's cwd.
func (sess *session) commandShell() commands.Shell {
	return sess.built.CommandShell(sess.agent, sess.cwd)
}

// done says text and ends the prompt.
func (sess *session) done(ctx context.Context, text string) (sdk.PromptResponse, error) {
	sess.message(ctx, text)
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// memoryCommand lists the context files the model is given, or reads
// them again.
func (sess *session) memoryCommand(ctx context.Context, args string) (sdk.PromptResponse, error) {
	mem := sess.built.Memory()
	var b strings.Builder
	switch args {
	case "", "show", "list":
	case "refresh", "reload":
		// The loader reads changed and new files before every request;
		// reading them now shows what the next request will carry.
		if _, err := mem.SystemMemory(ctx); err != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		b.WriteString("Memory reloaded. (gemini-ls also reads changed context files again before every request.)\n\n")
	default:
		return sess.done(ctx, fmt.Sprintf("Unknown /memory subcommand %q: use /memory (or /memory show) to list the context files, /memory refresh to read them again.", args))
	}
	files, err := mem.Files(ctx)
	if err != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	names := strings.Join(mem.FileNames(), ", ")
	if len(files) == 0 {
		fmt.Fprintf(&b, "No context files (%s) are in use.", names)
		return sess.done(ctx, b.String())
	}
	total := 0
	for _, f := range files {
		total += f.Size
	}
	fmt.Fprintf(&b, "%d context file(s) (%s) in use, %s in all:\n", len(files), names, size(total))
	for _, f := range files {
		fmt.Fprintf(&b, "- %s (%s)\n", f.Path, size(f.Size))
	}
	return sess.done(ctx, strings.TrimSuffix(b.String(), "\n"))
}

// size is n bytes in words.
func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// toolsCommand lists the tools the next request declares, once the MCP
// servers have listed theirs (as the first prompt waits for them).
func (sess *session) toolsCommand(ctx context.Context, _ string) (sdk.PromptResponse, error) {
	sess.waitForServers(ctx)
	reg := sess.built.Tools.Registry
	names := reg.Names()
	var b strings.Builder
	fmt.Fprintf(&b, "The model can call %d tools:\n", len(names))
	for _, name := range names {
		t, ok := reg.Get(name)
		if !ok {
			continue // an MCP server died meanwhile
		}
		fmt.Fprintf(&b, "- `%s`", name)
		if m, ok := t.(toolset.MCPTool); ok {
			server, _ := m.MCPOrigin()
			fmt.Fprintf(&b, " (MCP server `%s`)", server)
		}
		if d := t.Declaration(); d != nil && d.Description != "" {
			b.WriteString(": " + firstSentence(d.Description))
		}
		b.WriteByte('\n')
	}
	return sess.done(ctx, strings.TrimSuffix(b.String(), "\n"))
}

// firstSentence is the start of a tool's description, for a list.
func firstSentence(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// mcpCommand lists the MCP servers (settings' and the client's) as they
// stand now, with the tools of those running.
func (sess *session) mcpCommand(ctx context.Context, _ string) (sdk.PromptResponse, error) {
	servers := sess.built.Tools.MCPServers()
	if len(servers) == 0 {
		return sess.done(ctx, "No MCP servers are configured: add them to mcpServers in settings.json, or have the client pass them when it creates the session.")
	}
	reg := sess.built.Tools.Registry
	toolsOf := map[string][]string{}
	for _, name := range reg.Names() {
		if t, ok := reg.Get(name); ok {
			if m, ok := t.(toolset.MCPTool); ok {
				server, _ := m.MCPOrigin()
				toolsOf[server] = append(toolsOf[server], "`"+name+"`")
			}
		}
	}
	var b strings.Builder
	b.WriteString("MCP servers:\n")
	for _, s := range servers {
		fmt.Fprintf(&b, "- `%s`: ", s.Name)
		switch s.State {
		case mcp.StateReady:
			fmt.Fprintf(&b, "ready, %d tool(s)", s.Tools)
			if t := toolsOf[s.Name]; len(t) > 0 {
				b.WriteString(": " + strings.Join(t, ", "))
			}
		case mcp.StateStarting:
			b.WriteString("starting")
		default:
			fmt.Fprintf(&b, "%s: %s", s.State, s.Error)
		}
		b.WriteByte('\n')
	}
	return sess.done(ctx, strings.TrimSuffix(b.String(), "\n"))
}

// statsCommand shows what the session has used, over restarts.
func (sess *session) statsCommand(ctx context.Context, _ string) (sdk.PromptResponse, error) {
	info := sess.agent.Info()
	u := info.Usage
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\n", info.ID)
	fmt.Fprintf(&b, "- Model: %s\n", sess.built.Agent.Model())
	fmt.Fprintf(&b, "- Mode: %s\n", modeOf(sess.built.Agent.ApprovalMode()).name)
	fmt.Fprintf(&b, "- Prompts: %d\n", info.Prompts)
	fmt.Fprintf(&b, "- Tokens: %d input, %d output, %d thinking, %d in all\n", u.PromptTokens, u.CandidatesTokens, u.ThoughtsTokens, u.TotalTokens)
	fmt.Fprintf(&b, "- Started: %s", info.CreatedAt.UTC().Format(time.RFC3339))
	return sess.done(ctx, b.String())
}

// compressCommand summarises the older history now.
func (sess *session) compressCommand(ctx context.Context, _ string) (sdk.PromptResponse, error) {
	info, err := sess.agent.Compress(ctx)
	switch {
	case ctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case errors.Is(err, agent.ErrNothingToCompress):
		return sess.done(ctx, "Nothing to compress yet: "+strings.TrimPrefix(err.Error(), "nothing to compress: ")+".")
	case err != nil && info.After == 0:
		return sess.done(ctx, fmt.Sprintf("The history was not compressed: %v.", err))
	case err != nil:
		return sess.done(ctx, fmt.Sprintf("The history was compressed from %d to %d tokens, but %v.", info.Before, info.After, err))
	}
	return sess.done(ctx, fmt.Sprintf("The history was compressed from %d to %d tokens.", info.Before, info.After))
}

// initCommand has the model write a GEMINI.md for the project, unless the
// cwd has one, as Gemini CLI's /init does. The model writes it with
// write_file, so it is confirmed as any edit is (Gemini CLI creates the
// file empty first; nothing reaches a file unconfirmed here).
func (sess *session) initCommand(ctx context.Context, _ string) (sdk.PromptResponse, error) {
	if _, err := os.Lstat(filepath.Join(sess.cwd, "GEMINI.md")); err == nil {
		return sess.done(ctx, "A GEMINI.md file already exists in this directory. No changes were made.")
	}
	return sess.runTurn(ctx, agent.Input{Text: initPrompt})
}

// initPrompt is Gemini CLI's /init prompt (packages/core/src/commands/init.ts).
const initPrompt = `
You are an AI agent that brings the power of Gemini directly into the terminal. Your task is to analyze the current directory and generate a comprehensive GEMINI.md file to be used as instructional context for future interactions.

**Analysis Process:**

1.  **Initial Exploration:**
    *   Start by listing the files and directories to get a high-level overview of the structure.
    *   Read the README file (e.g., ` + "`README.md`, `README.txt`" + `) if it exists. This is often the best place to start.

2.  **Iterative Deep Dive (up to 10 files):**
    *   Based on your initial findings, select a few files that seem most important (e.g., configuration files, main source files, documentation).
    *   Read them. As you learn more, refine your understanding and decide which files to read next. You don't need to decide all 10 files at once. Let your discoveries guide your exploration.

3.  **Identify Project Type:**
    *   **Code Project:** Look for clues like ` + "`package.json`, `requirements.txt`, `pom.xml`, `go.mod`, `Cargo.toml`, `build.gradle`, or a `src`" + ` directory. If you find them, this is likely a software project.
    *   **Non-Code Project:** If you don't find code-related files, this might be a directory for documentation, research papers, notes, or something else.

**GEMINI.md Content Generation:**

**For a Code Project:**

*   **Project Overview:** Write a clear and concise summary of the project's purpose, main technologies, and architecture.
*   **Building and Running:** Document the key commands for building, running, and testing the project. Infer these from the files you've read (e.g., ` + "`scripts` in `package.json`, `Makefile`" + `, etc.). If you can't find explicit commands, provide a placeholder with a TODO.
*   **Development Conventions:** Describe any coding styles, testing practices, or contribution guidelines you can infer from the codebase.

**For a Non-Code Project:**

*   **Directory Overview:** Describe the purpose and contents of the directory. What is it for? What kind of information does it hold?
*   **Key Files:** List the most important files and briefly explain what they contain.
*   **Usage:** Explain how the contents of this directory are intended to be used.

**Final Output:**

Write the complete content to the ` + "`GEMINI.md`" + ` file. The output must be well-formatted Markdown.
`
