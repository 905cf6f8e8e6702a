package e2e

import (
	"archive/zip"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// skillSource makes a directory holding one skill per name, each with a
// resource file, and returns it.
func skillSource(t *testing.T, names ...string) string {
	t.Helper()
	src := t.TempDir()
	for _, name := range names {
		writeFile(t, filepath.Join(src, name, "SKILL.md"), "---\nname: "+name+"\ndescription: does "+name+"\n---\nDo "+name+".\n")
		writeFile(t, filepath.Join(src, name, "scripts", "run.sh"), "echo "+name+"\n")
	}
	return src
}

func (w mgmtWorld) userSkills() string { return filepath.Join(w.home, ".gemini", "skills") }

// lsIn runs gemini-ls with stdin.
func (w mgmtWorld) lsIn(stdin string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = w.dir
	cmd.Env = geminicli.Env(w.home, "")
	return runCmd(w.t, cmd, stdin)
}

// TestSkillsInstalledByOneUninstalledByTheOther: skills gemini-ls
// installs, 0.61 lists (and gemini-ls lists them in 0.61's words) and
// uninstalls; and the reverse.
func TestSkillsInstalledByOneUninstalledByTheOther(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	src := skillSource(t, "alpha", "beta")
	r := w.ls("skills", "install", src, "--consent")
	if r.code != 0 || !strings.Contains(r.stderr, "Successfully installed skill: alpha (scope: user, location: "+filepath.Join(w.userSkills(), "alpha")+")") {
		t.Fatalf("gemini-ls skills install: (%d) %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.userSkills(), "beta", "scripts", "run.sh")); err != nil {
		t.Errorf("the skill's resources were not copied: %v", err)
	}
	theirs, ours := w.gemini("skills", "list"), w.ls("skills", "list")
	if !strings.Contains(theirs.stdout, "alpha [Enabled]\n  Description: does alpha\n  Location:    "+filepath.Join(w.userSkills(), "alpha", "SKILL.md")) {
		t.Errorf("gemini skills list:\n%s", theirs.stdout)
	}
	if ours.stdout != theirs.stdout {
		t.Errorf("gemini-ls skills list:\n%s\nGemini CLI's:\n%s", ours.stdout, theirs.stdout)
	}
	if r := w.gemini("skills", "uninstall", "alpha"); r.code != 0 {
		t.Fatalf("gemini skills uninstall: %s", r.stderr)
	}
	if r := w.ls("skills", "list"); strings.Contains(r.stdout, "alpha") || !strings.Contains(r.stdout, "beta [Enabled]") {
		t.Errorf("after Gemini CLI uninstalled alpha, gemini-ls lists:\n%s", r.stdout)
	}

	// The reverse, in the workspace scope.
	other := skillSource(t, "gamma")
	if r := w.gemini("skills", "install", other, "--scope", "workspace", "--consent"); r.code != 0 {
		t.Fatalf("gemini skills install: %s", r.stderr)
	}
	if r := w.ls("skills", "list"); !strings.Contains(r.stdout, "gamma [Enabled]\n  Description: does gamma\n  Location:    "+filepath.Join(w.dir, ".gemini", "skills", "gamma", "SKILL.md")) {
		t.Errorf("gemini-ls skills list:\n%s", r.stdout)
	}
	r = w.ls("skills", "uninstall", "gamma", "--scope", "workspace")
	if want := "Successfully uninstalled skill: gamma (scope: workspace, location: " + filepath.Join(w.dir, ".gemini", "skills", "gamma") + ")\n"; r.code != 0 || r.stderr != want {
		t.Errorf("gemini-ls skills uninstall: (%d) %q, want %q", r.code, r.stderr, want)
	}
	if r := w.gemini("skills", "list"); strings.Contains(r.stdout, "gamma") {
		t.Errorf("Gemini CLI still lists gamma:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(other, "gamma", "SKILL.md")); err != nil {
		t.Errorf("the source was touched: %v", err)
	}
	// Not installed: 0.61's words, and success.
	ours, theirs = w.ls("skills", "uninstall", "nothing"), w.gemini("skills", "uninstall", "nothing")
	if ours.code != theirs.code || ours.stderr != "Skill \"nothing\" is not installed in the user scope.\n" || !strings.Contains(theirs.stderr, ours.stderr) {
		t.Errorf("uninstalling nothing: gemini-ls (%d) %q; Gemini CLI (%d) %q", ours.code, ours.stderr, theirs.code, theirs.stderr)
	}
}

// TestSkillsEnableDisableSeenByBoth: skills.disabled written by either
// tool is the same bytes and is read by the other.
func TestSkillsEnableDisableSeenByBoth(t *testing.T) {
	t.Parallel()
	ours, theirs := newMgmtWorld(t, true), newMgmtWorld(t, true)
	src := skillSource(t, "alpha", "beta")
	for _, w := range []mgmtWorld{ours, theirs} {
		if r := w.ls("skills", "install", src, "--consent"); r.code != 0 {
			t.Fatal(r.stderr)
		}
		// A settings file of the user's own, with a comment.
		writeFile(t, w.userSettings(), "{\n  // mine\n  \"skills\": {\"disabled\": [\"other\"]}\n}\n")
	}
	steps := [][]string{
		{"skills", "disable", "alpha"},
		{"skills", "disable", "alpha", "--scope", "user"},
		{"skills", "disable", "alpha"},
		{"skills", "disable", "beta", "-s", "user"},
		{"skills", "enable", "alpha"},
		{"skills", "enable", "alpha"},
		{"skills", "disable", "nope", "--scope", "global"},
		{"skills", "enable", "alpha", "--scope", "user"},
	}
	replace := func(s, dir string) string {
		s, _, _ = strings.Cut(s, "\nrun 'gemini-ls") // gemini-ls's pointer to --help, where 0.61 prints its usage
		return strings.ReplaceAll(s, dir, "DIR")
	}
	for _, args := range steps {
		got, want := ours.ls(args...), theirs.gemini(args...)
		if got.code != want.code || !strings.Contains(replace(replace(want.stderr, theirs.dir), theirs.home), strings.TrimSpace(replace(replace(got.stderr, ours.dir), ours.home))) {
			t.Errorf("%v: gemini-ls said (%d)\n%s\nGemini CLI said (%d)\n%s", args, got.code, got.stderr, want.code, want.stderr)
		}
		for _, f := range []func(mgmtWorld) string{mgmtWorld.projectSettings, mgmtWorld.userSettings} {
			a, _ := os.ReadFile(f(ours))
			b, _ := os.ReadFile(f(theirs))
			if string(a) != string(b) {
				t.Errorf("%v: gemini-ls wrote %s\n%s\nGemini CLI wrote\n%s", args, f(ours), a, b)
			}
		}
	}
	// Each reads what the other wrote: beta is disabled in the user's
	// settings by gemini-ls; 0.61 lists it so, and the reverse.
	if r := ours.gemini("skills", "list"); !strings.Contains(r.stdout, "beta [Disabled]") || !strings.Contains(r.stdout, "alpha [Enabled]") {
		t.Errorf("Gemini CLI lists, after gemini-ls's changes:\n%s", r.stdout)
	}
	if r := theirs.ls("skills", "list"); !strings.Contains(r.stdout, "beta [Disabled]") || !strings.Contains(r.stdout, "alpha [Enabled]") {
		t.Errorf("gemini-ls lists, after Gemini CLI's changes:\n%s", r.stdout)
	}
}

// TestSkillsInstallFromGitAndArchive: a git repository over HTTP (the
// git binary's dumb protocol, from a loopback server), with --path, and
// a .skill archive.
func TestSkillsInstallFromGitAndArchive(t *testing.T) {
	t.Parallel()
	sandboxtest.NeedGit(t)
	w := newMgmtWorld(t, true)
	work := filepath.Join(t.TempDir(), "work")
	src := skillSource(t, "fromgit")
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.CopyFS(filepath.Join(work, "skills"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	gitRun(work, "init", "-q")
	gitRun(work, "add", ".")
	gitRun(work, "commit", "-q", "-m", "skills")
	served := t.TempDir()
	gitRun(served, "clone", "-q", "--bare", work, "repo.git")
	// The smart protocol, as a forge speaks it: git's http-backend, as CGI.
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + served, "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(srv.Close)

	r := w.ls("skills", "install", srv.URL+"/repo.git", "--path", "skills", "--consent")
	if r.code != 0 || !strings.Contains(r.stderr, "Cloning skill from "+srv.URL+"/repo.git...") ||
		!strings.Contains(r.stderr, "Successfully installed skill: fromgit (scope: user,") {
		t.Fatalf("install from git: (%d) %s", r.code, r.stderr)
	}
	if r := w.gemini("skills", "list"); !strings.Contains(r.stdout, "fromgit [Enabled]") {
		t.Errorf("Gemini CLI does not list the skill installed from git:\n%s", r.stdout)
	}
	// --path may not leave the clone.
	if r := w.ls("skills", "install", srv.URL+"/repo.git", "--path", "../..", "--consent"); r.code != 1 || !strings.Contains(r.stderr, "Invalid path: Directory traversal not allowed.") {
		t.Errorf("--path ../..: (%d) %s", r.code, r.stderr)
	}

	archive := filepath.Join(t.TempDir(), "packed.skill")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, text := range map[string]string{"packed/SKILL.md": "---\nname: packed\ndescription: from a zip\n---\nBody\n", "packed/notes.txt": "n"} {
		fw, _ := zw.Create(name)
		_, _ = fw.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r := w.ls("skills", "install", archive, "--consent"); r.code != 0 || !strings.Contains(r.stderr, "Extracting skill from "+archive+"...") {
		t.Fatalf("install a .skill: (%d) %s", r.code, r.stderr)
	}
	if r := w.gemini("skills", "list"); !strings.Contains(r.stdout, "packed [Enabled]\n  Description: from a zip") {
		t.Errorf("Gemini CLI does not list the .skill's skill:\n%s", r.stdout)
	}
}

// TestSkillsLink: a linked skill is a link; 0.61 lists it and its
// uninstall removes the link, not the source.
func TestSkillsLink(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	src := skillSource(t, "linked")
	r := w.ls("skills", "link", src, "--consent")
	if r.code != 0 || !strings.HasSuffix(r.stderr, "\nSuccessfully linked skills.\n") {
		t.Fatalf("skills link: (%d) %s", r.code, r.stderr)
	}
	dest := filepath.Join(w.userSkills(), "linked")
	if target, err := os.Readlink(dest); err != nil || target != filepath.Join(src, "linked") {
		t.Fatalf("%s is not a link to the source: %q %v", dest, target, err)
	}
	if r := w.gemini("skills", "list"); !strings.Contains(r.stdout, "linked [Enabled]") {
		t.Errorf("Gemini CLI does not list the linked skill:\n%s", r.stdout)
	}
	if r := w.gemini("skills", "uninstall", "linked"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if _, err := os.Stat(filepath.Join(src, "linked", "SKILL.md")); err != nil {
		t.Errorf("uninstalling the link removed the source: %v", err)
	}
	// gemini-ls's uninstall, too, removes the link alone.
	if r := w.ls("skills", "link", src, "--consent"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := w.ls("skills", "uninstall", "linked"); r.code != 0 || !strings.HasPrefix(r.stderr, "Successfully uninstalled skill: linked") {
		t.Errorf("gemini-ls skills uninstall of a link: (%d) %s", r.code, r.stderr)
	}
	if _, err := os.Lstat(dest); err == nil {
		t.Error("the link is still there")
	}
	if _, err := os.Stat(filepath.Join(src, "linked", "SKILL.md")); err != nil {
		t.Errorf("gemini-ls's uninstall of the link removed the source: %v", err)
	}
	// Two skills of one name cannot both be linked: 0.61's error.
	dup := skillSource(t, "one", "two")
	writeFile(t, filepath.Join(dup, "two", "SKILL.md"), "---\nname: one\ndescription: again\n---\n")
	if r := w.ls("skills", "link", dup, "--consent"); r.code != 1 || !strings.HasPrefix(r.stderr, "Searching for skills in "+dup+"...\nDuplicate skill name \"one\" found at multiple locations:") {
		t.Errorf("duplicate names: (%d) %s", r.code, r.stderr)
	}
}

// TestSkillsInstallConsent: without --consent the user is asked on
// stdin; no, or no answer, installs nothing; an empty line is yes.
func TestSkillsInstallConsent(t *testing.T) {
	t.Parallel()
	w := mgmtWorld{t: t, home: t.TempDir(), dir: t.TempDir()}
	src := skillSource(t, "asked")
	for _, answer := range []string{"n\n", ""} {
		r := w.lsIn(answer, "skills", "install", src)
		if r.code != 1 || r.stdout != "Do you want to continue? [Y/n]: " && r.stdout != "Do you want to continue? [Y/n]: \n" ||
			!strings.Contains(r.stderr, "Installing agent skill(s) from \""+src+"\".") || !strings.HasSuffix(r.stderr, "Skill installation cancelled by user.\n") {
			t.Errorf("answer %q: (%d) stdout %q stderr %s", answer, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(w.userSkills()); err == nil {
			t.Fatalf("answer %q installed the skill", answer)
		}
	}
	if r := w.lsIn("\n", "skills", "install", src); r.code != 0 || !strings.Contains(r.stderr, "Successfully installed skill: asked") {
		t.Errorf("an empty answer: (%d) %s", r.code, r.stderr)
	}
	// Nothing to install: 0.61's words.
	empty := t.TempDir()
	if r := w.ls("skills", "install", empty, "--consent"); r.code != 1 || !strings.HasSuffix(r.stderr, "No valid skills found in "+empty+". Ensure a SKILL.md file exists with valid frontmatter.\n") {
		t.Errorf("an empty source: (%d) %s", r.code, r.stderr)
	}
}

// TestSkillsErrorsAsGeminiCLI: yargs' words and status for bad command
// lines, as 0.61 has them (enable has no --scope, list no positional).
func TestSkillsErrorsAsGeminiCLI(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	for _, args := range [][]string{
		{"skills", "enable", "x", "--scope", "user"},
		{"skills", "enable", "--all"},
		{"skills", "list", "--foo"},
		{"skills", "install"},
		{"skills", "uninstall", "x", "--scope", "project"},
		{"skills", "link", "x", "y"},
	} {
		ours, theirs := w.ls(args...), w.gemini(args...)
		firstLine := func(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }
		if ours.code != theirs.code || firstLine(ours.stderr) != firstLine(theirs.stderr) {
			t.Errorf("%v: gemini-ls said (%d)\n%s\nGemini CLI said (%d)\n%s", args, ours.code, ours.stderr, theirs.code, theirs.stderr)
		}
	}
}
