package packaging

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// releaseEnv names the tag's version in the release workflow: the one
// source at release, which must then be the one committed too.
const releaseEnv = "GEMINI_LS_RELEASE"

// sourceVersion is the one version source outside a release:
// cmd/gemini-ls/version.go's nextVersion, X.Y.Z.
func sourceVersion(t *testing.T) string {
	t.Helper()
	path := filepath.Join(repoRoot, "cmd", "gemini-ls", "version.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var v string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if name.Name == "nextVersion" && i < len(spec.Values) {
				if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ = strconv.Unquote(lit.Value)
				}
			}
		}
		return true
	})
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("%s: nextVersion is %q, not X.Y.Z", path, v)
	}
	return v
}

// versionErrors is where the editor packages and registry files in the
// checkout fsys name a version other than want, or none where they
// should.
func versionErrors(fsys fs.FS, want string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	read := func(path string) []byte {
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			fail("%v", err)
		}
		return data
	}
	// found is every X.Y.Z named, by where it is written.
	found := map[string][]string{}
	// each adds every first group of re in path's text, and at least one.
	each := func(path, re string) {
		ms := regexp.MustCompile(re).FindAllSubmatch(read(path), -1)
		if len(ms) == 0 {
			fail("%s: nothing matches %s", path, re)
		}
		for _, m := range ms {
			found[path] = append(found[path], string(m[1]))
		}
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(read("editors/vscode/package.json"), &pkg); err != nil {
		fail("editors/vscode/package.json: %v", err)
	}
	found["editors/vscode/package.json"] = []string{pkg.Version}
	var lock struct {
		Version  string `json:"version"`
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(read("editors/vscode/package-lock.json"), &lock); err != nil {
		fail("editors/vscode/package-lock.json: %v", err)
	}
	found["editors/vscode/package-lock.json"] = []string{lock.Version, lock.Packages[""].Version}
	each("editors/emacs/gemini-ls.el", `(?m)^;; Version: (\S*)$`)
	each("editors/nvim/lua/gemini/init.lua", `(?m)^M\.version = "([^"]*)"$`)
	var entry struct {
		Version      string `json:"version"`
		Distribution struct {
			Binary map[string]struct {
				Archive string `json:"archive"`
			} `json:"binary"`
		} `json:"distribution"`
	}
	agent := "packaging/acp-registry/gemini-ls/agent.json"
	if err := json.Unmarshal(read(agent), &entry); err != nil {
		fail("%s: %v", agent, err)
	}
	found[agent] = []string{entry.Version}
	for name, b := range entry.Distribution.Binary {
		m := regexp.MustCompile(`/releases/download/v([^/]*)/`).FindStringSubmatch(b.Archive)
		if m == nil {
			fail("%s: %s's archive %s is not a release download", agent, name, b.Archive)
			continue
		}
		found[agent] = append(found[agent], m[1])
	}
	each("packaging/mason/package.yaml", `(?m)^  id: pkg:github/gemini-ls/gemini-ls@v(\S*)$`)
	// The action installs its own release's server by default, and the
	// workflow /setup-github writes uses the action of the server writing it.
	each("action.yml", `(?m)^  version:\n(?:    .*\n)*?    default: "([^"]*)"$`)
	each(workflowTemplate, `(?m)uses: gemini-ls/gemini-ls@v(\S*)$`)

	for path, vs := range found {
		for _, v := range vs {
			if v != want {
				fail("%s names version %q, not %s (cmd/gemini-ls/version.go's nextVersion)", path, v, want)
			}
		}
	}
	return errs
}

// TestOneVersion: every editor package and registry file names the one
// version (the tag's at release, GEMINI_LS_RELEASE; nextVersion else).
// The server's --version, serverInfo and agentInfo are checked against it
// by TestRegistries, which builds the server (serverVersionErrors).
func TestOneVersion(t *testing.T) {
	want := sourceVersion(t)
	if tag := os.Getenv(releaseEnv); tag != "" && tag != want {
		t.Fatalf("releasing %s, but cmd/gemini-ls/version.go's nextVersion is %s: name the release everywhere first (docs/releasing.md)", tag, want)
	}
	for _, err := range versionErrors(os.DirFS(repoRoot), want) {
		t.Error(err)
	}
}

// TestOneVersionMutations feeds versionErrors checkouts where one file
// names another version, or none.
func TestOneVersionMutations(t *testing.T) {
	want := sourceVersion(t)
	paths := []string{
		"editors/vscode/package.json",
		"editors/vscode/package-lock.json",
		"editors/emacs/gemini-ls.el",
		"editors/nvim/lua/gemini/init.lua",
		"packaging/acp-registry/gemini-ls/agent.json",
		"packaging/mason/package.yaml",
		"action.yml",
		workflowTemplate,
	}
	good := filesUnder(t, repoRoot, paths...)
	validate := func(fsys fstest.MapFS) []string { return versionErrors(fsys, want) }
	other := "9.9.9"
	// lockOwn leads packages[""].version, the lock's own package's.
	lockOwn := "\"\": {\n      \"name\": \"gemini-ls\",\n      \"version\": \""
	testMutations(t, good, validate, []mutation[fstest.MapFS]{
		{"package.json", edit(paths[0], `"version": "`+want+`"`, `"version": "`+other+`"`),
			paths[0] + ` names version "` + other + `"`},
		{"package-lock.json", edit(paths[1], `"version": "`+want+`"`, `"version": "`+other+`"`),
			paths[1] + ` names version "` + other + `"`},
		{"package-lock.json's own package", edit(paths[1], lockOwn+want, lockOwn+other), paths[1] + ` names version "` + other + `"`},
		{"gemini-ls.el", edit(paths[2], ";; Version: "+want, ";; Version: "+other), paths[2] + ` names version "` + other + `"`},
		{"gemini-ls.el without a Version", edit(paths[2], ";; Version: ", ";; Package-Version: "), paths[2] + ": nothing matches"},
		{"init.lua", edit(paths[3], `M.version = "`+want+`"`, `M.version = "`+other+`"`), paths[3] + ` names version "` + other + `"`},
		{"agent.json", edit(paths[4], `"version": "`+want+`"`, `"version": "`+other+`"`), paths[4] + ` names version "` + other + `"`},
		{"agent.json's archive", edit(paths[4], "/download/v"+want+"/", "/download/v"+other+"/"),
			paths[4] + ` names version "` + other + `"`},
		{"agent.json's archive of no release", edit(paths[4], "/releases/download/v"+want+"/", "/archive/"),
			"is not a release download"},
		{"package.yaml", edit(paths[5], "@v"+want+"\n", "@v"+other+"\n"), paths[5] + ` names version "` + other + `"`},
		{"action.yml", edit(paths[6], `default: "`+want+`"`, `default: "`+other+`"`), paths[6] + ` names version "` + other + `"`},
		{"action.yml without a version", edit(paths[6], "  version:\n", "  release:\n"), paths[6] + ": nothing matches"},
		{"the workflow template", edit(paths[7], "gemini-ls/gemini-ls@v"+want+"\n", "gemini-ls/gemini-ls@v"+other+"\n"),
			paths[7] + ` names version "` + other + `"`},
	})
}

// serverVersionErrors: the built server's --version and LSP
// serverInfo.version name the version its ACP agentInfo does (reported),
// and that is the one version, with -dev when unstamped. TestRegistries
// runs it on the server it builds.
func serverVersionErrors(t *testing.T, exe, reported string) []string {
	t.Helper()
	var errs []string
	if want := sourceVersion(t); reported != want && reported != want+"-dev" {
		errs = append(errs, fmt.Sprintf("ACP agentInfo.version is %q, not %s nor %s-dev", reported, want, want))
	}
	out, err := exec.Command(exe, "--version").Output()
	if err != nil {
		errs = append(errs, fmt.Sprintf("gemini-ls --version: %v", err))
	} else if line := strings.TrimSpace(string(out)); line != "gemini-ls "+reported && !strings.HasPrefix(line, "gemini-ls "+reported+" (") {
		errs = append(errs, fmt.Sprintf("--version says %q, agentInfo.version %q", line, reported))
	}
	if v := lspServerVersion(t, exe); v != reported {
		errs = append(errs, fmt.Sprintf("LSP serverInfo.version is %q, agentInfo.version %q", v, reported))
	}
	return errs
}

// lspServerVersion starts `exe serve`, as the editors do, and returns the
// serverInfo.version of its answer to initialize.
func lspServerVersion(t *testing.T, exe string) string {
	t.Helper()
	stdin, stdout, stderr := startPiped(t, exe, []string{"serve"}, t.TempDir())
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for {
		// Messages before the answer (log, notifications) are skipped.
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the answer to initialize: %v\nstderr:\n%s", err, stderr.String())
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		if length < 0 {
			t.Fatal("a message without Content-Length")
		}
		msg := make([]byte, length)
		if _, err := io.ReadFull(r, msg); err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				ServerInfo struct {
					Version string `json:"version"`
				} `json:"serverInfo"`
			} `json:"result"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, msg)
		}
		if string(m.ID) == "1" {
			return m.Result.ServerInfo.Version
		}
	}
}
