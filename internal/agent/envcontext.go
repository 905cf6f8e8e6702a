package agent

import (
	"context"
	"runtime"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// sessionContextTag opens Gemini CLI 0.61's first user message; readers
// of a history (sessionstore's, 0.61's) leave a text that starts with it
// out of the conversation shown.
const sessionContextTag = "<session_context>"

// sessionContext is what 0.61's getEnvironmentContext begins a chat's
// history with (bundle chunk-JDPZ4CE3.js:334945): the date, the system,
// the project's temporary directory and the workspace's directories, in
// its words but two: it names gemini-ls, and the date, always written
// "Monday, January 2, 2006", is not said to follow the user's locale.
// 0.61 ends it with the project's and extensions' GEMINI.md files;
// gemini-ls gives every memory file in a part of its own after it
// (memoryturn.go). Made once, at the session's first request, and saved
// with the session (sessionstore's Snapshot.Context): the request's
// prefix stays the same for the whole session, resumed too, whatever
// the date and the tree become. 0.61 makes a new one at each resume.
func (a *Agent) sessionContext(ctx context.Context) *genai.Content {
	var b strings.Builder
	b.WriteString(sessionContextTag + "\nThis is gemini-ls. We are setting up the context for our chat.\n")
	b.WriteString("Today's date is " + a.cfg.Now().Format("Monday, January 2, 2006") + ".\n")
	b.WriteString("My operating system is: " + nodePlatform(runtime.GOOS) + "\n")
	if a.cfg.ProjectTempDir != nil {
		if tmp, err := a.cfg.ProjectTempDir(); err == nil {
			b.WriteString("The project's temporary directory is: " + tmp + "\n")
		} else {
			a.cfg.Logger.Warn("finding the project's temporary directory for the session context", zap.Error(err))
		}
	}
	if a.cfg.DirectoryTree {
		b.WriteString(a.directoryContext(ctx))
	}
	b.WriteString("\n\n\n</session_context>")
	return genai.NewContentFromText(b.String(), genai.RoleUser)
}

// directoryContext is 0.61's getDirectoryContextString: the workspace's
// roots, then each drawn as its getFolderStructure draws it.
func (a *Agent) directoryContext(ctx context.Context) string {
	var roots []string
	if a.cfg.Workspace != nil {
		roots = a.cfg.Workspace.Roots()
	}
	var b strings.Builder
	b.WriteString("- **Workspace Directories:**\n")
	trees := make([]string, 0, len(roots))
	for _, r := range roots {
		b.WriteString("  - " + r + "\n")
		trees = append(trees, skills.WorkspaceStructure(ctx, a.cfg.Workspace, r))
	}
	b.WriteString("- **Directory Structure:**\n\n" + strings.Join(trees, "\n"))
	return b.String()
}

// nodePlatform is goos as Node's process.platform names it, which 0.61
// tells the model.
func nodePlatform(goos string) string {
	switch goos {
	case "windows":
		return "win32"
	case "illumos", "solaris":
		return "sunos"
	}
	return goos
}

// contextText is the session context's text as saved, "" for none.
func (c *chat) contextText() string {
	if c.context == nil {
		return ""
	}
	return textOf(c.context)
}

// unsavedContext is the session context's text when the session's file
// does not hold it yet, else "": it is written once.
func (s *Session) unsavedContext() string {
	if s.saved.context == s.chat.context {
		return ""
	}
	return s.chat.contextText()
}

// restoreContext makes text, the session context a resumed session's
// file holds, the one its requests begin with again, byte for byte,
// where the agent gives one (Config.SessionContext).
func (s *Session) restoreContext(text string) {
	if text == "" || !s.agent.cfg.SessionContext || s.parent != nil {
		return
	}
	s.chat.context = genai.NewContentFromText(text, genai.RoleUser)
	s.saved.context = s.chat.context
}

// beginContext gives the session its session context at its first
// request, when the agent says one (Config.SessionContext): the main
// conversation's only, as 0.61 gives a subagent its environment in its
// system instruction instead (subagentInstruction).
func (t *turn) beginContext() {
	c := &t.s.chat
	if c.context != nil || t.main != nil || t.s.parent != nil || !t.s.agent.cfg.SessionContext {
		return
	}
	c.context = t.s.agent.sessionContext(t.ctx)
}
