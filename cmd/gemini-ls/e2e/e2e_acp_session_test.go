package e2e

// ACP sessions beyond one process: session/load after a restart,
// session/list and session/resume; the modes and config options; the
// slash commands.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
)

// restart ends the server process and connects a new one with the same
// HOME (so the same session store), without a session.
func (h *acpHarness) restart() {
	h.t.Helper()
	_ = h.proc.Close()
	if _, err := h.proc.Wait(h.ctx); err != nil {
		h.t.Fatalf("the first server did not exit: %v", err)
	}
	h.connect(acpSetup{noSession: true})
}

// since are the updates of the session after the first n.
func (h *acpHarness) since(n int) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, u := range h.client.Updates()[n:] {
		if u.SessionId == h.session {
			out = append(out, u.Update)
		}
	}
	return out
}

// command sends text as a prompt that a command answers, and returns the
// message it answered with.
func (h *acpHarness) command(text string) string {
	h.t.Helper()
	n := len(h.client.Updates())
	h.mustPrompt(text, sdk.StopReasonEndTurn)
	var msg string
	for _, u := range h.since(n) {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			msg += c.Content.Text.Text
		}
	}
	return msg
}

// acpCode is the JSON-RPC error code of err; 0 if it is none.
func acpCode(err error) int {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// replayed is an update in a line, for comparing.
func replayed(u sdk.SessionUpdate) string {
	switch {
	case u.UserMessageChunk != nil:
		return "user: " + u.UserMessageChunk.Content.Text.Text
	case u.AgentMessageChunk != nil:
		return "agent: " + u.AgentMessageChunk.Content.Text.Text
	case u.ToolCall != nil:
		return fmt.Sprintf("tool_call %s %s %s", u.ToolCall.Title, u.ToolCall.Kind, u.ToolCall.Status)
	case u.ToolCallUpdate != nil:
		text := ""
		for _, c := range u.ToolCallUpdate.Content {
			if c.Content != nil && c.Content.Content.Text != nil {
				text += c.Content.Content.Text.Text
			}
		}
		return fmt.Sprintf("tool_call_update %s %q", *u.ToolCallUpdate.Status, text)
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	case u.SessionInfoUpdate != nil && u.SessionInfoUpdate.Title != nil && u.SessionInfoUpdate.UpdatedAt != nil:
		return "session_info " + *u.SessionInfoUpdate.Title
	case u.UsageUpdate != nil && u.UsageUpdate.Used > 0 && u.UsageUpdate.Size > 0:
		return "usage_update"
	}
	b, _ := json.Marshal(u)
	return string(b)
}

// A session prompted in one process is loaded in the next: its history
// comes back as updates before session/load answers (the prompt as typed,
// the call with its title, kind and result, the answer), the model's next
// request carries the earlier turns, and session/list shows it.
func TestACPSessionLoadedAfterRestart(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": "package a\n"}},
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.go"})),
		geminitest.TextTurn("It is package a."),
		geminitest.TextTurn("Still package a."))
	h.mustPrompt("What is in a.go?", sdk.StopReasonEndTurn)
	id := h.session

	h.restart()
	list, err := h.client.Conn.ListSessions(h.ctx, sdk.ListSessionsRequest{Cwd: &h.root})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Cwd != h.root ||
		list.Sessions[0].Title == nil || *list.Sessions[0].Title != "What is in a.go?" || list.Sessions[0].UpdatedAt == nil {
		t.Fatalf("session/list = %+v", list)
	}

	if _, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: "NoSuchSession", Cwd: h.root, McpServers: []sdk.McpServer{}}); acpCode(err) != -32002 || !strings.Contains(err.Error(), "session/list") {
		t.Errorf("loading an unknown session: %v", err)
	}
	res, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = id
	var got []string
	for _, u := range h.since(0) {
		if u.AvailableCommandsUpdate == nil { // it may come any time after the answer
			got = append(got, replayed(u))
		}
	}
	want := []string{
		"user: What is in a.go?",
		"tool_call ReadFile a.go read pending",
		`tool_call_update completed "package a\n"`,
		"agent: It is package a.",
		"session_info What is in a.go?", // as session/list has it
		"usage_update",                  // how full the window was at its last answer
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed before the answer:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "default" || len(res.ConfigOptions) != 2 {
		t.Errorf("session/load answered %+v", res)
	}

	h.mustPrompt("And now?", sdk.StopReasonEndTurn)
	reqs := h.model.Requests()
	last := reqs[len(reqs)-1]
	var texts []string
	for _, c := range last.Contents {
		for _, p := range c.Parts {
			switch {
			case p.Text != "":
				texts = append(texts, c.Role+": "+p.Text)
			case p.FunctionCall != nil:
				texts = append(texts, c.Role+": call "+p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				texts = append(texts, c.Role+": response "+p.FunctionResponse.Name)
			}
		}
	}
	if !slices.Contains(texts, "user: What is in a.go?") || !slices.Contains(texts, "model: call read_file") ||
		!slices.Contains(texts, "user: response read_file") || !slices.Contains(texts, "model: It is package a.") ||
		texts[len(texts)-1] != "user: And now?" {
		t.Errorf("the loaded session's request:\n%s", strings.Join(texts, "\n"))
	}
	if got := h.client.MessageText(id); !strings.HasSuffix(got, "Still package a.") {
		t.Errorf("message %q", got)
	}
}

// A prompt cancelled before the model said anything is replayed as a
// message of its own, not run into the next prompt: clients join
// consecutive user_message_chunks.
func TestACPCancelledPromptReplayedApart(t *testing.T) {
	h := startACP(t, acpSetup{}, geminitest.Turn{Hang: true}, geminitest.TextTurn("Second answer."))
	h.cancelMidway("first prompt", "the model request", func(*acptest.Client) bool { return len(h.model.Requests()) == 1 })
	h.mustPrompt("second prompt", sdk.StopReasonEndTurn)
	id := h.session

	h.restart()
	if _, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	h.session = id
	var got []string
	for _, u := range h.since(0) {
		if u.AvailableCommandsUpdate == nil {
			got = append(got, replayed(u))
		}
	}
	want := []string{"user: first prompt", "agent: (Cancelled.)", "user: second prompt", "agent: Second answer.", "session_info first prompt", "usage_update"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// session/resume continues a saved session without replaying it. Loading
// a session live in the same connection ends the live one first: its
// prompt is cancelled, and saved before the load reads the session.
func TestACPSessionResumedAndReloaded(t *testing.T) {
	h := startACP(t, acpSetup{},
		geminitest.TextTurn("First."), geminitest.Turn{Hang: true}, geminitest.TextTurn("Second."), geminitest.TextTurn("Third."))
	h.mustPrompt("one", sdk.StopReasonEndTurn)
	id := h.session

	hung := make(chan sdk.PromptResponse, 1)
	go func() {
		res, _ := h.prompt("hang")
		hung <- res
	}()
	if _, err := h.model.WaitRequests(h.ctx, 2); err != nil {
		t.Fatal(err)
	}
	n := len(h.client.Updates())
	if _, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if res := <-hung; res.StopReason != sdk.StopReasonCancelled {
		t.Errorf("the prompt of the session loaded again answered %+v", res)
	}
	var got []string
	for _, u := range h.since(n) {
		if u.UserMessageChunk != nil || u.AgentMessageChunk != nil {
			got = append(got, replayed(u))
		}
	}
	if strings.Join(got, "|") != "user: one|agent: First.|user: hang" {
		t.Errorf("replay of a live session: %q", got)
	}
	h.mustPrompt("two", sdk.StopReasonEndTurn)

	h.restart()
	init, err := h.client.Initialize(h.ctx)
	if err != nil || init.AgentCapabilities.SessionCapabilities.Resume == nil {
		t.Fatalf("initialize: resume not advertised: %+v, %v", init.AgentCapabilities.SessionCapabilities, err)
	}
	res, err := h.client.Conn.ResumeSession(h.ctx, sdk.ResumeSessionRequest{SessionId: id, Cwd: h.root})
	if err != nil {
		t.Fatal(err)
	}
	h.session = id
	// The session's title and time, as session/list has them, how full
	// the window was at its last answer, and none of its history.
	var sent []string
	for _, u := range h.since(0) {
		if u.AvailableCommandsUpdate == nil {
			sent = append(sent, replayed(u))
		}
	}
	if !slices.Equal(sent, []string{"session_info one", "usage_update"}) {
		t.Errorf("session/resume sent %q, want its title and its window's fill alone", sent)
	}
	if res.Modes == nil || len(res.ConfigOptions) != 2 {
		t.Errorf("session/resume answered %+v", res)
	}
	h.mustPrompt("three", sdk.StopReasonEndTurn)
	last := h.model.Requests()[3]
	// one, First., hang (cancelled before an answer), two, Second., three
	if n := len(last.Contents); n != 6 || last.Contents[3].Parts[0].Text != "two" {
		t.Errorf("the resumed request has %d contents: %+v", n, last.Contents)
	}
	if _, err := h.client.Conn.ResumeSession(h.ctx, sdk.ResumeSessionRequest{SessionId: "nope", Cwd: h.root}); acpCode(err) != -32002 {
		t.Errorf("resuming an unknown session: %v", err)
	}
}

// configOption finds option id among opts.
func configOption(t *testing.T, opts []sdk.SessionConfigOption, id string) *sdk.SessionConfigOptionSelect {
	t.Helper()
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return o.Select
		}
	}
	t.Fatalf("no config option %q in %+v", id, opts)
	return nil
}

// The approval modes are session modes with Gemini CLI's ids, and a config
// option besides: yolo runs a shell command without asking (the client
// would reject it), an unknown mode is refused.
func TestACPModes(t *testing.T) {
	shell := geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo hello-from-yolo"}))
	h := startACP(t, acpSetup{noSession: true, env: trustTheWorkspace(), cfg: acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.RejectOnce }}},
		shell, geminitest.TextTurn("Not run."),
		shell, geminitest.TextTurn("Ran."))
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	// A client drops updates for a session it does not know yet: the
	// commands come after the answer (the SDK hands over the updates
	// received before an answer before it returns it).
	for _, u := range h.client.Updates() {
		if u.Update.AvailableCommandsUpdate != nil {
			t.Error("available_commands_update came before the session/new answer")
		}
	}
	var ids []string
	for _, m := range res.Modes.AvailableModes {
		ids = append(ids, string(m.Id)+"="+m.Name)
	}
	if res.Modes.CurrentModeId != "default" || strings.Join(ids, ",") != "default=Default,autoEdit=Auto Edit,yolo=YOLO,plan=Plan" {
		t.Errorf("modes %+v", res.Modes)
	}
	mode := configOption(t, res.ConfigOptions, "mode")
	if mode.CurrentValue != "default" || mode.Category == nil || *mode.Category != sdk.SessionConfigOptionCategoryMode || len(*mode.Options.Ungrouped) != 4 {
		t.Errorf("mode option %+v", mode)
	}

	h.mustPrompt("Say hello", sdk.StopReasonEndTurn)
	if r := h.functionResponses(1); len(r) != 1 || r[0]["error"] == nil {
		t.Fatalf("in default mode the rejected command ran: %v", r)
	}
	asked := len(h.client.Permissions())

	n := len(h.client.Updates())
	if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	var updated []sdk.SessionConfigOption
	for _, u := range h.since(n) {
		if u.ConfigOptionUpdate != nil {
			updated = u.ConfigOptionUpdate.ConfigOptions
		}
	}
	if updated == nil || configOption(t, updated, "mode").CurrentValue != "yolo" {
		t.Errorf("no config_option_update with the mode after set_mode: %+v", h.since(n))
	}
	h.mustPrompt("Say hello again", sdk.StopReasonEndTurn)
	r := h.functionResponses(3)
	if out, _ := r[len(r)-1]["output"].(string); !strings.Contains(out, "hello-from-yolo") {
		t.Errorf("in yolo mode the command did not run: %v", r[len(r)-1])
	}
	if len(h.client.Permissions()) != asked {
		t.Errorf("yolo asked: %+v", h.client.Permissions()[asked:])
	}

	_, err = h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "planning"})
	if acpCode(err) != -32602 || !strings.Contains(err.Error(), "default, autoEdit, yolo, plan") {
		t.Errorf("an unknown mode: %v", err)
	}
	if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: "nope", ModeId: "yolo"}); acpCode(err) != -32602 {
		t.Errorf("the mode of an unknown session: %v", err)
	}

	// The config option sets the mode too, and says so as a mode update.
	n = len(h.client.Updates())
	set, err := h.client.Conn.SetSessionConfigOption(h.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: h.session, ConfigId: "mode", Value: "autoEdit"}})
	if err != nil {
		t.Fatal(err)
	}
	if configOption(t, set.ConfigOptions, "mode").CurrentValue != "autoEdit" {
		t.Errorf("set_config_option answered %+v", set.ConfigOptions)
	}
	u := slices.DeleteFunc(h.since(n), func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	if len(u) != 1 || u[0].CurrentModeUpdate == nil || u[0].CurrentModeUpdate.CurrentModeId != "autoEdit" {
		t.Errorf("updates after set_config_option mode: %+v", u)
	}
}

// The model option lists the session's model and the known ones; the
// next request goes to the one chosen.
func TestACPModelOption(t *testing.T) {
	h := startACP(t, acpSetup{noSession: true, env: []string{"GEMINI_MODEL=gemini-custom-test"}},
		geminitest.TextTurn("From the custom model."), geminitest.TextTurn("From flash."))
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	model := configOption(t, res.ConfigOptions, "model")
	var values []string
	for _, o := range *model.Options.Ungrouped {
		values = append(values, string(o.Value))
	}
	if model.CurrentValue != "gemini-custom-test" || *model.Category != sdk.SessionConfigOptionCategoryModel ||
		values[0] != "gemini-custom-test" || !slices.Contains(values, "gemini-2.5-pro") || !slices.Contains(values, "gemini-3-flash-preview") {
		t.Errorf("model option %+v, values %v", model, values)
	}
	h.mustPrompt("hi", sdk.StopReasonEndTurn)

	set, err := h.client.Conn.SetSessionConfigOption(h.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: h.session, ConfigId: "model", Value: "gemini-3-flash-preview"}})
	if err != nil {
		t.Fatal(err)
	}
	if configOption(t, set.ConfigOptions, "model").CurrentValue != "gemini-3-flash-preview" || configOption(t, set.ConfigOptions, "mode").CurrentValue != "default" {
		t.Errorf("set_config_option answered %+v", set.ConfigOptions)
	}
	h.mustPrompt("hi again", sdk.StopReasonEndTurn)
	reqs := h.model.Requests()
	if reqs[0].Model != "gemini-custom-test" || reqs[1].Model != "gemini-3-flash-preview" {
		t.Errorf("requests went to %s, then %s", reqs[0].Model, reqs[1].Model)
	}

	for _, bad := range []sdk.SetSessionConfigOptionRequest{
		{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: h.session, ConfigId: "model", Value: "no-such-model"}},
		{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: h.session, ConfigId: "temperature", Value: "1"}},
		{Boolean: &sdk.SetSessionConfigOptionBoolean{SessionId: h.session, ConfigId: "model", Type: "boolean", Value: true}},
	} {
		if _, err := h.client.Conn.SetSessionConfigOption(h.ctx, bad); acpCode(err) != -32602 {
			t.Errorf("set_config_option %+v: %v", bad, err)
		}
	}
}

// The commands are announced once the session is known, and each answers
// in the message with end_turn; a prompt naming no command goes to the
// model as typed.
func TestACPSlashCommands(t *testing.T) {
	usage := func(turn geminitest.Turn, prompt int32) geminitest.Turn {
		turn.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: prompt, CandidatesTokenCount: 7, TotalTokenCount: prompt + 7}
		return turn
	}
	h := startACP(t, acpSetup{
		files: map[string]string{"GEMINI.md": "Use tabs.\n"},
		env:   trustTheWorkspace(),
		mcpServers: []sdk.McpServer{
			{Stdio: &sdk.McpServerStdio{Name: "alpha", Command: mcpServerBinary(t), Args: []string{}, Env: []sdk.EnvVariable{}}},
			{Stdio: &sdk.McpServerStdio{Name: "broken", Command: mcpServerBinary(t), Args: []string{"-fail-at-start"}, Env: []sdk.EnvVariable{}}},
		},
	},
		usage(geminitest.TextTurn("First answer, with some words in it."), 3000),
		usage(geminitest.TextTurn("Second answer."), 5000),
		geminitest.TextTurn("<state_snapshot>the gist</state_snapshot>"), // /compress's summary
		geminitest.TextTurn("You typed a command I do not know."),
		geminitest.TextTurn("I will write GEMINI.md."),
	)
	// The MCP server's prompts join the built-ins once it has started
	// (in the first update, or in a second).
	h.client.Wait(h.ctx, "available_commands_update with alpha's prompts", func(c *acptest.Client) bool {
		for _, u := range c.Updates() {
			if a := u.Update.AvailableCommandsUpdate; u.SessionId == h.session && a != nil &&
				slices.ContainsFunc(a.AvailableCommands, func(c sdk.AvailableCommand) bool { return c.Name == "greet" }) {
				return true
			}
		}
		return false
	})
	// The built-ins, each with its input when it has a hint, then the
	// custom command and the MCP server's prompt.
	wantNames, hinted := []string{}, map[string]bool{"greet": true}
	for _, b := range builtin.Table() {
		wantNames = append(wantNames, b.Name)
		hinted[b.Name] = b.Hint != ""
	}
	wantNames = append(wantNames, "greet", "status")
	var names []string
	for _, u := range h.since(0) {
		if a := u.AvailableCommandsUpdate; a != nil {
			names = names[:0]
			for _, c := range a.AvailableCommands {
				names = append(names, c.Name)
				if c.Description == "" || hinted[c.Name] != (c.Input != nil) {
					t.Errorf("command %+v", c)
				}
			}
		}
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("commands %v, want %v", names, wantNames)
	}

	gemini := h.path("GEMINI.md")
	if got := h.command("/memory list"); !strings.Contains(got, "1 context file(s) (GEMINI.md) in use") || !strings.Contains(got, "- "+gemini+" (9 bytes)") {
		t.Errorf("/memory list said %q", got)
	}
	if err := os.WriteFile(gemini, []byte("Use tabs. Always.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := h.command("/memory refresh"); got != "Memory reloaded: 17 bytes from 1 file(s)." {
		t.Errorf("/memory refresh said %q", got)
	}
	if got := h.command("/memory forget"); got != `Unknown /memory subcommand "forget"; usage: /memory show | add <text> | reload | list | inbox [apply|dismiss <private|global> [patch] | dismiss skill <name> | move <skill> <global|project>].` {
		t.Errorf("/memory forget said %q", got)
	}

	tools := h.command("/tools desc")
	if !strings.Contains(tools, "- `read_file`: ") || !strings.Contains(tools, "- `mcp_alpha_echo` (MCP server `alpha`): Echoes the message.") {
		t.Errorf("/tools desc said %q", tools)
	}
	mcp := h.command("/mcp")
	if !strings.Contains(mcp, "- `alpha`: ready, ") || !strings.Contains(mcp, "`mcp_alpha_echo`") ||
		!strings.Contains(mcp, "- `broken`: failed: ") || !strings.Contains(mcp, "cannot open the database") {
		t.Errorf("/mcp said %q", mcp)
	}

	h.mustPrompt("first", sdk.StopReasonEndTurn)
	h.mustPrompt("second", sdk.StopReasonEndTurn)
	stats := h.command("/stats")
	if !strings.Contains(stats, "Session "+string(h.session)) || !strings.Contains(stats, "- Prompts: 2") ||
		!strings.Contains(stats, "- Tokens: 8000 input, 14 output, 0 thinking, 8014 in all") || !strings.Contains(stats, "- Approval mode: default") {
		t.Errorf("/stats said %q", stats)
	}
	// 0.61's check of the summary, answered with nothing: the summary
	// stands.
	h.model.AddRule(geminitest.Rule{Contains: "Critically evaluate the <state_snapshot>", Turn: geminitest.TextTurn("")})
	if got := h.command("/compress"); !strings.HasPrefix(got, "The history was compressed from 5000 to ") {
		t.Errorf("/compress said %q", got)
	}
	reqs := h.model.Requests()
	if len(reqs) != 4 || reqs[2].Method != "generateContent" || reqs[3].Method != "generateContent" || reqs[3].Rule == nil {
		t.Fatalf("requests after /compress: %d, want the summary and its check", len(reqs))
	}

	// Not a command: refused, nothing sent.
	if got := h.command("/xyz do it"); !strings.Contains(got, "/xyz is not a command (/help lists them). Nothing was sent to the model.") {
		t.Errorf("/xyz said %q", got)
	}
	if n := len(h.model.Requests()); n != 4 {
		t.Errorf("/xyz made %d model requests", n-4)
	}
	h.mustPrompt("do it", sdk.StopReasonEndTurn)
	reqs = h.model.Requests()
	last := withoutSessionContext(reqs[len(reqs)-1].Contents)
	if got := lastUserText(t, reqs, len(reqs)-1); got != "do it" {
		t.Errorf("the prompt reached the model as %q", got)
	}
	// The summary took the memory given at the start: the prompt after
	// gives it again, as it now reads.
	if got := givenMemory(geminitest.Request{Contents: last[len(last)-1:]}); !strings.Contains(got, "Use tabs. Always.") {
		t.Errorf("the prompt after /compress gives the memory as %q", got)
	}
	// The compressed history went with it.
	if !strings.Contains(last[0].Parts[0].Text, "<state_snapshot>the gist</state_snapshot>") {
		t.Errorf("the request after /compress starts with %q", last[0].Parts[0].Text)
	}

	if got := h.command("/init"); got != "A GEMINI.md file already exists in this directory. No changes were made." {
		t.Errorf("/init with a GEMINI.md said %q", got)
	}
	if err := os.Remove(gemini); err != nil {
		t.Fatal(err)
	}
	if got := h.command("/init"); got != "I will write GEMINI.md." {
		t.Errorf("/init said %q", got)
	}
	reqs = h.model.Requests()
	if got := lastUserText(t, reqs, len(reqs)-1); !strings.Contains(got, "generate a comprehensive GEMINI.md file") {
		t.Errorf("/init sent %.100q", got)
	}
	// GEMINI.md is gone: the model is told no context file is loaded.
	last = reqs[len(reqs)-1].Contents
	if got := givenMemory(geminitest.Request{Contents: last[len(last)-1:]}); !strings.Contains(got, "none is loaded now") {
		t.Errorf("/init's prompt gives the memory as %q", got)
	}
	if _, err := os.Stat(gemini); !os.IsNotExist(err) {
		t.Errorf("/init wrote GEMINI.md itself: %v", err)
	}
}

// A prompt sent while another runs takes over (the SDK cancels the older
// one, and the newer waits for it to end); session/cancel then stops the
// newer one, although the SDK forgot its cancel when the older returned.
func TestACPCancelAfterAPromptTookOver(t *testing.T) {
	h := startACP(t, acpSetup{}, geminitest.Turn{Hang: true}, geminitest.Turn{Hang: true})
	first := make(chan sdk.PromptResponse, 1)
	go func() {
		res, _ := h.prompt("first")
		first <- res
	}()
	if _, err := h.model.WaitRequests(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	second := make(chan sdk.PromptResponse, 1)
	go func() {
		res, _ := h.prompt("second")
		second <- res
	}()
	if res := <-first; res.StopReason != sdk.StopReasonCancelled {
		t.Errorf("the older prompt answered %+v", res)
	}
	if _, err := h.model.WaitRequests(h.ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Conn.Cancel(h.ctx, sdk.CancelNotification{SessionId: h.session}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-second:
		if res.StopReason != sdk.StopReasonCancelled {
			t.Errorf("the newer prompt answered %+v", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("session/cancel did not stop the prompt that took over")
	}
}
