package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// fatalCase is a run that fails before its prompt runs: the settings of
// its home, the environment it adds, its arguments.
type fatalCase struct {
	name     string
	settings string
	env      []string
	args     []string
	trusted  bool
	code     int
}

// fatalCases are failures Gemini CLI 0.61 says only on stderr, with the
// formats that ask for JSON; the first is its json-output test's "auth
// mismatch", whose JSON error object goes to stderr.
func fatalCases() []fatalCase {
	return []fatalCase{
		{name: "auth mismatch, json", settings: `{"security": {"auth": {"enforcedType": "gemini-api-key", "selectedType": ""}}}`,
			env: []string{"GOOGLE_GENAI_USE_GCA=true"}, args: []string{"-p", "Hello", "--output-format", "json"}, trusted: true, code: exitAuth},
		{name: "no credentials, stream-json", settings: `{}`, args: []string{"-p", "Hello", "-o", "stream-json"}, trusted: true, code: exitAuth},
		{name: "untrusted, json", settings: `{"security": {"folderTrust": {"enabled": true}}}`,
			env: []string{"GEMINI_API_KEY=unused"}, args: []string{"-p", "Hello", "-o", "json"}, code: exitUntrusted},
		{name: "no input, json", settings: `{}`, env: []string{"GEMINI_API_KEY=unused"}, args: []string{"-o", "json"}, trusted: true, code: exitInput},
	}
}

// fatalRun is how one program ended.
type fatalRun struct {
	code           int
	stdout, stderr string
}

// runFatal runs cmd, which must end.
func runFatal(t *testing.T, cmd *exec.Cmd) fatalRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	return fatalRun{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// errorObject is the JSON object stderr holds, decoded into maps; nil
// when it holds none.
func errorObject(stderr string) map[string]any {
	i := strings.Index(stderr, "{\n  \"")
	if i < 0 {
		return nil
	}
	var obj map[string]any
	if json.NewDecoder(strings.NewReader(stderr[i:])).Decode(&obj) != nil {
		return nil
	}
	return obj
}

// keysOf are obj's keys, and its objects' as "key.key".
func keysOf(obj map[string]any) []string {
	var keys []string
	for k, v := range obj {
		keys = append(keys, k)
		if inner, ok := v.(map[string]any); ok {
			for _, ik := range keysOf(inner) {
				keys = append(keys, k+"."+ik)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// A run that fails before its prompt writes nothing on stdout, whatever
// the format, and exits as Gemini CLI 0.61 does; without credentials
// under -o json, stderr has 0.61's error object: the same keys, type
// "Error", code 41, a session id, the enforced type's sentence.
func TestFatalErrorsWhereGeminiCLISaysThem(t *testing.T) {
	for _, tc := range fatalCases() {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			if p, err := filepath.EvalSymlinks(project); err == nil {
				project = p
			}
			home := func() string {
				home := t.TempDir()
				if tc.trusted {
					trustFolder(t, home, project)
				}
				writeFiles(t, home, map[string]string{".gemini/settings.json": tc.settings})
				return home
			}
			cli := geminicli.Command(t, home(), project, "", tc.args...)
			cli.Env = append(cli.Env, tc.env...)
			theirs := runFatal(t, cli)

			ls := exec.Command(binary, append([]string{"run"}, tc.args...)...)
			ls.Dir = project
			ls.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home(), "XDG_CACHE_HOME=" + t.TempDir()}, tc.env...)
			ours := runFatal(t, ls)

			if theirs.code != tc.code || ours.code != tc.code {
				t.Errorf("exit: 0.61 %d, gemini-ls %d, want %d\n0.61's stderr:\n%s\ngemini-ls's stderr:\n%s", theirs.code, ours.code, tc.code, theirs.stderr, ours.stderr)
			}
			if theirs.stdout != "" || ours.stdout != "" {
				t.Errorf("stdout: 0.61 %q, gemini-ls %q; want nothing", theirs.stdout, ours.stdout)
			}
			want, got := errorObject(theirs.stderr), errorObject(ours.stderr)
			if !reflect.DeepEqual(keysOf(want), keysOf(got)) {
				t.Fatalf("stderr's JSON: 0.61's keys %q, gemini-ls's %q\n0.61:\n%s\ngemini-ls:\n%s", keysOf(want), keysOf(got), theirs.stderr, ours.stderr)
			}
			if want == nil {
				return
			}
			e, _ := got["error"].(map[string]any)
			id, _ := got["session_id"].(string)
			msg, _ := e["message"].(string)
			if e["type"] != "Error" || e["code"] != float64(exitAuth) || id == "" ||
				!strings.Contains(msg, "enforced authentication type is 'gemini-api-key'") || !strings.Contains(msg, "current type is 'oauth-personal'") {
				t.Errorf("gemini-ls's error object: %v", got)
			}
		})
	}
}

// A prompt that fails before the model is asked (an unknown command) ends
// as 0.61's handleError ends one: under json its error object on stderr,
// with the session's id and the FatalInputError's type and status, and
// nothing on stdout; under stream-json a result of status error on
// stdout, after the run's init.
func TestPromptFailureWhereGeminiCLISaysIt(t *testing.T) {
	h := newHeadless(t, nil)
	r := h.run("run", "-o", "json", "-p", "/nosuch thing")
	r.wantExit(t, exitInput)
	obj := errorObject(r.stderr)
	e, _ := obj["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if r.stdout != "" || obj == nil || obj["session_id"] == "" || e["type"] != "FatalInputError" || e["code"] != float64(exitInput) || !strings.Contains(msg, "/nosuch is not a command") {
		t.Errorf("-o json: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	r = h.run("run", "-o", "stream-json", "-p", "/nosuch thing")
	r.wantExit(t, exitInput)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var first, last struct {
		Type, Status string
		Error        struct{ Type, Message string }
	}
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil ||
		first.Type != "init" || last.Type != "result" || last.Status != "error" || last.Error.Type != "FatalInputError" {
		t.Errorf("-o stream-json: stdout %q", r.stdout)
	}
	contains(t, "stderr", r.stderr, "/nosuch is not a command")
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}
