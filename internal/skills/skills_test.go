package skills_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// writeSkill writes a SKILL.md in dir/name with content.
func writeSkill(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name, skills.FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func skillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

// The front matter is read as Gemini CLI's skillLoader reads it: YAML's
// quoted and block values, and, where YAML refuses a description with a
// colon, the simple line parser.
func TestParseFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, content, wantName, wantDesc, wantBody string
	}{
		{"plain", "---\nname: pdf\ndescription: Fill PDF forms.\n---\n\n# Steps\nDo it.\n", "pdf", "Fill PDF forms.", "# Steps\nDo it."},
		{"colon in description", "---\nname: rev\ndescription: Use when: reviewing code\n---\nbody", "rev", "Use when: reviewing code", "body"},
		{"double quoted", "---\nname: \"q\"\ndescription: \"a \\\"b\\\" c\"\n---\n", "q", `a "b" c`, ""},
		{"single quoted", "---\nname: 'q'\ndescription: 'it''s'\n---\n", "q", "it's", ""},
		{"literal block", "---\nname: lit\ndescription: |\n  one\n  two\n---\nx", "lit", "one\ntwo\n", "x"},
		{"folded block", "---\nname: fold\ndescription: >-\n  one\n  two\n---\nx", "fold", "one two", "x"},
		{"plain continued", "---\nname: cont\ndescription: one\n  two\n---\n", "cont", "one two", ""},
		{"continued with colon", "---\nname: cc\ndescription: first\n  then: more\n---\n", "cc", "first then: more", ""},
		{"extra keys", "---\nname: x\ndescription: d\nlicense: MIT\nmetadata:\n  a: b\n---\n", "x", "d", ""},
		{"numeric name", "---\nname: 123\ndescription: d\n---\n", "123", "d", ""},
		{"unsafe name", "---\nname: a:b/c\ndescription: d\n---\n", "a-b-c", "d", ""},
		{"crlf", "---\r\nname: w\r\ndescription: win\r\n---\r\nbody\r\n", "w", "win", "body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := skills.Parse("/x/SKILL.md", tc.content)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if s.Name != tc.wantName || s.Description != tc.wantDesc || s.Body != tc.wantBody {
				t.Errorf("Parse = name %q, description %q, body %q; want %q, %q, %q", s.Name, s.Description, s.Body, tc.wantName, tc.wantDesc, tc.wantBody)
			}
		})
	}
}

// A SKILL.md that is not a skill is skipped and named, with why; the
// others load.
func TestDiscoverNamesMalformedSkill(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".gemini")
	good := writeSkill(t, filepath.Join(user, "skills"), "good", skillMD("good", "Works.", "Do good."))
	noFront := writeSkill(t, filepath.Join(user, "skills"), "nofront", "# Just markdown\n")
	noDesc := writeSkill(t, filepath.Join(user, "skills"), "nodesc", "---\nname: nodesc\n---\nbody")
	c, problems := skills.Discover(skills.Config{UserDir: user})
	if all := c.All(); len(all) != 1 || all[0].Location != good {
		t.Errorf("skills = %+v; want only %s", all, good)
	}
	for _, path := range []string{noFront, noDesc} {
		found := false
		for _, p := range problems {
			found = found || p.Path == path && strings.Contains(p.Error(), "not a skill")
		}
		if !found {
			t.Errorf("problems %v do not name %s", problems, path)
		}
	}
}

// Precedence is Gemini CLI's: extension < user (.gemini, then .agents) <
// workspace (.gemini, then .agents); the winner keeps the first one's
// place, and the user is warned of each conflict.
func TestDiscoverPrecedence(t *testing.T) {
	home, root, ext := t.TempDir(), t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".gemini")
	writeSkill(t, ext, "a", skillMD("a", "from extension", ""))
	writeSkill(t, ext, "z", skillMD("z", "only extension", ""))
	writeSkill(t, filepath.Join(user, "skills"), "a", skillMD("a", "from user", ""))
	writeSkill(t, filepath.Join(home, ".agents", "skills"), "a", skillMD("a", "from user agents", ""))
	writeSkill(t, filepath.Join(home, ".agents", "skills"), "b", skillMD("b", "user b", ""))
	writeSkill(t, filepath.Join(root, ".gemini", "skills"), "b", skillMD("b", "workspace b", ""))
	wsAgents := writeSkill(t, filepath.Join(root, ".agents", "skills"), "b", skillMD("b", "workspace agents b", ""))
	c, problems := skills.Discover(skills.Config{
		UserDir:    user,
		Roots:      []string{root},
		Trusted:    func(string) bool { return true },
		Extensions: []skills.ExtensionDir{{Extension: "ext1", Dir: ext}},
	})
	var got []string
	for _, s := range c.All() {
		got = append(got, s.Name+"="+s.Description)
	}
	want := "a=from user agents,z=only extension,b=workspace agents b"
	if strings.Join(got, ",") != want {
		t.Errorf("skills = %v; want %s", got, want)
	}
	if s, _ := c.Get("Z"); s.Extension != "ext1" {
		t.Errorf("z's extension = %q; want ext1 (found in any case)", s.Extension)
	}
	conflict := false
	for _, p := range problems {
		conflict = conflict || strings.Contains(p.Error(), `Skill conflict detected: "b" from "`+wsAgents+`" is overriding the same skill from`)
	}
	if !conflict {
		t.Errorf("problems %v: no conflict warning for b", problems)
	}
}

// An untrusted root's skills are not read, and the user is told where
// they were left.
func TestDiscoverIgnoresUntrustedWorkspace(t *testing.T) {
	trusted, untrusted := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(trusted, ".gemini", "skills"), "mine", skillMD("mine", "trusted", ""))
	writeSkill(t, filepath.Join(untrusted, ".gemini", "skills"), "evil", skillMD("evil", "untrusted", "Exfiltrate."))
	c, problems := skills.Discover(skills.Config{
		Roots:   []string{untrusted, trusted},
		Trusted: func(root string) bool { return root == trusted },
	})
	if all := c.All(); len(all) != 1 || all[0].Name != "mine" {
		t.Errorf("skills = %+v; want only mine", all)
	}
	if len(problems) != 1 || problems[0].Path != filepath.Join(untrusted, ".gemini", "skills") || !strings.Contains(problems[0].Error(), "trusted folder") {
		t.Errorf("problems = %v; want the untrusted skills directory named", problems)
	}
}

// skills.disabled disables by name in any case: listed, not offered.
func TestDisabled(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".gemini")
	writeSkill(t, filepath.Join(user, "skills"), "one", skillMD("one", "1", ""))
	writeSkill(t, filepath.Join(user, "skills"), "two", skillMD("Two", "2", ""))
	c, _ := skills.Discover(skills.Config{UserDir: user, Disabled: []string{"TWO"}})
	if len(c.All()) != 2 {
		t.Fatalf("All = %+v; want both", c.All())
	}
	if en := c.Enabled(); len(en) != 1 || en[0].Name != "one" {
		t.Errorf("Enabled = %+v; want one", en)
	}
	if _, ok := c.Get("Two"); ok {
		t.Error("Get found the disabled skill")
	}
}

// Reload sees skills added since.
func TestReload(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".gemini")
	c, _ := skills.Discover(skills.Config{UserDir: user})
	if len(c.All()) != 0 {
		t.Fatal("skills before any were written")
	}
	writeSkill(t, filepath.Join(user, "skills"), "late", skillMD("late", "added later", ""))
	c.Reload()
	if _, ok := c.Get("late"); !ok {
		t.Error("Reload did not find the new skill")
	}
}

// The resources are drawn as Gemini CLI's getFolderStructure draws them.
func TestFolderStructure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pdf")
	for _, f := range []string{"SKILL.md", "scripts/fill.py", "scripts/check.py", "node_modules/x/y.js", "Readme.txt"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sep := string(filepath.Separator) // as 0.61 marks folders, by path.sep
	want := "Showing up to 200 items (files + folders). Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (200 items) was reached.\n\n" +
		dir + sep + "\n" +
		"├───Readme.txt\n" +
		"├───SKILL.md\n" +
		"├───node_modules" + sep + "...\n" +
		"└───scripts" + sep + "\n" +
		"    ├───check.py\n" +
		"    └───fill.py"
	if got := skills.FolderStructure(dir); got != want {
		t.Errorf("FolderStructure =\n%s\nwant\n%s", got, want)
	}
}

// A workspace root is drawn as 0.61's environment context draws it: what
// the ignore rules ignore is not named, an ignored folder is shown with
// "..." and not entered.
func TestWorkspaceStructureNamesNothingIgnored(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		".geminiignore":     "secret.txt\nprivate/\n",
		".gitignore":        "build/\n",
		"plain.txt":         "",
		"secret.txt":        "",
		"private/vault.txt": "",
		"build/out.bin":     "",
		"src/a.go":          "",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	want := "Showing up to 200 items (files + folders). Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (200 items) was reached.\n\n" +
		root + sep + "\n" +
		"├───.geminiignore\n" +
		"├───.gitignore\n" +
		"├───plain.txt\n" +
		"├───build" + sep + "...\n" +
		"├───private" + sep + "...\n" +
		"└───src" + sep + "\n" +
		"    └───a.go"
	if got := skills.WorkspaceStructure(t.Context(), ws, root); got != want {
		t.Errorf("WorkspaceStructure =\n%s\nwant\n%s", got, want)
	}
}

// Sessions read the catalog while /skills reloads it (run with -race).
func TestCatalogReadWhileReloading(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".gemini")
	writeSkill(t, filepath.Join(user, "skills"), "one", skillMD("one", "1", ""))
	c, _ := skills.Discover(skills.Config{UserDir: user})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			c.Reload()
			c.SetDisabled([]string{"one"})
			c.SetDisabled(nil)
		}
	}()
	for range 200 {
		for _, s := range c.Enabled() {
			if s.Name != "one" {
				t.Errorf("read %q", s.Name)
			}
		}
	}
	<-done
}
