package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/hooks"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
)

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runner runs hooks for event in project, each with its matcher.
func runner(t *testing.T, project string, event string, defs ...settings.HookDefinition) *hooks.Runner {
	t.Helper()
	r, problems := hooks.New(hooks.Config{
		Sources:    []hooks.Source{{Name: "settings", Hooks: settings.Hooks{event: defs}}},
		ProjectDir: project,
	})
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	return r
}

func command(cmd string, timeoutMS float64) settings.HookCommand {
	return settings.HookCommand{Type: "command", Command: cmd, Timeout: timeoutMS}
}

func def(matcher string, cmds ...settings.HookCommand) settings.HookDefinition {
	return settings.HookDefinition{Matcher: matcher, Hooks: cmds}
}

// fire fires ev with a generous hang guard.
func fire(t *testing.T, r *hooks.Runner, ev agent.HookEvent) agent.HookOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := r.Fire(ctx, ev)
	if ctx.Err() != nil {
		t.Fatal("the hooks outlived the hang guard")
	}
	return out
}

func beforeTool(name string, args map[string]any) agent.HookEvent {
	return agent.HookEvent{Name: agent.HookBeforeTool, SessionID: "s-1", TranscriptPath: "/tmp/s-1.jsonl", Target: name,
		Input: map[string]any{"tool_name": name, "tool_input": args}}
}

// TestInputAndEnvironment: a hook reads Gemini CLI's JSON input on stdin,
// runs in the project with the GEMINI_ variables set, and $GEMINI_PROJECT_DIR
// in its command is the project, quoted.
func TestInputAndEnvironment(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	project := filepath.Join(t.TempDir(), "my project")
	if err := os.MkdirAll(filepath.Join(project, ".gemini", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, filepath.Join(project, ".gemini", "hooks"), "dump.sh", `cat > input.json
printf '%s\n%s\n%s\n%s\n%s\n' "$GEMINI_PROJECT_DIR" "$GEMINI_SESSION_ID" "$CLAUDE_PROJECT_DIR" "$GEMINI_CWD" "$PWD" > env.txt`)
	r := runner(t, project, agent.HookBeforeTool, def("", command("$GEMINI_PROJECT_DIR/.gemini/hooks/dump.sh", 0)))
	out := fire(t, r, beforeTool("read_file", map[string]any{"path": "a.go"}))
	if len(out.Messages) > 0 || out.Block {
		t.Fatalf("outcome = %+v", out)
	}
	data, err := os.ReadFile(filepath.Join(project, "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("input %s: %v", data, err)
	}
	for k, want := range map[string]any{
		"session_id": "s-1", "transcript_path": "/tmp/s-1.jsonl", "cwd": project,
		"hook_event_name": "BeforeTool", "tool_name": "read_file",
	} {
		if in[k] != want {
			t.Errorf("input %s = %v, want %v", k, in[k], want)
		}
	}
	if args, _ := in["tool_input"].(map[string]any); args["path"] != "a.go" {
		t.Errorf("tool_input = %v", in["tool_input"])
	}
	if ts, _ := in["timestamp"].(string); ts == "" {
		t.Error("no timestamp")
	} else if _, err := time.Parse(time.RFC3339, ts); err != nil {
		t.Errorf("timestamp %q is not ISO 8601: %v", ts, err)
	}
	env, err := os.ReadFile(filepath.Join(project, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat(project+"\n", 1) + "s-1\n" + project + "\n" + project + "\n" + project + "\n"
	if string(env) != want {
		t.Errorf("environment:\n%s\nwant:\n%s", env, want)
	}
}

// TestExitCodesAndOutput: exit 2 blocks with stderr as the reason; a JSON
// decision blocks with its reason; another exit code is a failure the
// user is told of and blocks nothing; text that is not JSON is a message.
func TestExitCodesAndOutput(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		block      bool
		reason     string
		message    string
	}{
		{"exit 2", `echo 'rm is not allowed' >&2; exit 2`, true, "rm is not allowed", ""},
		{"deny", `echo '{"decision":"deny","reason":"not on Fridays"}'`, true, "not on Fridays", ""},
		{"block alias", `echo '{"decision":"block","reason":"nope"}'`, true, "nope", ""},
		{"allow", `echo '{"decision":"allow","systemMessage":"checked"}'`, false, "", "checked"},
		{"exit 1", `echo 'lint crashed' >&2; exit 1`, false, "", `Hook "` + shellWord(filepath.Join(dir, "exit 1.sh")) + `" failed for event BeforeTool: it exited with code 1: lint crashed. It was ignored.`},
		{"exit 3", `echo '{"decision":"deny"}'; exit 3`, false, "", "exited with code 3"},
		{"plain text", `echo 'all good'`, false, "", "all good"},
		{"silent", `true`, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := script(t, dir, tc.name+".sh", tc.body)
			r := runner(t, dir, agent.HookBeforeTool, def("", command(shellWord(path), 0)))
			out := fire(t, r, beforeTool("run_shell_command", map[string]any{"command": "ls"}))
			if out.Block != tc.block || (tc.block && out.Reason != tc.reason) {
				t.Errorf("block %v reason %q, want %v %q", out.Block, out.Reason, tc.block, tc.reason)
			}
			got := strings.Join(out.Messages, "\n")
			if tc.message == "" && got != "" || !strings.Contains(got, tc.message) {
				t.Errorf("messages %q, want %q", got, tc.message)
			}
		})
	}
}

func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestTimeoutKillsTheHookAndItsChildren: a hook past its timeout is
// stopped with everything it started, the user is told, and nothing is
// blocked.
func TestTimeoutKillsTheHookAndItsChildren(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	path := script(t, dir, "slow.sh", `sleep 120 & echo $! > `+shellWord(pidFile)+`
sleep 120`)
	r := runner(t, dir, agent.HookBeforeTool, def("", settings.HookCommand{Type: "command", Name: "slow", Command: shellWord(path), Timeout: 300}))
	out := fire(t, r, beforeTool("glob", nil))
	if out.Block || out.Stop {
		t.Errorf("a timed-out hook decided something: %+v", out)
	}
	if len(out.Messages) != 1 || !strings.Contains(out.Messages[0], `Hook "slow" failed for event BeforeTool: it timed out after 300ms`) {
		t.Errorf("messages = %q", out.Messages)
	}
	spawntest.WaitGone(t, spawntest.PID(t, pidFile))
}

// TestHookLeavesNothingRunning: a hook that exits leaving a child holding
// its output (stdout or stderr, backgrounded in a subshell or not) is a
// failure the user is told of, and the child is killed with the hook's
// process group, when the output is given up for or when the timeout
// comes first; so is the child of a hook that failed.
func TestHookLeavesNothingRunning(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	for _, tc := range []struct {
		name, command string
		timeoutMS     float64
		failure       string
	}{
		{"stdout held", `sleep 300 & echo $! > child.pid`, 0, "it exited leaving a process that held its output open, which was stopped"},
		{"stderr held by a subshell", `(sleep 300; echo late) >&2 & echo $! > child.pid`, 0, "it exited leaving a process that held its output open, which was stopped"},
		{"timed out first", `sleep 300 & echo $! > child.pid`, 100, "it timed out after 100ms and was stopped"},
		{"failed", `sleep 300 >/dev/null 2>&1 & echo $! > child.pid; exit 1`, 0, "it exited with code 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runner(t, dir, agent.HookBeforeTool, def("", settings.HookCommand{Type: "command", Name: "bg", Command: tc.command, Timeout: tc.timeoutMS}))
			out := fire(t, r, beforeTool("glob", nil))
			want := `Hook "bg" failed for event BeforeTool: ` + tc.failure
			if out.Block || out.Stop || len(out.Messages) != 1 || !strings.Contains(out.Messages[0], want) {
				t.Errorf("outcome %+v, want the one message %q", out, want)
			}
			spawntest.WaitGone(t, spawntest.PID(t, filepath.Join(dir, "child.pid")))
		})
	}
}

// TestMatchers: tool events match a regular expression on the tool name,
// lifecycle events their exact trigger, "" and "*" everything.
func TestMatchers(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	say := func(msg string) settings.HookCommand {
		return command(`echo '{"systemMessage":"`+msg+`"}'`, 0)
	}
	r, problems := hooks.New(hooks.Config{ProjectDir: dir, Sources: []hooks.Source{{Name: "settings", Hooks: settings.Hooks{
		agent.HookBeforeTool: {
			def("write_.*|replace", say("edits")),
			def("*", say("all")),
			def("read_(", say("bad regexp")),
		},
		agent.HookSessionStart: {def("resume", say("resumed"))},
	}}}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, tc := range []struct {
		ev   agent.HookEvent
		want []string
	}{
		{beforeTool("write_file", nil), []string{"edits", "all"}},
		{beforeTool("replace", nil), []string{"edits", "all"}},
		{beforeTool("read_file", nil), []string{"all"}},
		{beforeTool("read_(", nil), []string{"all", "bad regexp"}},
		{agent.HookEvent{Name: agent.HookSessionStart, Target: "startup"}, nil},
		{agent.HookEvent{Name: agent.HookSessionStart, Target: "resume"}, []string{"resumed"}},
	} {
		if got := fire(t, r, tc.ev).Messages; !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: messages %q, want %q", tc.ev.Name, tc.ev.Target, got, tc.want)
		}
	}
}

// TestDisabledAndInvalidHooks: hooksConfig.disabled names hooks that do
// not run; an unknown event or a hook without a command is a problem
// reported, not run.
func TestDisabledAndInvalidHooks(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	r, problems := hooks.New(hooks.Config{
		ProjectDir: dir,
		Disabled:   []string{"noisy", "touch " + shellWord(marker+"2")},
		Sources: []hooks.Source{{Name: "settings", Hooks: settings.Hooks{
			agent.HookBeforeAgent: {def("",
				settings.HookCommand{Type: "command", Name: "noisy", Command: "touch " + shellWord(marker)},
				command("touch "+shellWord(marker+"2"), 0),
				settings.HookCommand{Type: "command"},
			)},
			"BeforeEverything": {def("", command("true", 0))},
		}}},
	})
	if len(problems) != 2 || !strings.Contains(problems[0].Error(), "has no command") || !strings.Contains(problems[1].Error(), `"BeforeEverything" is not a hook event`) {
		t.Errorf("problems = %v", problems)
	}
	if r.Handles(agent.HookBeforeAgent) {
		t.Error("disabled hooks would run")
	}
	fire(t, r, agent.HookEvent{Name: agent.HookBeforeAgent, Input: map[string]any{"prompt": "hi"}})
	for _, m := range []string{marker, marker + "2"} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("disabled hook ran: %s", m)
		}
	}
}

// TestSetDisabled: the hooks configured are listed, disabled ones too,
// each with what the user configured; SetDisabled turns them off and on
// from the next event.
func TestSetDisabled(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	touch := "touch " + shellWord(marker)
	r, problems := hooks.New(hooks.Config{
		ProjectDir: dir,
		Disabled:   []string{"toucher"},
		Sources: []hooks.Source{
			{Name: "settings", Hooks: settings.Hooks{
				agent.HookBeforeAgent: {def("", settings.HookCommand{Type: "command", Name: "toucher", Description: "Leaves a mark", Command: touch, Timeout: 1500})},
				agent.HookBeforeTool:  {{Matcher: "write_.*", Sequential: true, Hooks: []settings.HookCommand{command("true", 0)}}},
			}},
			{Name: "my-extension", Hooks: settings.Hooks{agent.HookBeforeTool: {def("", command("false", 0))}}},
		},
	})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	want := []hooks.Hook{
		{Event: "BeforeTool", Source: "settings", Name: "true", Command: "true", Matcher: "write_.*", Sequential: true, Enabled: true},
		{Event: "BeforeTool", Source: "my-extension", Name: "false", Command: "false", Enabled: true},
		{Event: "BeforeAgent", Source: "settings", Name: "toucher", Command: touch, Description: "Leaves a mark", Timeout: 1500 * time.Millisecond},
	}
	if got := r.Hooks(); !slices.Equal(got, want) {
		t.Errorf("Hooks() =\n%+v\nwant\n%+v", got, want)
	}
	prompt := agent.HookEvent{Name: agent.HookBeforeAgent, Input: map[string]any{"prompt": "hi"}}
	fire(t, r, prompt)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the disabled hook ran")
	}
	r.SetDisabled([]string{"false"})
	if !r.Handles(agent.HookBeforeAgent) || !r.Hooks()[2].Enabled || r.Hooks()[1].Enabled {
		t.Errorf("after SetDisabled: %+v", r.Hooks())
	}
	fire(t, r, prompt)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the hook enabled again did not run: %v", err)
	}
}

// TestMergedDecisions: of hooks run together, any block wins, reasons,
// messages and contexts are joined (contexts escaped for their tags), and
// a sequential event's hooks see the arguments the ones before changed.
func TestMergedDecisions(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	r := runner(t, dir, agent.HookBeforeTool, settings.HookDefinition{Sequential: true, Hooks: []settings.HookCommand{
		command(`echo '{"hookSpecificOutput":{"tool_input":{"path":"b.go"},"additionalContext":"<first>"}}'`, 0),
		command(`cat > `+shellWord(seen)+`; echo '{"decision":"deny","reason":"second says no","hookSpecificOutput":{"additionalContext":"second"}}'`, 0),
	}})
	out := fire(t, r, beforeTool("read_file", map[string]any{"path": "a.go", "limit": 3}))
	if !out.Block || out.Reason != "second says no" {
		t.Errorf("block %v %q", out.Block, out.Reason)
	}
	if out.AdditionalContext != "&lt;first&gt;\nsecond" {
		t.Errorf("context %q", out.AdditionalContext)
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		ToolInput map[string]any `json:"tool_input"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if in.ToolInput["path"] != "b.go" || in.ToolInput["limit"] != float64(3) {
		t.Errorf("the second hook saw %v, not the first's change", in.ToolInput)
	}
}

// TestLastToolInputWins: of BeforeTool hooks that each give tool_input,
// the last one's is the call's arguments, whole, as Gemini CLI 0.61
// merges them (each hookSpecificOutput spread over the ones before): an
// argument only an earlier hook gave is gone; one that gives none leaves
// the earlier one's.
func TestLastToolInputWins(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	r := runner(t, dir, agent.HookBeforeTool, settings.HookDefinition{Sequential: true, Hooks: []settings.HookCommand{
		command(`echo '{"hookSpecificOutput":{"tool_input":{"path":"b.go","limit":1}}}'`, 0),
		command(`echo '{"hookSpecificOutput":{"tool_input":{"path":"c.go"}}}'`, 0),
		command(`echo '{"systemMessage":"no change from me"}'`, 0),
	}})
	out := fire(t, r, beforeTool("read_file", map[string]any{"path": "a.go", "limit": 3}))
	if want := map[string]any{"path": "c.go"}; !reflect.DeepEqual(out.ToolInput, want) {
		t.Errorf("tool_input %v, want %v", out.ToolInput, want)
	}
}

// TestHookThatIgnoresItsInput: a hook that never reads its (large) input
// still decides, and is no failure.
func TestHookThatIgnoresItsInput(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	r := runner(t, dir, agent.HookBeforeTool, def("", command(`echo '{"decision":"deny","reason":"not read"}'`, 0)))
	out := fire(t, r, beforeTool("write_file", map[string]any{"content": strings.Repeat("x", 4<<20)}))
	if !out.Block || out.Reason != "not read" || len(out.Messages) != 0 {
		t.Errorf("outcome = %+v", out)
	}
}

// TestPlansDir: once the session has a plans directory, hooks have it as
// GEMINI_PLANS_DIR, and $GEMINI_PLANS_DIR in the command is it: a plain
// path as it is, so that it works in double quotes too.
func TestPlansDir(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	r := runner(t, dir, agent.HookBeforeTool, def("", command(`printf '%s|' "$GEMINI_PLANS_DIR" $GEMINI_PLANS_DIR > plans.txt`, 0)))
	ev := beforeTool("write_file", nil)
	ev.PlansDir = "/home/u/.gemini/tmp/p/s-1/plans"
	fire(t, r, ev)
	data, err := os.ReadFile(filepath.Join(dir, "plans.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := ev.PlansDir + "|" + ev.PlansDir + "|"; string(data) != want {
		t.Errorf("plans dir = %q, want %q", data, want)
	}
}

// TestShellWords: values replaced in a command stay one word, whatever
// they hold, as the shell reads them back.
func TestShellWords(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	for _, dir := range []string{"plain-dir_1.0", "with space", `it's "quoted"`, `back\slash and space`, "a$b`c`!d", "semi;colon&amp"} {
		root := filepath.Join(t.TempDir(), dir)
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		r := runner(t, root, agent.HookBeforeTool, def("", command(`printf '%s' $GEMINI_PROJECT_DIR > out.txt`, 0)))
		fire(t, r, beforeTool("glob", nil))
		data, err := os.ReadFile(filepath.Join(root, "out.txt"))
		if err != nil || string(data) != root {
			t.Errorf("%q read back as %q (%v)", root, data, err)
		}
	}
}

// With security.environmentVariableRedaction on, a hook does not get
// what may hold a secret, as in 0.61; its GEMINI_ variables still come.
func TestRedactedEnvironment(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	project := t.TempDir()
	for _, enabled := range []bool{false, true} {
		r, problems := hooks.New(hooks.Config{
			Sources: []hooks.Source{{Name: "settings", Hooks: settings.Hooks{agent.HookBeforeTool: {
				def("", command(`echo "[$GEMINI_API_KEY][$PLAIN][$GEMINI_PROJECT_DIR]" > env.txt`, 0))}}}},
			ProjectDir: project,
			Environ:    []string{"PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=secret", "PLAIN=plain"},
			Redaction:  envredact.Policy{Enabled: enabled},
		})
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		fire(t, r, beforeTool("read_file", nil))
		got, err := os.ReadFile(filepath.Join(project, "env.txt"))
		want := "[secret][plain][" + project + "]\n"
		if enabled {
			want = "[][plain][" + project + "]\n"
		}
		if err != nil || string(got) != want {
			t.Errorf("enabled %v: %v %q, want %q", enabled, err, got, want)
		}
	}
}

// A BeforeTool hook's decision "ask" is an outcome of its own, which has
// the user asked (Gemini CLI 0.61's isAskDecision); "allow" is not, nor
// is "ask" of another event's hook.
func TestBeforeToolAskDecision(t *testing.T) {
	platformtest.UnixShell(t)
	outcome := func(event, decision string) agent.HookOutcome {
		r := runner(t, t.TempDir(), event, def("run_shell_command", command(`echo '{"decision":"`+decision+`"}'`, 0)))
		ev := beforeTool("run_shell_command", map[string]any{"command": "git push --force"})
		ev.Name = event
		return fire(t, r, ev)
	}
	if got := outcome(agent.HookBeforeTool, "ask"); !got.Ask || got.Block {
		t.Errorf(`BeforeTool {"decision":"ask"}: %+v, want Ask`, got)
	}
	if got := outcome(agent.HookBeforeTool, "allow"); got.Ask {
		t.Errorf(`BeforeTool {"decision":"allow"}: %+v, want no Ask`, got)
	}
	if got := outcome(agent.HookAfterTool, "ask"); got.Ask {
		t.Errorf(`AfterTool {"decision":"ask"}: %+v, want no Ask`, got)
	}
}
