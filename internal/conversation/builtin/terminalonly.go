package builtin

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// TerminalOnly is one of Gemini CLI 0.61's built-in commands that has
// nothing to do where an editor, not a terminal UI, shows the
// conversation: it is answered with Answer, and never sent to the model
// as a prompt (where it would only puzzle it).
type TerminalOnly struct {
	Name     string
	AltNames []string
	// Answer is one sentence: what 0.61's command does, and where the
	// editor does it.
	Answer string
}

// TerminalOnlyCommands are 0.61's built-ins that gemini-ls answers
// without running (0.61's BuiltinCommandLoader, checked name by name
// against Table): its terminal UI's own, and those of things gemini-ls
// does not run. One table, so that /help's "not here" and the dispatch
// agree.
func TerminalOnlyCommands() []TerminalOnly {
	return []TerminalOnly{
		{Name: "bug-memory", Answer: "/bug-memory writes a V8 heap snapshot of Gemini CLI's Node.js process; gemini-ls is a Go program with no such heap: `/bug` makes a bug report with what is running."},
		{Name: "copy", Answer: "/copy copies Gemini CLI's last answer to the terminal's clipboard; in the editor copy it from the chat: VS Code's Copy on a code block or a selection in the chat, Neovim's yank in the chat buffer, Emacs's M-w in the chat buffer, Zed's copy in the agent panel."},
		{Name: "corgi", Answer: "/corgi toggles Gemini CLI's terminal mascot; there is none to toggle in an editor."},
		{Name: "editor", Answer: "/editor chooses the external editor Gemini CLI opens from the terminal; here the editor you are in is the editor, and gemini-ls proposes its changes there."},
		{Name: "footer", AltNames: []string{"statusline"}, Answer: "/footer arranges Gemini CLI's terminal status line; the editor shows gemini-ls's state in its own: VS Code's status bar item, Neovim's `require('gemini').status()` for your statusline, Emacs's mode line, Zed's agent panel."},
		{Name: "gemma", Answer: "/gemma shows Gemini CLI's routing to a local Gemma model, which gemini-ls does not run: `/model` shows the model in use."},
		{Name: "ide", Answer: "/ide connects Gemini CLI in a terminal to an editor's companion extension; gemini-ls runs inside the editor already, so there is nothing to connect."},
		{Name: "oncall", Answer: "/oncall is a command of Gemini CLI's nightly builds for its maintainers; gemini-ls has no such command."},
		{Name: "profile", Answer: "/profile is a command of Gemini CLI's development builds; gemini-ls has no such command."},
		{Name: "settings", Answer: "/settings opens Gemini CLI's terminal settings dialog; edit `~/.gemini/settings.json` or the project's `.gemini/settings.json` in the editor instead (gemini-ls reads them again at the next prompt), and the editor's own options in its settings: VS Code's Settings under Gemini, Neovim's `require('gemini').setup{}`, Emacs's M-x customize-group gemini-ls, Zed's settings.json."},
		{Name: "shortcuts", Answer: "/shortcuts shows Gemini CLI's terminal key bindings; the editor's are its own: VS Code's Keyboard Shortcuts (search Gemini), Neovim's :help gemini.txt, Emacs's C-h m in the chat buffer, Zed's keymap."},
		{Name: "terminal-setup", Answer: "/terminal-setup sets a terminal's key bindings for multi-line prompts; the editor's prompt already takes several lines (VS Code: Shift+Enter; Neovim and Emacs: a prompt buffer like any other; Zed: its agent panel's editor)."},
		{Name: "theme", Answer: "/theme changes Gemini CLI's terminal colours; the chat follows the editor's theme: VS Code's Preferences: Color Theme, Neovim's :colorscheme, Emacs's M-x load-theme, Zed's theme selector."},
		{Name: "vim", Answer: "/vim toggles Gemini CLI's vim keys in its terminal prompt; in the editor the prompt is edited with the editor's own keys: VS Code's Vim extension, Neovim itself, Emacs's evil-mode, Zed's vim_mode setting."},
		{Name: "voice", Answer: "/voice toggles Gemini CLI's voice dictation in the terminal; use the editor's or the system's dictation instead (VS Code's speech extension, the operating system's dictation elsewhere)."},
	}
}

// FindTerminalOnly is the terminal-only command called name, or that
// name is another name of.
func FindTerminalOnly(name string) (TerminalOnly, bool) {
	list := TerminalOnlyCommands()
	if i := slices.IndexFunc(list, func(c TerminalOnly) bool { return c.Name == name }); i >= 0 {
		return list[i], true
	}
	i := slices.IndexFunc(list, func(c TerminalOnly) bool { return slices.Contains(c.AltNames, name) })
	if i < 0 {
		return TerminalOnly{}, false
	}
	return list[i], true
}

// UnknownCommandError is a prompt "/name …" where name is no command: a
// mistyped one (told the nearest names, when some are near) or one of
// another program's, refused rather than sent to the model as a prompt.
type UnknownCommandError struct {
	Name    string
	Nearest []string
}

func (e *UnknownCommandError) Error() string {
	if len(e.Nearest) == 0 {
		return fmt.Sprintf("/%s is not a command (/help lists them). Nothing was sent to the model. To ask it about /%s, put a word before it.", e.Name, e.Name)
	}
	names := make([]string, len(e.Nearest))
	for i, n := range e.Nearest {
		names[i] = "/" + n
	}
	return fmt.Sprintf("/%s is not a command; did you mean %s? Nothing was sent to the model.", e.Name, orList(names))
}

// orList is names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// maxNearest bounds the names an UnknownCommandError offers.
const maxNearest = 3

// NearestCommands are the names among known nearest name, closest first
// (at most maxNearest): those name begins (at least two letters of it),
// and those a typo or two away (one for a name of four letters or less,
// where two would match half the table).
func NearestCommands(name string, known []string) []string {
	type scored struct {
		name     string
		distance int
	}
	var near []scored
	for _, k := range known {
		if k == name {
			continue
		}
		d := editDistance(name, k)
		if utf8.RuneCountInString(name) >= 2 && strings.HasPrefix(k, name) {
			d = 0
		}
		if d <= typosAllowed(name) {
			near = append(near, scored{k, d})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return a.distance - b.distance })
	var names []string
	for _, s := range near {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
	}
	return names[:min(len(names), maxNearest)]
}

// IsCommandName says whether name, the word after a prompt's "/", could
// name a command: a path ("/usr/bin/env is broken") never does, and such
// a prompt goes to the model as typed.
func IsCommandName(name string) bool {
	return name != "" && !strings.ContainsAny(name, `/\`)
}

// typosAllowed is how many edits away from a command name still reads
// as a typo of it.
func typosAllowed(name string) int {
	if utf8.RuneCountInString(name) <= 4 {
		return 1
	}
	return 2
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of neighbours ("plna"
// for "plan" is one) that make one the other.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
