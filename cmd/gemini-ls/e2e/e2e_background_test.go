//go:build unix

package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
)

// serverCommand starts an HTTP server on a free loopback port in the
// background (spawntest.HTTPServer, built for t), with a child of its
// group that writes its pid to child.pid: ending the session must end the
// group, not the server alone.
func serverCommand(t *testing.T) string {
	return "sleep 1000 & echo $! > child.pid; exec " + spawntest.HTTPServer(t)
}

// backgroundTurns: the model names its topic, starts the server (command)
// in the background, lists the session's background processes, and reads
// the server's output until it says it serves (read_background_output's
// own delay_ms paces the reads, longer each time: a loaded machine may
// take seconds to start the server, and five reads with the same
// arguments would be stopped as a loop).
func backgroundTurns(command string) []geminitest.Turn {
	turns := []geminitest.Turn{
		call("update_topic", map[string]any{"title": "Serving files", "summary": "Start a web server.", "strategic_intent": "Start the server and check it serves."}),
		call("run_shell_command", map[string]any{"command": command, "is_background": true}),
		call("list_background_processes", map[string]any{}),
	}
	read := geminitest.Turn{From: func(r geminitest.Request) geminitest.Turn {
		if strings.Contains(lastOutput(r.Contents), "Serving HTTP on 127.0.0.1 port ") {
			return geminitest.TextTurn("It serves.")
		}
		return call("read_background_output", map[string]any{"pid": backgroundPID(r.Contents), "delay_ms": min(100*(1+reads(r.Contents)), 3000)})
	}}
	for range 200 {
		turns = append(turns, read)
	}
	return turns
}

// reads counts the read_background_output calls in contents.
func reads(contents []*genai.Content) int {
	n := 0
	for _, c := range contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil && p.FunctionCall.Name == "read_background_output" {
				n++
			}
		}
	}
	return n
}

var backgroundPIDLine = regexp.MustCompile(`Command is running in background\. PID: (\d+)\.`)

// backgroundPID is the PID run_shell_command told the model, 0 if none.
func backgroundPID(contents []*genai.Content) int {
	for _, c := range contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				if m := backgroundPIDLine.FindStringSubmatch(fmtTool(fr)); m != nil {
					pid, _ := strconv.Atoi(m[1])
					return pid
				}
			}
		}
	}
	return 0
}

// lastOutput is what the last function response of contents says.
func lastOutput(contents []*genai.Content) string {
	last := contents[len(contents)-1]
	var out []string
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			out = append(out, fmtTool(p.FunctionResponse))
		}
	}
	return strings.Join(out, "\n")
}

func fmtTool(fr *genai.FunctionResponse) string {
	if e, ok := fr.Response["error"]; ok {
		return "error: " + strings.TrimSpace(toString(e))
	}
	return toString(fr.Response["output"])
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}

// wantServed checks what the model was told of the server command started,
// and returns the server's and its child's pids, both running unless the
// session already ended.
func wantServed(t *testing.T, command, root string, requests []geminitest.Request, ended bool) (server, child int) {
	t.Helper()
	last := requests[len(requests)-1].Contents
	server = backgroundPID(last)
	if server == 0 {
		t.Fatalf("the model was told no background PID")
	}
	child = spawntest.PID(t, root+"/child.pid")
	var listing string
	for _, c := range last {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil && fr.Name == "list_background_processes" {
				listing = fmtTool(fr)
			}
		}
	}
	if want := "- [PID " + strconv.Itoa(server) + "] RUNNING: `" + command + "`"; listing != want {
		t.Errorf("listing %q, want %q", listing, want)
	}
	if out := lastOutput(last); !strings.HasPrefix(out, "Full Log Output:\nServing HTTP on 127.0.0.1 port ") {
		t.Errorf("last read %q", out)
	}
	for _, pid := range []int{server, child} {
		if !ended && !spawntest.Alive(pid) {
			t.Fatalf("process %d is not running while the session lives", pid)
		}
	}
	return server, child
}

func wantGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		spawntest.WaitGone(t, pid)
	}
}

// Over LSP, the session's background server ends with gemini-ls: at
// shutdown and exit, and when the editor dies (stdin closed); its topic
// reaches the plugins as a gemini/update.
func TestLSPBackgroundProcessEndsWithTheServer(t *testing.T) {
	command := serverCommand(t)
	for _, end := range []string{"shutdown", "stdin closed"} {
		t.Run(end, func(t *testing.T) {
			h := start(t, setup{profile: lsptest.Plugin(), opts: map[string]any{"approvalMode": "yolo"}, env: trustTheWorkspace()}, backgroundTurns(command)...)
			res := h.prompt(map[string]any{"prompt": "serve the files"})
			if res.Text != "It serves." {
				t.Fatalf("prompt %+v", res)
			}
			server, child := wantServed(t, command, h.root, h.model.Requests(), false)
			topics := h.updates("topic")
			if len(topics) != 1 || topics[0].Title != "Serving files" || topics[0].Text != "Start a web server." {
				t.Errorf("topic updates %+v", topics)
			}
			switch end {
			case "shutdown":
				if err := h.client.Call(h.ctx, "shutdown", nil, nil); err != nil {
					t.Fatalf("shutdown: %v", err)
				}
				if err := h.client.Notify(h.ctx, "exit", nil); err != nil {
					t.Fatalf("exit: %v", err)
				}
				h.wantExit(0, 10*time.Second)
			default:
				closeStdin(t, h)
				h.wantExit(1, 10*time.Second)
			}
			wantGone(t, server, child)
		})
	}
}

// A stock client shows update_topic's topic in the turn's $/progress.
func TestLSPTopicInProgress(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot()},
		call("update_topic", map[string]any{"title": "Reading", "strategic_intent": "Read the code."}),
		geminitest.TextTurn("Done."))
	h.command(map[string]any{"prompt": "look"})
	var reports []string
	for _, p := range h.progress() {
		if p.Value.Kind == "report" {
			reports = append(reports, p.Value.Message)
		}
	}
	found := false
	for _, r := range reports {
		found = found || r == "Reading: Read the code."
	}
	if !found {
		t.Errorf("progress reports %q do not show the topic", reports)
	}
}

// Over ACP, the session's background server ends when the client closes
// the session, and when the connection closes; its topic is a thought.
func TestACPBackgroundProcessEndsWithTheSession(t *testing.T) {
	command := serverCommand(t)
	for _, end := range []string{"session/close", "connection closed"} {
		t.Run(end, func(t *testing.T) {
			h := startACP(t, acpSetup{env: trustTheWorkspace()}, backgroundTurns(command)...)
			h.mustPrompt("serve the files", sdk.StopReasonEndTurn)
			server, child := wantServed(t, command, h.root, h.model.Requests(), false)
			var thoughts []string
			for _, n := range h.client.Updates() {
				if c := n.Update.AgentThoughtChunk; c != nil && c.Content.Text != nil {
					thoughts = append(thoughts, c.Content.Text.Text)
				}
			}
			if want := "**Topic: Serving files**\nStart a web server.\nIntent: Start the server and check it serves.\n"; !containsString(thoughts, want) {
				t.Errorf("thoughts %q, want %q", thoughts, want)
			}
			switch end {
			case "session/close":
				if _, err := h.client.Conn.CloseSession(h.ctx, sdk.CloseSessionRequest{SessionId: h.session}); err != nil {
					t.Fatalf("session/close: %v", err)
				}
			default:
				_ = h.proc.Close()
			}
			wantGone(t, server, child)
		})
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Headless, the background server ends when the run does.
func TestRunBackgroundProcessEndsWithTheRun(t *testing.T) {
	command := serverCommand(t)
	h := newHeadless(t, nil, backgroundTurns(command)...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "serve the files", "--approval-mode", "yolo")
	r.wantExit(t, 0)
	server, child := wantServed(t, command, h.root, h.model.Requests(), true)
	if !strings.Contains(r.stdout, "It serves.") {
		t.Errorf("stdout %q", r.stdout)
	}
	wantGone(t, server, child)
}
