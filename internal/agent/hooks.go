package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The hook events the agent fires, as Gemini CLI names them.
const (
	HookBeforeTool   = "BeforeTool"
	HookAfterTool    = "AfterTool"
	HookBeforeAgent  = "BeforeAgent"
	HookAfterAgent   = "AfterAgent"
	HookSessionStart = "SessionStart"
	HookSessionEnd   = "SessionEnd"
	HookPreCompress  = "PreCompress"
	HookNotification = "Notification"
	// HookBeforeToolSelection runs before each model request that offers
	// tools, and may narrow them.
	HookBeforeToolSelection = "BeforeToolSelection"
	// HookBeforeModel runs before each model request of the turn loop (not
	// each retry of it): it may change the request, answer it instead of
	// the model, or block it.
	HookBeforeModel = "BeforeModel"
	// HookAfterModel runs on each streamed chunk of the model's answer: it
	// may replace the chunk's text, or block or stop the turn.
	HookAfterModel = "AfterModel"
)

// Hooks runs the user's hooks (settings' "hooks") at an event; the
// hooks package's Runner satisfies it. Fire never fails: a hook that
// fails or times out is one of the outcome's Messages, and what it
// hooked goes on as if it had not run.
type Hooks interface {
	Fire(ctx context.Context, ev HookEvent) HookOutcome
	// Handles reports whether any hook runs for event name: an input
	// that is costly to make (the whole request) is made only then.
	Handles(name string) bool
}

// HookEvent is one point of a session at which hooks run.
type HookEvent struct {
	Name      string
	SessionID string
	// TranscriptPath is the session's file; "" when sessions are not saved.
	TranscriptPath string
	// PlansDir is the session's plans directory once it has one; "" until
	// then (finding it claims a directory, which a hook does not cause).
	PlansDir string
	// Target is what the hooks' matchers match: the tool's name for the
	// tool events, the trigger (startup, resume, exit) for the session
	// events; "" for the others.
	Target string
	// Input is the event's own fields of the hooks' JSON input, by their
	// names there (tool_name, tool_input, prompt, …).
	Input map[string]any
}

// HookOutcome is what an event's hooks decided, all of them together.
type HookOutcome struct {
	// Block: a hook denied what it hooked (decision "deny" or "block",
	// or exit code 2); Reason says why, for the model.
	Block  bool
	Reason string
	// Ask (BeforeTool): a hook's decision "ask": the user is asked about
	// the call whatever would let it run unasked (Gemini CLI 0.61's
	// forced ask_user), and where nobody can be asked it is refused.
	Ask bool
	// Stop: a hook asked to end the agent's loop ("continue": false).
	Stop       bool
	StopReason string
	// AdditionalContext is for the model, escaped for its tags.
	AdditionalContext string
	// ToolInput (BeforeTool) replaces the call's arguments, whole.
	ToolInput map[string]any
	// ToolConfig (BeforeToolSelection) is the tools the request offers;
	// nil leaves them as they are.
	ToolConfig *HookToolConfig
	// LLMRequest (BeforeModel) is what the hooks changed of the request,
	// in Gemini CLI's LLMRequest format: their llm_requests merged over
	// each other, key by key, in order.
	LLMRequest map[string]any
	// LLMResponse is a response in Gemini CLI's LLMResponse format, the
	// last hook's: for BeforeModel the answer used instead of the model's,
	// for AfterModel the chunk's replacement.
	LLMResponse map[string]any
	// TailCall (AfterTool) is the call a hook asked to run next in the
	// call's place (hookSpecificOutput.tailToolCallRequest, the last
	// hook's): its result is what the model reads as the call's. Nil
	// when none asked.
	TailCall *HookTailCall
	// ClearContext (AfterAgent): a hook asked that the conversation's
	// history be cleared (hookSpecificOutput.clearContext), which is done
	// when the hooks stop or block the agent, as in Gemini CLI.
	ClearContext bool
	// Messages are for the user: the hooks' systemMessages, and each
	// failure of a hook.
	Messages []string
}

// HookTailCall is a call an AfterTool hook asked for: a tool's name, as
// the model would call it, and its arguments.
type HookTailCall struct {
	Name string
	Args map[string]any
}

// HookToolConfig is the BeforeToolSelection hooks' choice of tools:
// Mode "NONE" offers none, "ANY" forces a call of AllowedFunctionNames
// (of any tool when empty), "AUTO" offers AllowedFunctionNames (every
// tool when empty).
type HookToolConfig struct {
	Mode                 string
	AllowedFunctionNames []string
}

func (s *Session) fireHook(ctx context.Context, name, target string, input map[string]any) HookOutcome {
	h := s.agent.cfg.Hooks
	if h == nil || !h.Handles(name) {
		// No hook runs: the event is not made, whose transcript path
		// a session store finds on disk.
		return HookOutcome{}
	}
	return h.Fire(ctx, HookEvent{Name: name, SessionID: s.id, TranscriptPath: s.agent.transcriptPath(s.id), PlansDir: s.knownPlansDir(), Target: target, Input: input})
}

// knownPlansDir is the session's plans directory if it was found already.
func (s *Session) knownPlansDir() string {
	s.plansMu.Lock()
	defer s.plansMu.Unlock()
	return s.plansDir
}

// transcriptPath is the file session id is saved in; "" when none.
func (a *Agent) transcriptPath(id string) string {
	if a.cfg.Store == nil {
		return ""
	}
	path, err := a.cfg.Store.File(id)
	if err != nil {
		return ""
	}
	return path
}

// hookContext wraps a hook's additional context as Gemini CLI hands it
// to the model.
func hookContext(text string) string { return "<hook_context>" + text + "</hook_context>" }

// What the model and the user are told when a hook stops something, in
// Gemini CLI's words.
const (
	hookStoppedPrefix = "Agent execution stopped by hook: "
	hookBlockedTool   = "Tool execution blocked: "
	hookBlockedResult = "Tool result blocked: "
	hookBlockedPrompt = "Agent execution blocked by hook: "
)

// appendToResult adds text to what the model reads of res.
func appendToResult(res tools.Result, text string) tools.Result {
	if res.Error != "" {
		res.Error += text
	} else {
		res.Output += text
	}
	return res
}

// modifiedNote tells the model which arguments a hook rewrote, in Gemini
// CLI's words.
func modifiedNote(keys []string) string {
	return fmt.Sprintf("\n\n[System] Tool input parameters (%s) were modified by a hook before execution.", strings.Join(keys, ", "))
}

func argsOrEmpty(args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

func toJSONText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// takeStartSource is what started the session if its SessionStart hooks
// have not run yet, and marks them run.
func (s *Session) takeStartSource() string {
	s.agent.mu.Lock()
	defer s.agent.mu.Unlock()
	source := s.startSource
	s.startSource = ""
	return source
}

// Close runs the SessionEnd hooks (reason "exit") of the live sessions
// whose SessionStart hooks ran, for a front end that is exiting; what the
// hooks say goes to the log, as nobody is there to read it. Then it kills
// every session's background processes.
func (a *Agent) Close(ctx context.Context) {
	a.mu.Lock()
	var started, live []*Session
	for _, s := range a.sessions {
		live = append(live, s)
		if s.startSource == "" {
			started = append(started, s)
		}
	}
	a.mu.Unlock()
	defer func() {
		for _, s := range live {
			s.closeBackground()
		}
		a.waitExpiry()
		if a.cfg.Store != nil {
			a.cfg.Store.Wait() // the last saves' fsyncs: on disk at a clean exit
		}
	}()
	if a.cfg.Hooks == nil {
		return
	}
	for _, s := range started {
		out := s.fireHook(ctx, HookSessionEnd, "exit", map[string]any{"reason": "exit"})
		for _, msg := range out.Messages {
			a.cfg.Logger.Info("SessionEnd hook", zap.String("sessionId", s.id), zap.String("message", msg))
		}
	}
}

// promptText is the prompt as the BeforeAgent and AfterAgent hooks read
// it: what the user typed, else (a command's expansion) the text of its
// parts.
func promptText(in dialog.Input, parts []*genai.Part) string {
	if strings.TrimSpace(in.Text) != "" {
		return in.Text
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// notify fires the Notification hooks of session sessionID.
func (a *Agent) notify(ctx context.Context, sessionID, kind, title string, details map[string]any) {
	kind = notificationKind(kind)
	details["type"], details["title"] = kind, title
	message := "Tool requires confirmation"
	if what, ok := map[string]string{"edit": "editing", "exec": "execution", "mcp": "MCP", "info": "information"}[kind]; ok {
		message = fmt.Sprintf("Tool %s requires %s", title, what)
	}
	out := a.cfg.Hooks.Fire(ctx, HookEvent{Name: HookNotification, SessionID: sessionID, TranscriptPath: a.transcriptPath(sessionID),
		Input: map[string]any{"notification_type": "ToolPermission", "message": message, "details": details}})
	for _, msg := range out.Messages {
		a.cfg.Logger.Info("Notification hook", zap.String("sessionId", sessionID), zap.String("message", msg))
	}
}

// notificationKind is a confirmation's kind as Gemini CLI names it.
func notificationKind(kind string) string {
	switch kind {
	case "execute":
		return "exec"
	case "edit", "mcp":
		return kind
	}
	return "info"
}

// hookEnd is a model hook ending the turn: a stop ("continue": false) or
// a block.
type hookEnd struct {
	stop   bool
	reason string
}

func (e *hookEnd) Error() string {
	if e.stop {
		return hookStoppedPrefix + e.reason
	}
	return hookBlockedPrompt + e.reason
}
