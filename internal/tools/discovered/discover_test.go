//go:build unix

package discovered

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// testConfig runs testdata's scripts in a fresh root.
func testConfig(t *testing.T) Config {
	t.Helper()
	scripts, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		DiscoveryCommand: "sh " + filepath.Join(scripts, "discover.sh"),
		CallCommand:      filepath.Join(scripts, "call.sh"),
		Dir:              root,
	}
}

func discover(t *testing.T, cfg Config) map[string]tools.Tool {
	t.Helper()
	found, err := Discover(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	byName := map[string]tools.Tool{}
	for _, tool := range found {
		byName[tool.Name()] = tool
	}
	return byName
}

func TestDiscoverReadsEveryForm(t *testing.T) {
	cfg := testConfig(t)
	found, err := Discover(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range found {
		names = append(names, tool.Name())
	}
	want := []string{"discovered_tool_echo", "discovered_tool_fail", "discovered_tool_killed", "discovered_tool_hang", "discovered_tool_warn"}
	if !slices.Equal(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}

	echo := found[0].Declaration()
	schema, _ := json.Marshal(echo.ParametersJsonSchema)
	// wait_for_previous declared as Gemini CLI 0.61 declares it.
	if want := `{"properties":{"count":{"type":"integer"},"text":{"type":"string"},"wait_for_previous":{"description":"Set to true to wait for all previously requested tools in this turn to complete before starting. Set to false (or omit) to run in parallel. Use true when this tool depends on the output of previous tools.","type":"boolean"}},"required":["text"],"type":"object"}`; string(schema) != want {
		t.Errorf("echo's parametersJsonSchema = %s, want %s", schema, want)
	}
	if !strings.HasPrefix(echo.Description, "Returns its arguments and the directory it ran in.\n\nThis tool was discovered from the project by executing the command `"+cfg.DiscoveryCommand+"` on project root.\nWhen called, this tool will execute the command `"+cfg.CallCommand+" echo` on project root.") {
		t.Errorf("echo's description = %q", echo.Description)
	}
	fail := found[1].Declaration()
	if fail.Parameters == nil || fail.Parameters.Type != genai.TypeObject || fail.Parameters.Properties["why"].Type != genai.TypeString || fail.ParametersJsonSchema != nil {
		t.Errorf("fail's declaration = %+v, want its parameters schema passed as parameters", fail)
	}
	if killed := found[2].Declaration(); killed.Parameters != nil || killed.ParametersJsonSchema != nil {
		t.Errorf("killed declares no parameters, got %+v", killed)
	}
}

func TestCallRunsTheCallCommandInTheRoot(t *testing.T) {
	cfg := testConfig(t)
	echo := discover(t, cfg)["discovered_tool_echo"]
	call, err := echo.Build(map[string]any{"text": "hi \"there\"", "count": 2.0, "wait_for_previous": true})
	if err != nil {
		t.Fatal(err)
	}
	conf := call.Confirmation()
	if conf == nil || conf.Kind != "execute" || !slices.Equal(conf.AllowKeys, []string{tools.ToolKey("discovered_tool_echo")}) ||
		conf.Details != cfg.CallCommand+" echo\n"+`{"count":2,"text":"hi \"there\"","wait_for_previous":true}` {
		t.Errorf("Confirmation = %+v", conf)
	}
	res, err := call.Execute(context.Background(), tools.CallInfo{})
	if err != nil || res.Error != "" {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	var got struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
		Dir  string         `json:"dir"`
	}
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil {
		t.Fatalf("output %q: %v", res.Output, err)
	}
	if got.Tool != "echo" || got.Args["text"] != `hi "there"` || got.Args["count"] != 2.0 || got.Args["wait_for_previous"] != true || got.Dir != cfg.Dir {
		t.Errorf("the call command saw %+v, want tool echo, the arguments on stdin (wait_for_previous too, as Gemini CLI 0.61 passes it), run in %s", got, cfg.Dir)
	}
}

func TestCallChecksArguments(t *testing.T) {
	found := discover(t, testConfig(t))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"discovered_tool_echo", map[string]any{}, "params must have required property 'text'"},
		{"discovered_tool_echo", map[string]any{"text": 1.0}, "params/text must be string"},
		{"discovered_tool_echo", map[string]any{"text": "x", "count": 1.5}, "params/count must be integer"},
		{"discovered_tool_fail", map[string]any{"why": true}, "params/why must be string"},
		{"discovered_tool_echo", map[string]any{"text": "x", "wait_for_previous": "yes"}, "params/wait_for_previous must be boolean"},
	} {
		_, err := found[c.tool].Build(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s.Build(%v) error = %v, want %q", c.tool, c.args, err, c.want)
		}
	}
}

func TestCallFailureReportsEverything(t *testing.T) {
	found := discover(t, testConfig(t))
	run := func(name string) tools.Result {
		call, err := found[name].Build(nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Execute(context.Background(), tools.CallInfo{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("discovered_tool_fail")
	want := "Stdout: partial output\n\nStderr: it broke\n\nError: (none)\nExit Code: 3\nSignal: (none)"
	if res.Error != want || res.Status != dialog.StatusError {
		t.Errorf("fail: Error =\n%s\nwant\n%s", res.Error, want)
	}
	// Output on stderr is a failure even with exit status 0, as in Gemini CLI.
	res = run("discovered_tool_warn")
	if want := "Stdout: {\"ok\": true}\n\nStderr: deprecated\n\nError: (none)\nExit Code: 0\nSignal: (none)"; res.Error != want {
		t.Errorf("warn: Error =\n%s\nwant\n%s", res.Error, want)
	}
	res = run("discovered_tool_killed")
	if want := "Stdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: (none)\nSignal: SIGKILL"; res.Error != want {
		t.Errorf("killed: Error =\n%s\nwant\n%s", res.Error, want)
	}
}

func TestCallCommandThatDoesNotExist(t *testing.T) {
	cfg := testConfig(t)
	cfg.CallCommand = filepath.Join(cfg.Dir, "no-such-command")
	call, err := discover(t, cfg)["discovered_tool_killed"].Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Execute(context.Background(), tools.CallInfo{})
	if err != nil || !strings.Contains(res.Error, "Error: fork/exec "+cfg.CallCommand+": no such file or directory\nExit Code: (none)") {
		t.Errorf("Execute = %+v, %v", res, err)
	}
}

// waitGone waits until the process whose pid a command wrote to pidFile
// has ended, failing after a deadline.
func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	spawntest.WaitGone(t, spawntest.PID(t, pidFile))
}

func TestCancelKillsTheCallsChildren(t *testing.T) {
	cfg := testConfig(t)
	call, err := discover(t, cfg)["discovered_tool_hang"].Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := call.Execute(ctx, tools.CallInfo{}); done <- err }()
	pidFile := filepath.Join(cfg.Dir, "hang.pid")
	spawntest.PID(t, pidFile)
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Execute error = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Execute did not return after cancel")
	}
	waitGone(t, pidFile)
}

func TestCallTimeout(t *testing.T) {
	cfg := testConfig(t)
	cfg.CallTimeout = 200 * time.Millisecond
	call, err := discover(t, cfg)["discovered_tool_hang"].Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Execute(context.Background(), tools.CallInfo{})
	if err != nil || !strings.Contains(res.Error, "Error: Command timed out after 200ms and was killed.\nExit Code: (none)\nSignal: SIGKILL") {
		t.Errorf("Execute = %+v, %v", res, err)
	}
	waitGone(t, filepath.Join(cfg.Dir, "hang.pid"))
}

// TestCallLeavesNothingRunning: a call command that fails, or exits
// leaving a child that holds its output, has its process group killed,
// and the model is told how it ended.
func TestCallLeavesNothingRunning(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"output held", "sleep 300 & echo $! > child.pid; echo '{}'",
			"Error: The command exited leaving a process that held its output open, which was killed.\nExit Code: 0\nSignal: (none)"},
		{"failed", "sleep 300 >/dev/null 2>&1 & echo $! > child.pid; exit 3", "Error: (none)\nExit Code: 3\nSignal: (none)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.CallCommand = script(t, cfg.Dir, c.body)
			call, err := discover(t, cfg)["discovered_tool_echo"].Build(map[string]any{"text": "x"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := call.Execute(context.Background(), tools.CallInfo{})
			if err != nil || res.Status != dialog.StatusError || !strings.Contains(res.Error, c.want) {
				t.Errorf("Execute = %+v, %v; want an error saying %q", res, err, c.want)
			}
			waitGone(t, filepath.Join(cfg.Dir, "child.pid"))
		})
	}
}

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "script.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiscoveryFailures(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"exit status", "echo 'no config here' >&2; exit 4", "it failed with exit code 4: no config here"},
		{"not JSON", "echo hello", "it did not print a JSON array of tools"},
		{"a JSON string", `echo '"tools"'`, "it did not print a JSON array of tools"},
		{"killed by a signal", "kill -9 $$", "it was killed by SIGKILL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.DiscoveryCommand = script(t, cfg.Dir, c.body)
			found, err := Discover(context.Background(), cfg)
			if len(found) != 0 || err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), cfg.DiscoveryCommand) {
				t.Errorf("Discover = %v, %v; want no tools and an error naming the command and %q", found, err, c.want)
			}
		})
	}
}

func TestDiscoveryTimeout(t *testing.T) {
	cfg := testConfig(t)
	cfg.DiscoveryCommand = script(t, cfg.Dir, "sleep 300 & echo $! > hang.pid; wait")
	cfg.DiscoveryTimeout = 200 * time.Millisecond
	found, err := Discover(context.Background(), cfg)
	if len(found) != 0 || err == nil || !strings.Contains(err.Error(), "did not finish within 200ms") {
		t.Errorf("Discover = %v, %v", found, err)
	}
	waitGone(t, filepath.Join(cfg.Dir, "hang.pid"))
}

// TestDiscoveryLeavesNothingRunning: a discovery command that fails, or
// exits leaving a child that holds its output, has its process group
// killed and discovers nothing.
func TestDiscoveryLeavesNothingRunning(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"output held", "sleep 300 & echo $! > child.pid; echo '[]'", "it exited leaving a process that held its output open, which was killed"},
		{"failed", "sleep 300 >/dev/null 2>&1 & echo $! > child.pid; exit 3", "it failed with exit code 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.DiscoveryCommand = script(t, cfg.Dir, c.body)
			found, err := Discover(context.Background(), cfg)
			if len(found) != 0 || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Discover = %v, %v; want an error saying %q", found, err, c.want)
			}
			waitGone(t, filepath.Join(cfg.Dir, "child.pid"))
		})
	}
}

func TestDiscoveryLeavesOutBadDeclarations(t *testing.T) {
	cfg := testConfig(t)
	cfg.DiscoveryCommand = script(t, cfg.Dir, `cat <<'EOF'
[{"name": "ok", "description": "first"},
 {"description": "no name"},
 {"name": "has space"},
 {"name": "`+strings.Repeat("x", 60)+`"},
 {"name": "bad_params", "parameters": {"type": 3}},
 {"name": "ok", "description": "second"},
 "not an object"]
EOF`)
	found, err := Discover(context.Background(), cfg)
	if len(found) != 1 || found[0].Name() != "discovered_tool_ok" || !strings.HasPrefix(found[0].Declaration().Description, "second") {
		t.Errorf("found %v, want the last ok only", found)
	}
	for _, want := range []string{"a tool without a name", `tool "has space" was left out`, `tool "xxxx`, `tool "bad_params" was left out`, `tool "ok" is declared more than once`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
}

func TestDiscoveryAcceptsAWrapperObject(t *testing.T) {
	cfg := testConfig(t)
	cfg.DiscoveryCommand = script(t, cfg.Dir, `echo '{"functionDeclarations": [{"name": "one"}]}'`)
	found, err := Discover(context.Background(), cfg)
	if err != nil || len(found) != 1 || found[0].Name() != "discovered_tool_one" {
		t.Errorf("Discover = %v, %v", found, err)
	}
}

// The commands are split into words, never run by a shell.
func TestCommandsAreNotShellLines(t *testing.T) {
	cfg := testConfig(t)
	marker := filepath.Join(cfg.Dir, "ran")
	for _, command := range []string{"echo $(touch " + marker + ")", "echo x; touch " + marker, "echo `touch " + marker + "`"} {
		cfg.DiscoveryCommand = command
		if found, err := Discover(context.Background(), cfg); len(found) != 0 || err == nil {
			t.Errorf("Discover(%q) = %v, %v; want it refused", command, found, err)
		}
	}
	cfg = testConfig(t)
	cfg.CallCommand = "sh -c 'touch " + marker + "' | cat"
	if found, err := Discover(context.Background(), cfg); len(found) != 0 || err == nil || !strings.Contains(err.Error(), "tools.callCommand") {
		t.Errorf("Discover with a call command line = %v, %v; want it refused", found, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command line ran through a shell")
	}
}

// noGitHubActions keeps the test's environment from being a GitHub
// Actions run, which 0.61's rules sanitize strictly whatever the setting.
func noGitHubActions(t *testing.T) {
	t.Setenv("GITHUB_SHA", "")
	t.Setenv("SURFACE", "")
}

// With security.environmentVariableRedaction on, a call does not get
// what may hold a secret in gemini-ls's environment, as in 0.61.
func TestCallEnvironmentRedacted(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "secret")
	t.Setenv("PLAIN_VAR", "plain")
	noGitHubActions(t)
	discovery := "sh " + script(t, t.TempDir(), `echo '[{"name": "env", "description": "Prints two variables."}]'`)
	callCommand := script(t, t.TempDir(), `echo "[$GEMINI_API_KEY][$PLAIN_VAR]"`)
	for _, enabled := range []bool{false, true} {
		cfg := Config{
			DiscoveryCommand: discovery,
			CallCommand:      callCommand,
			Dir:              t.TempDir(),
			Redaction:        envredact.Policy{Enabled: enabled},
		}
		call, err := discover(t, cfg)["discovered_tool_env"].Build(map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Execute(t.Context(), tools.CallInfo{})
		want := "[secret][plain]\n"
		if enabled {
			want = "[][plain]\n"
		}
		if err != nil || res.Output != want {
			t.Errorf("enabled %v: %+v %v, want output %q", enabled, res, err, want)
		}
	}
}
