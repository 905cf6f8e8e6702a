package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// A TypeScript project that ships its own TypeScript, whose tsserver.js,
// run, writes ran.txt at the project's root: what the pinned
// typescript-language-server runs of a project unless told otherwise.
var tsShippingItsOwn = map[string]string{
	"tsconfig.json":                           `{"compilerOptions": {"strict": true}}`,
	"answer.ts":                               "export const answer = 42;\n",
	"node_modules/typescript/package.json":    tsPackage,
	"node_modules/typescript/lib/tsserver.js": hostileTSServer,
}

const (
	tsPackage       = `{"name": "typescript", "version": "5.9.3"}`
	hostileTSServer = `require("fs").writeFileSync(require("path").join(__dirname, "../../../ran.txt"), "ran");` + "\n"
)

var hoverAnswer = geminitest.Call("navigate_code", map[string]any{"operation": "hover", "file_path": "answer.ts", "line": 1, "symbol": "answer"})

// In plan mode, which runs nothing, navigate_code (read-only) still
// answers a hover of a project that ships its own TypeScript, from the
// user's TypeScript: the project's tsserver.js never runs.
func TestPlanModeRunsNoWorkspaceTypeScript(t *testing.T) {
	path := langServersPath(t, "typescript-language-server")
	h := newHeadless(t, tsShippingItsOwn, geminitest.CallTurn(hoverAnswer), geminitest.TextTurn("Done."))
	r := h.runIn(h.root, withPath(h.env, path), "run", "-p", "what is answer?", "--approval-mode", "plan")
	r.wantExit(t, 0)
	if got := responseText(h.responses(1)[0].Response); !strings.Contains(got, "42") {
		t.Errorf("the hover answered %q, want the constant's 42", got)
	}
	if h.exists("ran.txt") {
		t.Error("the workspace's node_modules/typescript/lib/tsserver.js ran in plan mode")
	}
}

// In auto_edit under --sandbox the model writes a tsserver.js into the
// project, an edit auto_edit allows, then asks navigate_code: the
// language server runs in the sandbox and with the user's TypeScript, so
// the script it wrote never runs.
func TestSandboxedAutoEditRunsNoTypeScriptTheModelWrote(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	path := langServersPath(t, "typescript-language-server")
	h := newHeadless(t, map[string]string{"tsconfig.json": "{}", "answer.ts": "export const answer = 42;\n"},
		geminitest.CallTurn(
			geminitest.Call("write_file", map[string]any{"file_path": "node_modules/typescript/package.json", "content": tsPackage}),
			geminitest.Call("write_file", map[string]any{"file_path": "node_modules/typescript/lib/tsserver.js", "content": hostileTSServer}),
		),
		geminitest.CallTurn(hoverAnswer),
		geminitest.TextTurn("Done."))
	r := h.runIn(h.root, withPath(h.env, path), "run", "-p", "what is answer?", "--approval-mode", "auto_edit", "--sandbox")
	r.wantExit(t, 0)
	if h.disk("node_modules/typescript/lib/tsserver.js") != hostileTSServer {
		t.Fatal("the model's tsserver.js was not written: the test shows nothing")
	}
	if got := responseText(h.responses(2)[0].Response); !strings.Contains(got, "42") {
		t.Errorf("the hover answered %q, want the constant's 42", got)
	}
	if h.exists("ran.txt") {
		t.Error("the tsserver.js the model wrote ran")
	}
}

// A server that may run the workspace's code (here one codeIntelligence
// configures, which gemini-ls cannot vouch for) is not started headless
// unless the approval mode is yolo: the model is told why. In yolo it is.
func TestHeadlessStartsAnUnconfinedServerOnlyInYolo(t *testing.T) {
	for _, yolo := range []bool{false, true} {
		h := newHeadless(t, map[string]string{"a.fake": "one\n"},
			geminitest.CallTurn(geminitest.Call("navigate_code", map[string]any{"operation": "document_symbols", "file_path": "a.fake"})),
			geminitest.TextTurn("Done."))
		script := filepath.Join(t.TempDir(), "server.sh")
		if err := os.WriteFile(script, []byte("#!/bin/sh\necho started > \""+h.path("started.txt")+"\"\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, h.root, map[string]string{".gemini/settings.json": `{"codeIntelligence": {"servers": {"fake": {"cmd": ["` + script + `"], "filetypes": ["fake"]}}}}`})
		args := []string{"run", "-p", "outline a.fake"}
		if yolo {
			args = append(args, "--yolo")
		}
		h.runIn(h.root, h.env, args...).wantExit(t, 0)
		got := responseText(h.responses(1)[0].Response)
		if started := h.exists("started.txt"); started != yolo {
			t.Errorf("yolo %v: the server started: %v (the model was told %q)", yolo, started, got)
		}
		if !yolo && (!strings.Contains(got, "the language server fake was not started") || !strings.Contains(got, "nobody can be asked")) {
			t.Errorf("the model was told %q, want why the server was not started", got)
		}
	}
}

// In an editor the first start of such a server in a session asks the
// user, once, saying what it may run; a no is told the model, and holds
// for the session.
func TestACPAsksOnceBeforeAnUnconfinedServerStarts(t *testing.T) {
	script := filepath.Join(t.TempDir(), "server.sh")
	marker := filepath.Join(t.TempDir(), "started.txt")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho started > \""+marker+"\"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	outline := geminitest.Call("navigate_code", map[string]any{"operation": "document_symbols", "file_path": "a.fake"})
	h := startACP(t, acpSetup{
		env: trustTheWorkspace(),
		files: map[string]string{"a.fake": "one\n",
			".gemini/settings.json": `{"codeIntelligence": {"servers": {"fake": {"cmd": ["` + script + `"], "filetypes": ["fake"]}}}}`},
		cfg: acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.RejectOnce }},
	}, geminitest.CallTurn(outline), geminitest.CallTurn(outline), geminitest.TextTurn("Done."))
	h.mustPrompt("outline a.fake twice", sdk.StopReasonEndTurn)
	var asked []string
	for _, p := range h.client.Permissions() {
		if p.ToolCall.Title != nil && strings.Contains(*p.ToolCall.Title, "Start fake?") {
			asked = append(asked, *p.ToolCall.Title)
		}
	}
	if len(asked) != 1 {
		t.Errorf("asked %q, want one question before the server's first start", asked)
	}
	for i := 1; i <= 2; i++ {
		got := h.functionResponses(i)
		if len(got) != i || !strings.Contains(fmt.Sprint(got[i-1]["error"]), "declined") {
			t.Errorf("call %d: the model was told %v, want that the user declined the server", i, got)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the server started after the user said no")
	}
}
