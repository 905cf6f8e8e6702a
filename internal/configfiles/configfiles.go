package configfiles

import (
	"path/filepath"
	"slices"
	"strings"
)

// The names of gemini-ls's own configuration in a folder and in the home.
const (
	// Gemini is gemini-ls's and Gemini CLI's directory: settings.json,
	// .env, policies, commands, agents, skills, extensions, system.md;
	// in the home also trustedFolders.json, the credentials and
	// Antigravity's MCP files (config/, antigravity-cli/).
	Gemini = ".gemini"
	// Agents is the directory Antigravity and other agents share:
	// mcp_config.json, rules, skills, hooks.json, workflows.
	Agents = ".agents"
	// Env is the environment file read in a folder, the folders above it
	// and the home.
	Env = ".env"
	// GeminiIgnore lists the files the agent may not read.
	GeminiIgnore = ".geminiignore"
	// Worktrees is the directory of Gemini where sessions' git
	// worktrees are (.gemini/worktrees, as in Gemini CLI 0.61): each a
	// copy of the project, which the main workspace's walks never enter.
	Worktrees = "worktrees"
)

// Keeping is how a sandbox guards a declared name in a workspace root.
type Keeping int

const (
	// KeptOrSetAside: one there when the sandbox first looks is kept
	// read-only; one a command makes is set aside.
	KeptOrSetAside Keeping = iota
	// MadeEmpty: kept read-only, and made empty first where missing, so
	// none can be planted (0.61's governance files).
	MadeEmpty
	// GuardedApart: the sandbox guards it its own way (git's directory
	// by its git protector, .env masked and watched as a start-up file).
	GuardedApart
)

// A File is one declared name: a file, or a directory with everything
// beneath it.
type File struct {
	// Name is slash-separated; a name of several components matches
	// them in a row. One starting with "*" is an ending
	// (*.code-workspace): any file whose name ends so.
	Name string
	// What it is or holds, worded to follow "is" or "holds" in what the
	// user and the model are told.
	What string
	// Ours: gemini-ls's loaders read it (and Gemini CLI's, or
	// Antigravity's); otherwise another program does.
	Ours bool
	// Sandbox is how a sandbox guards it in a root.
	Sandbox Keeping
}

// Ending reports whether f names an ending rather than a name, and
// which.
func (f File) Ending() (string, bool) { return strings.CutPrefix(f.Name, "*") }

const shellStartup = "a shell startup file, run by every shell the user starts"

// files are the declarations, gemini-ls's own first.
var files = [...]File{
	{Gemini, "gemini-ls's and Gemini CLI's configuration: settings with their hooks and MCP servers, policies, commands, agents, skills, extensions, system.md and .env", true, MadeEmpty},
	{Agents, "the configuration gemini-ls shares with Antigravity and other agents: MCP servers (mcp_config.json), rules, skills and hooks", true, KeptOrSetAside},
	{Env, "the environment gemini-ls and Gemini CLI start with, which may point them at other settings", true, GuardedApart},
	{GeminiIgnore, "the list of files the agent may not read", true, KeptOrSetAside},

	{".git", "git's configuration and the hooks git runs", false, GuardedApart},
	{".gitconfig", "git's configuration, which names commands git runs", false, KeptOrSetAside},
	{".husky", "hooks git runs", false, KeptOrSetAside},
	{".vscode", "VS Code's project settings and tasks", false, KeptOrSetAside},
	{".idea", "JetBrains IDEs' project settings and run configurations", false, KeptOrSetAside},
	{".zed", "Zed's project settings and tasks", false, KeptOrSetAside},
	{".helix", "Helix's project settings and the language servers it starts", false, KeptOrSetAside},
	{".nvim.lua", "Neovim's project configuration, which it runs", false, KeptOrSetAside},
	{".nvimrc", "Neovim's project configuration, which it runs", false, KeptOrSetAside},
	{".exrc", "Vim's and Neovim's project configuration, which they run", false, KeptOrSetAside},
	{".dir-locals.el", "Emacs's directory-local variables, which it evaluates", false, KeptOrSetAside},
	{".dir-locals-2.el", "Emacs's directory-local variables, which it evaluates", false, KeptOrSetAside},
	{".envrc", "direnv's script, which the shell runs on entering the directory", false, KeptOrSetAside},
	{".bashrc", shellStartup, false, KeptOrSetAside},
	{".bash_profile", shellStartup, false, KeptOrSetAside},
	{".bash_login", shellStartup, false, KeptOrSetAside},
	{".bash_logout", shellStartup, false, KeptOrSetAside},
	{".profile", shellStartup, false, KeptOrSetAside},
	{".zshrc", shellStartup, false, KeptOrSetAside},
	{".zshenv", shellStartup, false, KeptOrSetAside},
	{".zprofile", shellStartup, false, KeptOrSetAside},
	{".zlogin", shellStartup, false, KeptOrSetAside},
	{".zlogout", shellStartup, false, KeptOrSetAside},
	{".ssh", "ssh's configuration, whose commands ssh runs, and the keys that may log in", false, KeptOrSetAside},
	// The same programs' configuration where XDG puts it: a name of
	// several components matches them in a row.
	{".config/git", "git's configuration (config, attributes), which names commands git runs", false, KeptOrSetAside},
	{".config/nvim", "Neovim's configuration (init.lua, init.vim), which it runs", false, KeptOrSetAside},
	{".config/fish", "fish's configuration (config.fish, conf.d), run by every shell the user starts", false, KeptOrSetAside},
	{"*.code-workspace", "a VS Code workspace file: its settings, tasks and launch configurations, as .vscode's", false, KeptOrSetAside},
}

// All are the declarations, in their order.
func All() []File { return slices.Clone(files[:]) }

// Names are the declarations of a name, not an ending, in their order:
// the names protected in any folder, and those a sandbox keeps
// read-only in a root, or sets aside where a command makes one, as each
// says (Keeping).
func Names() []File {
	return slices.DeleteFunc(All(), func(f File) bool {
		_, ending := f.Ending()
		return ending
	})
}

// Endings are the declarations of an ending (*.code-workspace).
func Endings() []File {
	return slices.DeleteFunc(All(), func(f File) bool {
		_, ending := f.Ending()
		return !ending
	})
}

// Folder are the names of gemini-ls's own configuration in a folder,
// which a later session there reads: the sandboxes' trail checks each
// for a change a sandboxed command could have made.
func Folder() []string {
	var out []string
	for _, f := range files {
		if f.Ours {
			out = append(out, f.Name)
		}
	}
	return out
}

// GeminiDir is dir's .gemini: a folder's, or the home's (the user's
// directory, settings.UserDir).
func GeminiDir(dir string) string { return filepath.Join(dir, Gemini) }

// AgentsDir is dir's .agents: a folder's, or the home's.
func AgentsDir(dir string) string { return filepath.Join(dir, Agents) }

// ProjectSettings is a folder's settings.json, in its .gemini.
func ProjectSettings(root string) string { return filepath.Join(GeminiDir(root), "settings.json") }

// AntigravityMCP is a folder's Antigravity MCP file, in its .agents.
func AntigravityMCP(root string) string { return filepath.Join(AgentsDir(root), "mcp_config.json") }

// AgentsRules is a folder's Antigravity rules directory, in its .agents.
func AgentsRules(root string) string { return filepath.Join(AgentsDir(root), "rules") }

// AgentsHooks is a folder's Antigravity hooks file, in its .agents.
func AgentsHooks(root string) string { return filepath.Join(AgentsDir(root), "hooks.json") }

// Skills are the skills directories of dir (a folder, or the home's
// parent of the user's .gemini): .gemini/skills, then .agents/skills.
func Skills(dir string) []string {
	return []string{filepath.Join(GeminiDir(dir), "skills"), filepath.Join(AgentsDir(dir), "skills")}
}

// In is a file named name (slash-separated) in dir's .gemini: a
// folder's agents, commands, policies, system.md, .env.
func In(dir, name string) string { return filepath.Join(GeminiDir(dir), filepath.FromSlash(name)) }
