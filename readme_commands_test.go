package geminils_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// Every shell block in README.md runs, as a reader would type it, in a
// temporary HOME against the fake model: a block marked
// `<!-- docs-test: in the clone -->` at the repository's root (which it
// must leave as it found it), `<!-- docs-test: in the clone, as a dry run
// (make -n)… -->` as `make -n`, an unmarked one in a fresh, empty project
// directory; `<!-- docs-test: skip: REASON -->` is a block nothing here can
// run (an editor, a download), said why. gemini-ls is on PATH, as the
// README's quick start installs it. A shell block in any other language
// or with any other mark fails the test, so none escapes it.
func TestReadmeCommandsRun(t *testing.T) {
	platformtest.UnixShell(t) // the blocks are sh
	platformtest.Tool(t, "go")
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := shellBlocks(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("README.md has no shell block")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute) // a hang guard: the blocks compile, slowly on two loaded cores
	defer cancel()

	bin := t.TempDir()
	env := readmeEnv(t, ctx, bin)
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "gemini-ls"), "./cmd/gemini-ls").CombinedOutput(); err != nil {
		t.Fatalf("building gemini-ls, as the quick start installs it: %v\n%s", err, out)
	}
	ran := 0
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line %d", b.line), func(t *testing.T) {
			var dir string
			script := b.text
			switch {
			case strings.HasPrefix(b.mark, "skip: ") && len(strings.TrimSpace(b.mark)) > len("skip: "):
				t.Logf("not run: %s", b.mark)
				return
			case b.mark == "":
				dir = t.TempDir()
			case b.mark == "in the clone":
				dir = root
			case strings.HasPrefix(b.mark, "in the clone, as a dry run (make -n)"):
				dir = root
				var dry []string
				for _, line := range strings.Split(strings.TrimSpace(script), "\n") {
					rest, ok := strings.CutPrefix(line, "make ")
					if !ok && line != "make" {
						t.Fatalf("a dry-run block runs only make, not %q", line)
					}
					dry = append(dry, "make -n "+rest)
				}
				script = strings.Join(dry, "\n")
			default:
				t.Fatalf("unknown mark %q: say `in the clone`, `in the clone, as a dry run (make -n)…` or `skip: REASON`", b.mark)
			}
			ran++
			before := gitStatus(t, ctx, root)
			srv := fakeModel(t)
			cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
			cmd.Dir = dir
			cmd.Env = append(env, "HOME="+t.TempDir(), "TMPDIR="+t.TempDir(), "GOOGLE_GEMINI_BASE_URL="+srv.URL)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("README.md line %d, in %s:\n%s\nfailed: %v\n%s", b.line, dir, b.text, err, out)
			}
			if err := srv.Err(); err != nil {
				t.Errorf("the fake model: %v", err)
			}
			if after := gitStatus(t, ctx, root); after != before {
				t.Errorf("README.md line %d changed the clone:\nbefore:\n%s\nafter:\n%s", b.line, before, after)
			}
		})
	}
	if ran == 0 {
		t.Error("no block of README.md ran")
	}
}

// readmeBlock is a fenced shell block of README.md: its text, the line of
// its opening fence and the docs-test mark before it ("" when none).
type readmeBlock struct {
	text, mark string
	line       int
}

var (
	fence        = regexp.MustCompile("^(\\s*)```(\\S*)\\s*$")
	docsTestMark = regexp.MustCompile(`^\s*<!-- docs-test: (.*) -->\s*$`)
)

// shellBlocks are readme's fenced sh, bash and shell blocks, dedented as
// a list item indents them. Blocks in other languages (Lua, JSON, Emacs
// Lisp: configuration, run by the editors' tests) are left out; a block
// with no language, or a console one, is an error, since it may hide
// commands.
func shellBlocks(readme string) ([]readmeBlock, error) {
	lines := strings.Split(readme, "\n")
	var blocks []readmeBlock
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, lang, start := m[1], m[2], i
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		if i == len(lines) {
			return nil, fmt.Errorf("line %d: a fence never closed", start+1)
		}
		mark := ""
		if j := previousLine(lines, start); j >= 0 {
			if mm := docsTestMark.FindStringSubmatch(lines[j]); mm != nil {
				mark = mm[1]
			}
		}
		switch lang {
		case "sh", "bash", "shell":
			blocks = append(blocks, readmeBlock{text: strings.Join(body, "\n") + "\n", mark: mark, line: start + 1})
		case "", "console":
			return nil, fmt.Errorf("line %d: a code block with no language or a console one: say sh (and mark it if it cannot run) or its language", start+1)
		default:
			if mark != "" {
				return nil, fmt.Errorf("line %d: a docs-test mark on a %s block, which is not run", start+1, lang)
			}
		}
	}
	return blocks, nil
}

// previousLine is the index of the last non-blank line before i, or -1.
func previousLine(lines []string, i int) int {
	for j := i - 1; j >= 0; j-- {
		if strings.TrimSpace(lines[j]) != "" {
			return j
		}
	}
	return -1
}

// readmeEnv is the environment the blocks run in: this machine's Go, with
// its caches (a temporary HOME must not download modules again, which
// needs the network), bin first on PATH and no other gemini-ls there, and
// none of the user's Gemini or Google settings, so no block reaches a real
// model or needs a key it does not set itself.
func readmeEnv(t *testing.T, ctx context.Context, bin string) []string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	goenv := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(goenv) != 4 {
		t.Fatalf("go env printed %q", out)
	}
	path := []string{bin}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "gemini-ls")); err != nil {
			path = append(path, dir)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "GEMINI_"), strings.HasPrefix(name, "GOOGLE_"), strings.HasPrefix(name, "CLOUD_"),
			name == "HOME", name == "TMPDIR", name == "PATH", name == "GOBIN", name == "XDG_CONFIG_HOME", name == "XDG_CACHE_HOME", name == "XDG_DATA_HOME":
		default:
			env = append(env, kv)
		}
	}
	return append(env, "GOCACHE="+goenv[0], "GOMODCACHE="+goenv[1], "GOPATH="+goenv[2], "GOENV="+goenv[3],
		"GOBIN="+bin, "PATH="+strings.Join(path, string(os.PathListSeparator)))
}

// fakeModel is the Gemini API the blocks talk to: it answers the auto
// model's routing question and every other request with a short answer,
// however many requests a block makes.
func fakeModel(t *testing.T) *geminitest.Server {
	t.Helper()
	srv, err := geminitest.Start(geminitest.Options{Rules: []geminitest.Rule{
		{Contains: "complexity_score", Turn: geminitest.TextTurn(`{"complexity_reasoning": "a README example", "complexity_score": 10}`)},
		{Contains: "", Turn: geminitest.TextTurn("An answer from the fake model.")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// gitStatus is the checkout's `git status --porcelain`.
func gitStatus(t *testing.T, ctx context.Context, root string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain").Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	return string(out)
}
