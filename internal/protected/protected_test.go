package protected_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/protected"
)

// Each name protects itself and everything beneath it, wherever it is in
// the path and however its letters are cased; a name that only looks
// like one protects nothing.
func TestWhyByName(t *testing.T) {
	root := t.TempDir()
	var s protected.Set
	for _, c := range []struct{ path, want string }{
		{".gemini/settings.json", root + "/.gemini holds gemini-ls's and Gemini CLI's configuration"},
		{".gemini/policies/x.toml", root + "/.gemini holds "},
		{".gemini", root + "/.gemini is "},
		{"sub/project/.gemini/commands/a.toml", root + "/sub/project/.gemini holds "},
		{".GEMINI/settings.json", root + "/.GEMINI holds "},
		{".geminiignore", root + "/.geminiignore is the list of files the agent may not read"},
		{".env", root + "/.env is the environment"},
		{".envrc", root + "/.envrc is direnv's script"},
		{".git/hooks/pre-commit", root + "/.git holds git's configuration"},
		{".git/config", root + "/.git holds "},
		{".gitconfig", root + "/.gitconfig is "},
		{".husky/pre-commit", root + "/.husky holds "},
		{".vscode/tasks.json", root + "/.vscode holds VS Code's"},
		{".idea/workspace.xml", root + "/.idea holds "},
		{".zed/settings.json", root + "/.zed holds "},
		{".helix/languages.toml", root + "/.helix holds "},
		{".nvim.lua", root + "/.nvim.lua is "},
		{".nvimrc", root + "/.nvimrc is "},
		{".exrc", root + "/.exrc is "},
		{".dir-locals.el", root + "/.dir-locals.el is "},
		{".dir-locals-2.el", root + "/.dir-locals-2.el is "},
		{".bashrc", root + "/.bashrc is a shell startup file"},
		{".zshenv", root + "/.zshenv is a shell startup file"},
		{".profile", root + "/.profile is "},
		{".ssh/authorized_keys", root + "/.ssh holds ssh's"},
		// U+017F LATIN SMALL LETTER LONG S folds to s, as a
		// case-insensitive file system may take it.
		{".\u017Fsh/config", root + "/.\u017Fsh holds ssh's"},
		{"main.go", ""},
		{"GEMINI.md", ""},
		{".gitignore", ""},
		{".gemini-notes/settings.json", ""},
		{"docs/gemini/settings.json", ""},
		{".environment", ""},
		{"env/.env.example", ""},
		{"x.vscode/settings.json", ""},
	} {
		wantWhy(t, s, root, c.path, c.want)
	}
}

// The configuration the names protect, under the other names the same
// programs read it from: a VS Code workspace file (settings, tasks and
// launch configurations, as .vscode's), and git's, Neovim's and fish's
// XDG configuration directories, whose names are several components in
// a row.
func TestWhySameConfigurationOtherNames(t *testing.T) {
	root := t.TempDir()
	var s protected.Set
	for _, c := range []struct{ path, want string }{
		{"app.code-workspace", root + "/app.code-workspace is a VS Code workspace file"},
		{"sub/App.CODE-WORKSPACE", root + "/sub/App.CODE-WORKSPACE is a VS Code workspace file"},
		{"app.code-work\u017Fpace", root + "/app.code-work\u017Fpace is a VS Code workspace file"},
		{"home/.config/git/config", root + "/home/.config/git holds git's configuration"},
		{"home/.config/git/attributes", root + "/home/.config/git holds git's configuration"},
		{"home/.config/nvim/init.lua", root + "/home/.config/nvim holds Neovim's configuration"},
		{"home/.config/nvim/init.vim", root + "/home/.config/nvim holds Neovim's configuration"},
		{"home/.config/nvim/lua/plugins.lua", root + "/home/.config/nvim holds "},
		{"home/.config/fish/config.fish", root + "/home/.config/fish holds fish's configuration"},
		{"home/.config/fish", root + "/home/.config/fish is fish's configuration"},
		{".code-workspace", ""},
		{"app.code-workspace.md", ""},
		{"home/.config/other/config", ""},
		{"home/.config", ""},
		{"home/git/config", ""},
		{"home/nvim/init.lua", ""},
	} {
		wantWhy(t, s, root, c.path, c.want)
	}
}

// A set's paths protect themselves and what is beneath them, as named
// and through their links.
func TestWhyByPath(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "etc-real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(root, "etc")
	platformtest.Symlink(t, real, linked)
	s := protected.New(
		protected.Path{Path: filepath.Join(linked, "settings.json"), What: "the system settings"},
		protected.Path{Path: filepath.Join(root, "policies"), What: "the system policies"},
		protected.Path{Path: "relative/ignored", What: "nothing"},
	)
	for _, c := range []struct{ path, want string }{
		{"etc/settings.json", linked + "/settings.json is the system settings"},
		{"etc-real/settings.json", linked + "/settings.json is the system settings"},
		{"policies/a.toml", root + "/policies holds the system policies"},
		{"policies", root + "/policies is the system policies"},
		{"etc/other.json", ""},
		{"policies-old/a.toml", ""},
		{"relative/ignored", ""},
	} {
		got := s.Why(filepath.Join(root, c.path))
		if got != filepath.FromSlash(c.want) {
			t.Errorf("Why(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}

// A protected name above a file that links to it, or to a directory
// holding it, protects it; so does a link in the path that leads into a
// protected directory.
func TestWhyThroughLinks(t *testing.T) {
	home := t.TempDir()
	mkdir(t, home, "dotfiles/gemini", "project/config", "project/scripts", "project/.gemini")
	link(t, filepath.Join(home, "dotfiles/gemini"), filepath.Join(home, ".gemini"))
	link(t, filepath.Join(home, "project/config"), filepath.Join(home, "project/.vscode"))
	link(t, filepath.Join(home, "project/scripts/env.sh"), filepath.Join(home, "project/.envrc"))
	link(t, filepath.Join(home, "project/.gemini"), filepath.Join(home, "project/settings"))
	var s protected.Set
	for _, c := range []struct{ path, want string }{
		{"dotfiles/gemini/settings.json", home + "/.gemini (a link to " + home + "/dotfiles/gemini) holds gemini-ls's"},
		{"dotfiles/gemini/policies/new/x.toml", home + "/.gemini (a link to "},
		{"project/config/tasks.json", home + "/project/.vscode (a link to " + home + "/project/config) holds VS Code's"},
		{"project/scripts/env.sh", home + "/project/.envrc (a link to " + home + "/project/scripts/env.sh) is direnv's"},
		{"project/settings/settings.json", home + "/project/.gemini holds "},
		{"project/scripts/build.sh", ""},
		{"dotfiles/vimrc", ""},
	} {
		wantWhy(t, s, home, c.path, c.want)
	}
}

// A path too deep to search above for links is protected, saying so.
func TestWhyTooDeep(t *testing.T) {
	path := t.TempDir() + strings.Repeat("/d", protected.MaxDepth) + "/f.txt"
	if got := (protected.Set{}).Why(path); !strings.Contains(got, "more than 64 directories deep") {
		t.Errorf("Why(a path %d deep) = %q", protected.MaxDepth, got)
	}
}

// wantWhy fails unless s says why path, in dir, is protected starting
// with want, or, want being "", says nothing.
func wantWhy(t *testing.T, s protected.Set, dir, path, want string) {
	t.Helper()
	got := s.Why(filepath.Join(dir, path))
	want = filepath.FromSlash(want) // the wants join paths by "/"
	if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want) {
		t.Errorf("Why(%s) = %q, want %q…", path, got, want)
	}
}

func mkdir(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	platformtest.Symlink(t, target, name)
}

// BenchmarkWhy is one edit's check of an ordinary file, the common case:
// every directory above it searched for links.
func BenchmarkWhy(b *testing.B) {
	root := b.TempDir()
	path := filepath.Join(root, "src", "pkg", "file.go")
	var s protected.Set
	for b.Loop() {
		if s.Why(path) != "" {
			b.Fatal("protected")
		}
	}
}

// XDG_CONFIG_HOME moves git's, Neovim's and fish's configuration: the
// names under .config are protected there too, and nothing else is; a
// relative value, which the XDG specification ignores, moves nothing.
func TestXDGConfig(t *testing.T) {
	home := t.TempDir()
	s := protected.New(protected.XDGConfig(filepath.Join(home, "dots"))...)
	for _, c := range []struct{ path, want string }{
		{"dots/git/config", "dots/git holds git's configuration"},
		{"dots/nvim/init.lua", "dots/nvim holds Neovim's configuration"},
		{"dots/fish/config.fish", "dots/fish holds fish's configuration"},
		{"dots/other/config", ""},
	} {
		got := s.Why(filepath.Join(home, c.path))
		if c.want == "" && got != "" || !strings.Contains(got, filepath.FromSlash(c.want)) {
			t.Errorf("Why(%s) = %q, want it to say %q", c.path, got, c.want)
		}
	}
	if got := protected.XDGConfig("dots"); got != nil {
		t.Errorf("a relative XDG_CONFIG_HOME: %v", got)
	}
}

// An agent's worktree lies in the project's .gemini/worktrees: its files
// are its work, not configuration, while its own configuration, and
// everything else in .gemini, stays protected.
func TestWorktreeFilesAreNotConfiguration(t *testing.T) {
	root := filepath.FromSlash("/p")
	for path, want := range map[string]bool{
		"/p/.gemini/worktrees/a/notes.txt":             false,
		"/p/.gemini/worktrees/a/src/main.go":           false,
		"/p/.gemini/worktrees/a/.gemini/settings.json": true,
		"/p/.gemini/worktrees/a/.git":                  true,
		"/p/.gemini/worktrees/a/.env":                  true,
		"/p/.gemini/worktrees/settings.json":           true,
		"/p/.gemini/worktrees/a":                       true,
		"/p/.gemini/settings.json":                     true,
	} {
		path = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, "/p")))
		if why := (protected.Set{}).Why(path); (why != "") != want {
			t.Errorf("Why(%s) = %q, want protected %v", path, why, want)
		}
	}
}
