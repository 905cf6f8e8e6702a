//go:build linux

package e2e

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The secrets and files every sandbox test plants in the test's home.
const (
	sshKey     = "SECRET-SSH-KEY"
	oauthCreds = `{"access_token": "SECRET-OAUTH"}`
	homeNotes  = "home notes, readable"
)

// sandboxProbes are the commands a prompt-injected model would run, each
// named by what it tries; want says whether it must succeed inside the
// sandbox.
type sandboxProbe struct {
	name, command string
	sandboxed     bool // succeeds in the sandbox too
}

func sandboxProbes(port int) []sandboxProbe {
	return []sandboxProbe{
		{"write in the workspace", "echo made > made.txt && echo wrote", true},
		{"read the home", "cat ~/notes.txt", true},
		{"write to $HOME", "echo owned > ~/owned.txt && echo wrote", false},
		{"read ~/.ssh/id_ed25519", "cat ~/.ssh/id_ed25519", false},
		{"read ~/.gemini/oauth_creds.json", "cat ~/.gemini/oauth_creds.json", false},
		{"connect to a loopback server", "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + " && echo connected", false},
	}
}

// sandboxTurns: the model runs every probe at once, then a background
// command that writes in the workspace and to $HOME (ending within its
// delay, so its result is reported), then finishes; a second run's
// custom command needs one more answer.
func sandboxTurns(probes []sandboxProbe) []geminitest.Turn {
	var calls []*genai.FunctionCall
	for _, p := range probes {
		calls = append(calls, geminitest.Call("run_shell_command", map[string]any{"command": p.command}))
	}
	return []geminitest.Turn{
		geminitest.CallTurn(calls...),
		call("run_shell_command", map[string]any{"command": "echo bg > bg.txt; echo owned > ~/bg-owned.txt", "is_background": true, "delay_ms": 10000}),
		geminitest.TextTurn("Finished."),
		geminitest.TextTurn("Expanded."),
	}
}

// loopbackServer listens on a free loopback port and accepts until the
// test ends.
func loopbackServer(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// sandboxHeadless is a trusted workspace whose home holds the secrets, a
// readable file and a custom command whose !{…} tries what the model's
// commands try.
func sandboxHeadless(t *testing.T, turns []geminitest.Turn) (*headless, string) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("these tests need bubblewrap: apt-get install bubblewrap (make test-go installs it)")
	}
	h := newHeadless(t, nil, turns...)
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{
		".ssh/id_ed25519":             sshKey,
		".gemini/oauth_creds.json":    oauthCreds,
		"notes.txt":                   homeNotes,
		".gemini/commands/probe.toml": "prompt = \"\"\"\nWorkspace: !{echo cc > cc.txt && echo wrote}\nHome: !{echo owned > ~/cc-owned.txt; cat ~/.ssh/id_ed25519}\n\"\"\"\n",
	})
	return h, home
}

// runSandboxProbes runs the probes headless in yolo with extra args and
// env, then the custom command, and checks what each did.
// userSettings, when not "", is the home's ~/.gemini/settings.json.
func runSandboxProbes(t *testing.T, userSettings string, env []string, args ...string) {
	port := loopbackServer(t)
	probes := sandboxProbes(port)
	h, home := sandboxHeadless(t, sandboxTurns(probes))
	if userSettings != "" {
		writeFiles(t, home, map[string]string{".gemini/settings.json": userSettings})
	}
	env = append(append(h.env, trustTheWorkspace()...), env...)
	r := h.runIn(h.root, env, append([]string{"run", "--approval-mode", "yolo", "-p", "probe the sandbox"}, args...)...)
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, "gemini-ls: sandbox: bubblewrap") {
		t.Errorf("stderr does not say the run is sandboxed:\n%s", r.stderr)
	}
	if system := h.model.Requests()[0].SystemInstruction; system == nil || !strings.Contains(system.Parts[0].Text, "\n# Sandbox\nYou are running in a sandbox") {
		t.Error("the system prompt does not say the commands run in a sandbox")
	}
	fr := h.responses(1)
	if len(fr) != len(probes) {
		t.Fatalf("function responses = %d, want %d", len(fr), len(probes))
	}
	for i, p := range probes {
		out := responseOutput(fr[i])
		ok := shellSucceeded(out)
		switch {
		case ok != p.sandboxed:
			t.Errorf("%s: succeeded = %v, want %v:\n%s", p.name, ok, p.sandboxed, out)
		case !ok && !strings.Contains(out, "Sandbox: The command ran in a sandbox"):
			t.Errorf("%s: the failure does not say the command ran sandboxed:\n%s", p.name, out)
		case strings.Contains(out, "SECRET"):
			t.Errorf("%s: a secret reached the model:\n%s", p.name, out)
		}
	}
	if got := h.disk("made.txt"); got != "made\n" {
		t.Errorf("made.txt = %q", got)
	}
	bg := responseOutput(h.responses(2)[0])
	if got := h.disk("bg.txt"); got != "bg\n" || !strings.Contains(bg, "Read-only file system") || !strings.Contains(bg, "Sandbox: ") {
		t.Errorf("background command: bg.txt = %q, result:\n%s", got, bg)
	}
	r = h.runIn(h.root, env, append([]string{"run", "--approval-mode", "yolo", "-p", "/probe"}, args...)...)
	r.wantExit(t, 0)
	text := lastUserText(t, h.model.Requests(), 3)
	if !strings.Contains(text, "Workspace: wrote") || strings.Contains(text, "SECRET") || h.disk("cc.txt") != "cc\n" {
		t.Errorf("custom command's prompt:\n%s\ncc.txt = %q", text, h.disk("cc.txt"))
	}
	for _, name := range []string{"owned.txt", "bg-owned.txt", "cc-owned.txt"} {
		if _, err := os.Stat(filepath.Join(home, name)); err == nil {
			t.Errorf("a sandboxed command wrote ~/%s", name)
		}
	}
}

// Headless yolo with --sandbox: what writes in the workspace runs; what
// writes to $HOME, reads the user's secrets or reaches the network fails,
// and the model is told it ran sandboxed; background commands and a
// custom command's !{…} are sandboxed too.
func TestRunSandboxFlag(t *testing.T) {
	runSandboxProbes(t, "", nil, "--sandbox")
}

// /about says how the session is sandboxed, and which of the host's Unix
// sockets it reaches: none, or those tools.sandboxAllowedSockets names.
func TestRunSandboxAbout(t *testing.T) {
	h := newHeadless(t, nil)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-s", "-p", "/about")
	r.wantExit(t, 0)
	want := "Sandbox: bubblewrap, from --sandbox: workspace writable, rest read-only, secrets hidden, network off, no host sockets\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("/about = %q, want %q", r.stdout, want)
	}
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandboxAllowedSockets": ["/run/user/1000/podman/podman.sock"]}}`})
	r = h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-s", "-p", "/about")
	r.wantExit(t, 0)
	want = "network off, host sockets /run/user/1000/podman/podman.sock\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("/about with tools.sandboxAllowedSockets = %q, want %q", r.stdout, want)
	}
}

// GEMINI_SANDBOX=true, with no flag, sandboxes the same way.
func TestRunSandboxEnvironment(t *testing.T) {
	runSandboxProbes(t, "", []string{"GEMINI_SANDBOX=true"})
}

// tools.sandbox in the user's settings sandboxes the same way.
func TestRunSandboxSetting(t *testing.T) {
	runSandboxProbes(t, `{"tools": {"sandbox": true}}`, nil)
}

// Without a sandbox the same probes all succeed: the sandbox, not the
// test's set-up, is what stops them.
func TestRunUnsandboxedProbesSucceed(t *testing.T) {
	port := loopbackServer(t)
	probes := sandboxProbes(port)
	h, home := sandboxHeadless(t, sandboxTurns(probes))
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "probe")
	r.wantExit(t, 0)
	for i, fr := range h.responses(1) {
		if out := responseOutput(fr); !shellSucceeded(out) || strings.Contains(out, "Sandbox:") {
			t.Errorf("%s unsandboxed:\n%s", probes[i].name, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "owned.txt")); err != nil {
		t.Errorf("unsandboxed, ~/owned.txt: %v", err)
	}
}

// A sandbox asked for that cannot be set up stops the run (exit 44, as
// 0.61's FatalSandboxError) with the fix, and runs nothing.
func TestRunSandboxUnavailableStops(t *testing.T) {
	h := newHeadless(t, nil)
	env := append(h.withoutEnv("PATH"), "PATH="+t.TempDir())
	env = append(env, trustTheWorkspace()...)
	r := h.runIn(h.root, env, "run", "--sandbox", "-p", "hi")
	r.wantExit(t, 44)
	if !strings.Contains(r.stderr, "apt-get install bubblewrap") {
		t.Errorf("stderr = %q, want the fix", r.stderr)
	}
	r = h.runIn(h.root, append(env, "GEMINI_SANDBOX=podman"), "run", "-p", "hi")
	r.wantExit(t, 44)
	if !strings.Contains(r.stderr, "Missing sandbox command 'podman' (from GEMINI_SANDBOX)") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}

// Over LSP, with GEMINI_SANDBOX=true in the server's environment: the
// edit is still previewed and confirmed in the editor (the server, not
// sandboxed, applies it through workspace/applyEdit), and the shell
// commands the user allows run sandboxed as headless ones do.
func TestLSPSandboxedCommandsAndEditConfirmation(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("this test needs bubblewrap: apt-get install bubblewrap (make test-go installs it)")
	}
	port := loopbackServer(t)
	probes := sandboxProbes(port)
	var calls []*genai.FunctionCall
	for _, p := range probes {
		calls = append(calls, geminitest.Call("run_shell_command", map[string]any{"command": p.command}))
	}
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".ssh/id_ed25519": sshKey, ".gemini/oauth_creds.json": oauthCreds, "notes.txt": homeNotes})
	env := append(trustTheWorkspace(), "HOME="+home, "GEMINI_SANDBOX=true")
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": aGo}, env: env},
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
		geminitest.CallTurn(calls...),
		geminitest.TextTurn("done"))
	var status struct {
		Sandbox string `json:"sandbox"`
	}
	if err := h.client.Call(h.ctx, "gemini/models", nil, &status); err != nil {
		t.Fatal(err)
	}
	if want := "bubblewrap, from GEMINI_SANDBOX: workspace writable, rest read-only, secrets hidden, network off, no host sockets"; status.Sandbox != want {
		t.Errorf("gemini/models' sandbox = %q, want %q", status.Sandbox, want)
	}
	h.open("a.go")
	h.prompt(map[string]any{"prompt": "edit, then probe"})
	h.wantOutput(1, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 2 }\n")
	h.wantStrategy(false, 1)
	out := h.toolOutputs(2)
	if len(out) != len(probes) {
		t.Fatalf("tool outputs = %q", out)
	}
	for i, p := range probes {
		ok := shellSucceeded(out[i])
		if ok != p.sandboxed || strings.Contains(out[i], "SECRET") || (!ok && !strings.Contains(out[i], "Sandbox: ")) {
			t.Errorf("%s: succeeded = %v, want %v:\n%s", p.name, ok, p.sandboxed, out[i])
		}
	}
	if _, err := os.Stat(filepath.Join(home, "owned.txt")); err == nil {
		t.Error("a sandboxed command wrote ~/owned.txt")
	}
}

// With tools.sandboxHooksAndMCPServers, hooks and stdio MCP servers run in
// the sandbox too: a hook and a server's start-up script write in the
// workspace but not to $HOME, and the server still answers over its
// pipes; without the setting they run outside, as the user's own.
func TestRunSandboxHooksAndMCPServers(t *testing.T) {
	for _, inside := range []bool{true, false} {
		h, home := sandboxHeadless(t, []geminitest.Turn{
			call("run_shell_command", map[string]any{"command": "echo hi"}),
			call("mcp_t_echo", map[string]any{"message": "from the server"}),
			geminitest.TextTurn("Finished."),
		})
		// Beside the workspace: the sandbox's /tmp is its own, so a
		// server under the host's /tmp would not be found.
		data, err := os.ReadFile(mcpServerBinary(t))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, h.root, map[string]string{"mcpserver": string(data)})
		if err := os.Chmod(h.path("mcpserver"), 0o755); err != nil {
			t.Fatal(err)
		}
		hook := map[string]any{"type": "command", "name": "probe", "command": "echo x > ~/hook-owned.txt; echo x > $GEMINI_PROJECT_DIR/hook-ws.txt"}
		settingsFile := map[string]any{
			"tools":       map[string]any{"sandboxHooksAndMCPServers": inside},
			"hooksConfig": map[string]any{"enabled": true},
			"hooks":       map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command", "hooks": []any{hook}}}},
			"mcpServers": map[string]any{"t": map[string]any{
				"command": "sh", "args": []any{"-c", "echo x > ~/mcp-owned.txt; echo x > mcp-ws.txt; exec ./mcpserver"}}},
		}
		b, err := json.Marshal(settingsFile)
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, h.root, map[string]string{".gemini/settings.json": string(b)})
		r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--sandbox", "--approval-mode", "yolo", "-p", "probe")
		r.wantExit(t, 0)
		if out := responseOutput(h.responses(2)[0]); !strings.Contains(out, "from the server") {
			t.Errorf("inside %v: the MCP tool answered %q", inside, out)
		}
		for _, name := range []string{"hook-ws.txt", "mcp-ws.txt"} {
			if !h.exists(name) {
				t.Errorf("inside %v: %s was not written in the workspace", inside, name)
			}
		}
		for _, name := range []string{"hook-owned.txt", "mcp-owned.txt"} {
			_, err := os.Stat(filepath.Join(home, name))
			if wrote := err == nil; wrote == inside {
				t.Errorf("inside %v: ~/%s written = %v", inside, name, wrote)
			}
		}
	}
}

// Over ACP, a sandboxed session runs its commands here, in the sandbox,
// not in the client's terminal, which is outside it: no terminal is
// made, and a write to $HOME fails and says so.
func TestACPSandboxedSessionBypassesTheClientsTerminal(t *testing.T) {
	home := shellAllowedHome(t)
	h := startACP(t, acpSetup{home: home, env: []string{"GEMINI_SANDBOX=true"}, cfg: acptest.Config{Terminal: true}},
		shellCall("echo owned > ~/owned.txt", nil),
		geminitest.TextTurn("Done."))
	h.mustPrompt("Run it", sdk.StopReasonEndTurn)
	if n := len(h.client.Terminals()); n != 0 {
		t.Errorf("%d client terminals were made for a sandboxed command", n)
	}
	if out, _ := h.result(1); !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "Sandbox: ") {
		t.Errorf("the model got %q", out)
	}
	if _, err := os.Stat(filepath.Join(home, "owned.txt")); err == nil {
		t.Error("the sandboxed command wrote ~/owned.txt")
	}
}

// Over LSP, a sandbox asked for that cannot be set up runs nothing: a
// prompt fails with the reason and the fix, and the model is never asked.
// (Here podman answers nothing: sandboxtest.HideContainerDaemons.)
func TestLSPSandboxUnavailableRunsNothing(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), env: append(trustTheWorkspace(), "GEMINI_SANDBOX=podman")},
		call("run_shell_command", map[string]any{"command": "echo ran > ran.txt"}),
		geminitest.TextTurn("done"))
	var res promptResult
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "run it"}, &res)
	got := res.Error
	if err != nil {
		got = err.Error()
	}
	if !strings.Contains(got, "the podman sandbox (from GEMINI_SANDBOX) cannot run: `podman info` failed, so no daemon answers; start it, or use GEMINI_SANDBOX=bwrap on Linux") {
		t.Errorf("gemini/prompt = %+v, %v; want the sandbox's error", res, err)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if _, err := os.Stat(h.path("ran.txt")); err == nil {
		t.Error("the command ran unsandboxed")
	}
}

// The keys in gemini-ls's environment reach no command that the settings
// or the sandbox say must not see them: a shell command in the
// foreground and the background and a custom command's !{…} get them
// unsandboxed, none with security.environmentVariableRedaction.enabled,
// and none in the sandbox whatever the setting says; a variable the
// setting allows gets through in every case.
func TestRunEnvironmentRedaction(t *testing.T) {
	const probe = `echo "gemini=[$GEMINI_API_KEY] google=[$GOOGLE_API_KEY] mine=[$MY_TOKEN] plain=[$PLAIN_VAR]"`
	const (
		redacted = "gemini=[] google=[] mine=[allowed-token] plain=[plain]"
		passed   = "gemini=[test-key] google=[google-secret] mine=[allowed-token] plain=[plain]"
	)
	tests := []struct {
		name    string
		enabled bool
		args    []string
		want    string
	}{
		{"unsandboxed, redaction off", false, nil, passed},
		{"unsandboxed, redaction on", true, nil, redacted},
		{"sandboxed, redaction off", false, []string{"--sandbox"}, redacted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadless(t, nil,
				call("run_shell_command", map[string]any{"command": probe}),
				call("run_shell_command", map[string]any{"command": probe, "is_background": true, "delay_ms": 5000}),
				geminitest.TextTurn("Finished."),
				geminitest.TextTurn("Expanded."))
			home := strings.TrimPrefix(h.env[1], "HOME=")
			redaction := map[string]any{"enabled": tt.enabled, "allowed": []string{"my_token"}}
			settingsFile, err := json.Marshal(map[string]any{"security": map[string]any{"environmentVariableRedaction": redaction}})
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, home, map[string]string{
				".gemini/settings.json":          string(settingsFile),
				".gemini/commands/envprobe.toml": "prompt = \"\"\"\nEnv: !{" + probe + "}\n\"\"\"\n",
			})
			env := append(append(h.env, trustTheWorkspace()...), "GOOGLE_API_KEY=google-secret", "MY_TOKEN=allowed-token", "PLAIN_VAR=plain")
			r := h.runIn(h.root, env, append([]string{"run", "--approval-mode", "yolo", "-p", "probe"}, tt.args...)...)
			r.wantExit(t, 0)
			if out := responseOutput(h.responses(1)[0]); !strings.Contains(out, tt.want+"\n") {
				t.Errorf("foreground command's output:\n%s\nwant %q", out, tt.want)
			}
			if out := responseOutput(h.responses(2)[0]); !strings.Contains(out, tt.want+"\n") {
				t.Errorf("background command's output:\n%s\nwant %q", out, tt.want)
			}
			r = h.runIn(h.root, env, append([]string{"run", "--approval-mode", "yolo", "-p", "/envprobe"}, tt.args...)...)
			r.wantExit(t, 0)
			if text := lastUserText(t, h.model.Requests(), 3); !strings.Contains(text, "Env: "+tt.want) {
				t.Errorf("custom command's prompt:\n%s\nwant %q", text, tt.want)
			}
		})
	}
}

// SANDBOX_MOUNTS from the environment reaches a headless run's sandbox:
// /about names the mount, the command reads the mounted file; a mount of
// a sensitive path stops the run (exit 44) before anything runs.
func TestRunSandboxMountsFromTheEnvironment(t *testing.T) {
	data := t.TempDir()
	writeFiles(t, data, map[string]string{"f": "from data\n"})
	target := filepath.Join(t.TempDir(), "in")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHeadless(t, nil, shellCall("cat "+target+"/f", nil), geminitest.TextTurn("Done."))
	env := append(append(h.env, trustTheWorkspace()...), "GEMINI_SANDBOX=bwrap", "SANDBOX_MOUNTS="+data+":"+target)
	r := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "read it")
	r.wantExit(t, 0)
	if out := responseOutput(h.responses(1)[0]); !strings.Contains(out, "Output: from data\n") {
		t.Errorf("the command did not read the mount:\n%s", out)
	}
	r = h.runIn(h.root, env, "run", "-p", "/about")
	if want := "SANDBOX_MOUNTS " + data + " at " + target + " read-only"; !strings.Contains(r.stdout, want) {
		t.Errorf("/about = %q, want %q", r.stdout, want)
	}
	home := strings.TrimPrefix(h.env[1], "HOME=")
	before := len(h.model.Requests())
	r = h.runIn(h.root, append(env, "SANDBOX_MOUNTS="+home+":/h"), "run", "--approval-mode", "yolo", "-p", "hi")
	r.wantExit(t, 44)
	if !strings.Contains(r.stderr, "Mounting sensitive host path '"+home+"' listed in SANDBOX_MOUNTS is strictly prohibited") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if n := len(h.model.Requests()); n != before {
		t.Errorf("the model was asked %d times more", n-before)
	}
}

// A sandboxed command cannot plant the .env the next start reads outside
// the sandbox: the one it makes in the workspace, saying
// GEMINI_SANDBOX=false, is renamed .env.made-in-sandbox as it ends, the
// model is told, and the next run is sandboxed still.
func TestRunSandboxedCommandCannotPlantTheNextStartsEnv(t *testing.T) {
	planted := "GEMINI_SANDBOX=false\n"
	h := newHeadless(t, nil, shellCall("printf '"+strings.TrimSuffix(planted, "\n")+"\\n' > .env && echo made", nil), geminitest.TextTurn("Done."))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	env := append(h.env, trustTheWorkspace()...)
	r := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "make a .env")
	r.wantExit(t, 0)
	out := responseOutput(h.responses(1)[0])
	moved := filepath.Join(h.root, ".env.made-in-sandbox")
	if !strings.Contains(out, "Output: made\n") || !strings.Contains(out, "Sandbox: "+filepath.Join(h.root, ".env")+" was made while commands ran in the sandbox") || !strings.Contains(out, "renamed "+moved) {
		t.Errorf("the model was not told where the .env went:\n%s", out)
	}
	if b, err := os.ReadFile(moved); err != nil || string(b) != planted {
		t.Errorf("the .env moved aside: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(h.root, ".env")); !os.IsNotExist(err) {
		t.Errorf("the planted .env is still there: %v", err)
	}
	r = h.runIn(h.root, env, "run", "-p", "/about")
	r.wantExit(t, 0)
	if !strings.Contains(r.stdout, "bubblewrap") {
		t.Errorf("the next run is not sandboxed: /about = %q", r.stdout)
	}
}

// A sandboxed command cannot plant an editor's task: the
// .vscode/tasks.json it makes in the workspace, a task VS Code runs when
// the folder opens, is renamed .vscode.made-in-sandbox as the command
// ends, and the model is told where it went. One the agent's edit tool
// wrote (yolo here; in the other modes the user approves it) is the
// user's: the sandboxed command after it leaves it.
func TestRunSandboxedCommandCannotPlantAnEditorsTask(t *testing.T) {
	const task = `{"version": "2.0.0", "tasks": [{"label": "x", "command": "touch /tmp/pwned", "runOptions": {"runOn": "folderOpen"}}]}`
	h := newHeadless(t, nil,
		shellCall(makeWhole(".vscode", "tasks.json", task)+" && echo made", nil),
		call("write_file", map[string]any{"file_path": ".zed/settings.json", "content": "{}\n"}),
		shellCall("ls -a .zed; echo ran", nil),
		geminitest.TextTurn("Done."))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "make a task")
	r.wantExit(t, 0)
	out := responseOutput(h.responses(1)[0])
	vscode := filepath.Join(h.root, ".vscode")
	if !strings.Contains(out, "Output: made\n") || !strings.Contains(out, "Sandbox: "+vscode+" appeared while commands ran in the sandbox") || !strings.Contains(out, "renamed "+vscode+".made-in-sandbox") {
		t.Errorf("the model was not told where the task went:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(vscode+".made-in-sandbox", "tasks.json")); err != nil || !strings.Contains(string(b), "folderOpen") {
		t.Errorf("the task set aside: %q %v", b, err)
	}
	if _, err := os.Stat(vscode); !os.IsNotExist(err) {
		t.Errorf("the planted .vscode is still there: %v", err)
	}
	if out := responseOutput(h.responses(3)[0]); strings.Contains(out, "made-in-sandbox") || !strings.Contains(out, "settings.json") {
		t.Errorf("after the edit the user approved, the command's result:\n%s", out)
	}
}

// The user's git configuration where XDG_CONFIG_HOME puts it, here in
// the workspace (a dotfiles repository opened in the editor), is kept
// read-only in the sandbox: a command cannot add a program the user's
// git runs outside. Its nvim directory, missing, is made empty, so that
// no init.lua can be planted there.
func TestRunSandboxKeepsTheXDGConfigReadOnly(t *testing.T) {
	h := newHeadless(t, nil, shellCall(`printf '[core]\n\tfsmonitor = touch /tmp/x\n' >> dots/git/config; mkdir -p dots/nvim && echo 'os.execute("x")' > dots/nvim/init.lua; echo done`, nil), geminitest.TextTurn("Done."))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	writeFiles(t, h.root, map[string]string{"dots/git/config": "[user]\n\tname = me\n"})
	env := append(h.env, trustTheWorkspace()...)
	env = append(env, "XDG_CONFIG_HOME="+filepath.Join(h.root, "dots"))
	r := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "change my git configuration")
	r.wantExit(t, 0)
	out := responseOutput(h.responses(1)[0])
	if !strings.Contains(out, "done") || !strings.Contains(out, "Read-only file system") {
		t.Errorf("the command's output, want its writes refused:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(h.root, "dots", "git", "config")); err != nil || string(b) != "[user]\n\tname = me\n" {
		t.Errorf("the git configuration after the command: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(h.root, "dots", "nvim", "init.lua")); !os.IsNotExist(err) {
		t.Errorf("the command planted an init.lua: %v", err)
	}
}

// A .env the user let the agent write (yolo here; in the other modes the
// user accepts the edit) is theirs: the sandboxed command after it does
// not move it aside.
func TestRunSandboxKeepsTheEnvAnEditWrote(t *testing.T) {
	h := newHeadless(t, nil,
		call("write_file", map[string]any{"file_path": ".env", "content": "DATABASE_URL=postgres://x\n"}),
		shellCall("cat .env; echo ran", nil),
		geminitest.TextTurn("Done."))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "write the .env")
	r.wantExit(t, 0)
	if b, err := os.ReadFile(filepath.Join(h.root, ".env")); err != nil || string(b) != "DATABASE_URL=postgres://x\n" {
		t.Errorf("the .env the edit wrote: %q %v", b, err)
	}
	if out := responseOutput(h.responses(2)[0]); strings.Contains(out, "made-in-sandbox") || !strings.Contains(out, "ran") {
		t.Errorf("the command's result:\n%s", out)
	}
}

// Over LSP, a .env the user makes in the editor while the session is
// sandboxed is theirs: the next sandboxed command leaves it where it is
// (TestRunSandboxedCommandCannotPlantTheNextStartsEnv: one the editor
// does not have open is moved aside).
func TestLSPSandboxLeavesTheEnvTheUserMadeInTheEditor(t *testing.T) {
	home := t.TempDir()
	env := append(trustTheWorkspace(), "HOME="+home, "GEMINI_SANDBOX=bwrap")
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": aGo}, env: env},
		shellCall("ls -a", nil),
		geminitest.TextTurn("done"))
	writeFiles(t, h.root, map[string]string{".env": "DATABASE_URL=mine\n"})
	h.open(".env")
	h.prompt(map[string]any{"prompt": "read the .env"})
	out := h.toolOutputs(1)
	if len(out) != 1 || !strings.Contains(out[0], "\n.env\n") || strings.Contains(out[0], "made-in-sandbox") {
		t.Errorf("the command's result: %q", out)
	}
	if b, err := os.ReadFile(h.path(".env")); err != nil || string(b) != "DATABASE_URL=mine\n" {
		t.Errorf("the user's .env: %q %v", b, err)
	}
}
