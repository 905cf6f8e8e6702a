package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Gemini CLI 0.61's global flag, -d/--debug, may come before a command
// as after it, as its yargs takes it: the command runs, and its name is
// never sent to the model as a prompt. Each command is run with the flag
// in front; the fake model has no turn, so a prompt sent fails the test.
func TestGlobalFlagBeforeEachCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		// check runs the command with flag before it and says what is
		// wrong with the outcome, "" for nothing.
		check func(t *testing.T, h *headless, flag string) string
	}{
		{"run", checkRunAfterFlag},
		{"serve", checkServerAfterFlag("serve", "serving LSP on stdio")},
		{"acp", checkServerAfterFlag("acp", "serving ACP on stdio")},
		{"login", checkHelpAfterFlag("login")},
		{"trust", checkTrustAfterFlag},
		{"mcp", checkMCPAfterFlag},
		{"extensions", checkExtensionsAfterFlag},
		{"skills", checkSkillsAfterFlag},
		{"version", checkOutputAfterFlag([]string{"version"}, "gemini-ls ")},
		{"help", checkOutputAfterFlag([]string{"help"}, "Usage: gemini-ls [options] [command]")},
	} {
		for _, flag := range []string{"--debug", "-d"} {
			t.Run(tc.name+" "+flag, func(t *testing.T) {
				// One attempt: a command taken for a prompt fails at once.
				h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"maxAttempts": 1}}`})
				if what := tc.check(t, h, flag); what != "" {
					t.Error(what)
				}
				if n := len(h.model.Requests()); n > 0 && tc.name != "run" {
					t.Errorf("%s %s sent the model %d requests: the command was taken for a prompt", flag, tc.name, n)
				}
			})
		}
	}
}

// The brief's own case, and the flag after the command and between a
// group and its command.
func TestGlobalFlagAnywhereInExtensions(t *testing.T) {
	for _, args := range [][]string{
		{"extensions", "list", "--debug"},
		{"extensions", "--debug", "list"},
		{"-d", "extensions", "list", "-d"},
	} {
		h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"maxAttempts": 1}}`})
		r := h.run(args...)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "No extensions installed.") || strings.Contains(r.stderr, "Unknown argument") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func checkRunAfterFlag(t *testing.T, h *headless, flag string) string {
	h.model.Push(geminitest.TextTurn("hi back"))
	r := h.run(flag, "run", "-p", "hello")
	if r.code != 0 || r.stdout != "hi back\n" {
		return "run: exit " + strconv.Itoa(r.code) + ", stdout " + r.stdout + ", stderr " + r.stderr
	}
	if reqs := h.model.Requests(); len(reqs) != 1 || lastUserText(t, reqs, 0) != "hello" {
		return "run did not send the model its prompt, once"
	}
	return ""
}

// checkServerAfterFlag runs a protocol server (serve, acp) with no
// client: the flag has it log on stderr, as run's does, where it says it
// serves, and it ends.
func checkServerAfterFlag(command, serving string) func(*testing.T, *headless, string) string {
	return func(t *testing.T, h *headless, flag string) string {
		r := h.runWith(h.root, h.env, strings.NewReader(""), flag, command)
		if !strings.Contains(r.stderr, `"msg":"`+serving+`"`) {
			return command + ": its log on stderr does not say it served: " + r.stderr
		}
		return ""
	}
}

func checkHelpAfterFlag(command string) func(*testing.T, *headless, string) string {
	return func(t *testing.T, h *headless, flag string) string {
		r := h.run(flag, command, "--help")
		if r.code != 0 || !strings.HasPrefix(r.stderr, "Usage: gemini-ls "+command) {
			return command + " --help: exit " + strconv.Itoa(r.code) + ", stderr " + r.stderr
		}
		return ""
	}
}

func checkOutputAfterFlag(args []string, start string) func(*testing.T, *headless, string) string {
	return func(t *testing.T, h *headless, flag string) string {
		r := h.run(append([]string{flag}, args...)...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, start) {
			return strings.Join(args, " ") + ": exit " + strconv.Itoa(r.code) + ", stdout " + r.stdout + ", stderr " + r.stderr
		}
		return ""
	}
}

func checkTrustAfterFlag(t *testing.T, h *headless, flag string) string {
	dir := t.TempDir()
	r := h.run(flag, "trust", dir)
	data, _ := os.ReadFile(filepath.Join(envValue(h.env, "HOME"), ".gemini", "trustedFolders.json"))
	if r.code != 0 || !strings.Contains(string(data), filepath.Base(dir)) {
		return "trust: exit " + strconv.Itoa(r.code) + ", stderr " + r.stderr + ", trustedFolders.json " + string(data)
	}
	return ""
}

func checkMCPAfterFlag(t *testing.T, h *headless, flag string) string {
	r := h.run(flag, "mcp", "add", "-s", "project", "tools", "node", "server.js")
	settings := h.disk(".gemini/settings.json")
	if r.code != 0 || !strings.Contains(settings, `"tools"`) || !strings.Contains(settings, "server.js") {
		return "mcp add: exit " + strconv.Itoa(r.code) + ", stderr " + r.stderr + ", settings " + settings
	}
	return ""
}

func checkExtensionsAfterFlag(t *testing.T, h *headless, flag string) string {
	src, _ := greeterSource(t, "1.0.0")
	home := envValue(h.env, "HOME")
	writeFiles(t, home, map[string]string{".gemini/trustedFolders.json": `{"` + h.root + `": "TRUST_FOLDER", "` + src + `": "TRUST_FOLDER"}`})
	r := h.run(flag, "extensions", "install", src, "--consent")
	if _, err := os.Stat(filepath.Join(home, ".gemini", "extensions", "greeter", "gemini-extension.json")); r.code != 0 || err != nil {
		return "extensions install: exit " + strconv.Itoa(r.code) + ", stderr " + r.stderr
	}
	return ""
}

func checkSkillsAfterFlag(t *testing.T, h *headless, flag string) string {
	writeFiles(t, h.root, map[string]string{".gemini/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: tidies up\n---\nTidy.\n"})
	r := h.run(flag, "skills", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "tidy") {
		return "skills list: exit " + strconv.Itoa(r.code) + ", stdout " + r.stdout + ", stderr " + r.stderr
	}
	return ""
}
