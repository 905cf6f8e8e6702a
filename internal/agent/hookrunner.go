package agent

// The hooks of a prompt's turn: at its calls (BeforeTool, AfterTool),
// its model requests (BeforeToolSelection, BeforeModel, AfterModel) and
// the questions it puts (Notification).

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// hookRunner fires the session's hooks for one prompt's turn, at its
// calls and model requests. Its dependencies are passed in, and what the
// hooks say goes to tell.
type hookRunner struct {
	ctx   context.Context
	hooks Hooks // nil: none configured
	// fireQuiet fires an event's hooks in the session (Session.fireHook),
	// telling no one what they said.
	fireQuiet func(ctx context.Context, name, target string, input map[string]any) HookOutcome
	// notify fires the session's Notification hooks (Agent.notify).
	notify func(ctx context.Context, kind, title string, details map[string]any)
	// tell shows the user a notice.
	tell func(text string)
	// build builds a call of tool from the arguments a hook rewrote.
	build func(tool tools.Tool, args map[string]any) (tools.Call, error)
	// stopLater ends the agent's loop once the calls running end: a
	// hook's "continue": false.
	stopLater func(reason string)
	// activeModel is the model the BeforeModel hooks are told of.
	activeModel func() string
}

// hooks is the turn's hookRunner, kept: every call and model request of
// the turn asks for it, and each would otherwise allocate it and its
// closures anew. Calls running at once may each make one the first time;
// any of them does.
func (t *turn) hooks() *hookRunner {
	if h := t.hookRunner.Load(); h != nil {
		return h
	}
	h := t.newHookRunner()
	t.hookRunner.Store(h)
	return h
}

// setContext has the turn run under ctx from now on, its hooks too.
func (t *turn) setContext(ctx context.Context) {
	t.ctx = ctx
	t.hookRunner.Store(nil) // it holds the context before
}

func (t *turn) newHookRunner() *hookRunner {
	s, a := t.s, t.s.agent
	return &hookRunner{
		ctx:       t.ctx,
		hooks:     a.cfg.Hooks,
		fireQuiet: s.fireHook,
		notify: func(ctx context.Context, kind, title string, details map[string]any) {
			a.notify(ctx, s.id, kind, title, details)
		},
		tell:        func(text string) { t.emit(dialog.NoticeEvent{Text: text}) },
		build:       s.build,
		stopLater:   t.stopByHookLater,
		activeModel: a.activeModel,
	}
}

// handles says whether any hook runs at event name.
func (h *hookRunner) handles(name string) bool {
	return h.hooks != nil && h.hooks.Handles(name)
}

// fire runs the hooks of event name in the session, if any, and tells
// the user what they said.
func (h *hookRunner) fire(name, target string, input map[string]any) HookOutcome {
	out := h.fireQuiet(h.ctx, name, target, input)
	for _, msg := range out.Messages {
		h.tell(msg)
	}
	return out
}

// hookedCall is a call as the BeforeTool hooks let it run.
type hookedCall struct {
	call tools.Call
	// args are what it runs with; changed the arguments hooks rewrote.
	args    map[string]any
	changed []string
	// ask: a hook asked that the user be asked about the call.
	ask bool
}

// beforeTool runs the BeforeTool hooks on a call of tool, before the
// approval door sees it, as Gemini CLI 0.61's scheduler does
// (_processToolCall runs evaluateBeforeToolHook, then checkPolicy and the
// confirmation: chunk-JDPZ4CE3.js:347767-347778): the hooks hear calls the
// door then refuses, a call they block is never asked about, and a call
// they rewrite goes through the door as rewritten. It returns the call
// to take to the door: call itself, or, when a hook gave its arguments,
// the call built anew from them; or the result to answer
// with instead, ok false. The model's call (named called) is left as the
// model made it: the history keeps what the model asked for. args are its
// arguments as Gemini CLI 0.61 names them (tools.NormalizeArgs), the
// hooks' tool_input. original is the name of the model's call when this
// one is a hook's tail call in its place, else "".
func (h *hookRunner) beforeTool(called, original string, tool tools.Tool, call tools.Call, args map[string]any) (hookedCall, tools.Result, bool) {
	hooked := hookedCall{call: call, args: argsOrEmpty(args)}
	var out HookOutcome // none when no hook runs: their input is not made
	if h.handles(HookBeforeTool) {
		out = h.fire(HookBeforeTool, tool.Name(), toolHookInput(tool, hooked.args, original))
	}
	hooked.ask = out.Ask
	switch {
	case h.ctx.Err() != nil:
		return hooked, tools.Result{Error: cancelledMessage, Status: dialog.StatusCancelled}, false
	case out.Stop:
		h.stopLater(out.StopReason)
		return hooked, tools.Result{Error: hookStoppedPrefix + out.StopReason}, false
	case out.Block:
		return hooked, tools.Result{Error: hookBlockedTool + out.Reason}, false
	case len(out.ToolInput) == 0:
		return hooked, tools.Result{}, true
	}
	// The hooks' tool_input is the call's arguments, whole: 0.61's
	// scheduler builds the call anew from it alone and runs, confirms and
	// logs it with it (evaluateBeforeToolHook's tool.build(modifiedInput)
	// and request.args = modifiedArgs, chunk-JDPZ4CE3.js:342136, :347774),
	// so an argument the hook leaves out is gone.
	args, err := tools.NormalizeArgs(tool, out.ToolInput)
	if err != nil {
		return hooked, tools.Result{Error: "Tool parameter modification by hook failed validation: " + err.Error()}, false
	}
	// Both sides as the tool reads them, so a number is not "changed" by
	// its JSON type alone.
	before, err := tools.NormalizeArgs(tool, hooked.args)
	if err != nil {
		before = hooked.args
	}
	hooked.changed = changedArgs(before, args)
	if hooked.changed == nil {
		return hooked, tools.Result{}, true // the model's arguments, given back
	}
	hooked.args = args
	next, err := h.build(tool, hooked.args)
	if err != nil {
		return hooked, tools.Result{Error: "Tool parameter modification by hook failed validation: " + err.Error()}, false
	}
	hooked.call = next
	h.tell(fmt.Sprintf("A BeforeTool hook changed %s of the %s call before it ran: %s", strings.Join(hooked.changed, ", "), called, toJSONText(hooked.args)))
	return hooked, tools.Result{}, true
}

// toolHookInput is the BeforeTool and AfterTool hooks' input about a
// call of tool with args: tool_name is the tool's name, as Gemini CLI
// 0.61 names it (an MCP tool's mcp_SERVER_TOOL, also for a call by the
// name gemini-ls gave it before: tools.Renamed), and an MCP tool's call
// has its server's mcp_context, as 0.61's has (hookEventHandler
// fireBeforeToolEvent, chunk-JDPZ4CE3.js:363866). A hook's tail call
// names, in original_request_name, the call of the model's it stands in
// for (original), as 0.61's does.
func toolHookInput(tool tools.Tool, args map[string]any, original string) map[string]any {
	input := map[string]any{"tool_name": tool.Name(), "tool_input": args}
	if m, ok := tool.(mcpContexted); ok {
		input["mcp_context"] = m.MCPContext()
	}
	if original != "" {
		input["original_request_name"] = original
	}
	return input
}

// mcpContexted is an MCP tool, which tells hooks of its server.
type mcpContexted interface {
	MCPContext() map[string]any
}

// afterTool runs the AfterTool hooks on the result of a call of tool
// that ran with args (a tail call in the place of the model's call named
// original, when that is not ""), and returns the result the model is
// told, and the call the hooks asked to run in its place (nil for none):
// not when they stopped the agent or blocked the result, as in Gemini
// CLI 0.61 (executeToolWithHooks).
func (h *hookRunner) afterTool(tool tools.Tool, args map[string]any, original string, res tools.Result) (tools.Result, *HookTailCall) {
	if !h.handles(HookAfterTool) {
		return res, nil
	}
	response := map[string]any{"llmContent": res.Output, "returnDisplay": res.Display}
	if res.Error != "" {
		response["llmContent"] = res.Error
		response["error"] = map[string]any{"message": res.Error}
	}
	input := toolHookInput(tool, args, original)
	input["tool_response"] = response
	out := h.fire(HookAfterTool, tool.Name(), input)
	switch {
	case out.Stop:
		h.stopLater(out.StopReason)
		return tools.Result{Error: hookStoppedPrefix + out.StopReason}, nil
	case out.Block:
		return tools.Result{Error: hookBlockedResult + out.Reason}, nil
	case out.AdditionalContext != "":
		res = appendToResult(res, "\n\n"+hookContext(out.AdditionalContext))
	}
	return res, out.TailCall
}

// selectTools runs the BeforeToolSelection hooks on a request to model
// with contents that offers tools, and applies their choice to config:
// NONE offers no tool, ANY has the model call one of those named (any
// when none is), AUTO with names offers only those. Gemini's API takes
// names with ANY alone, so AUTO's are applied by leaving the others out.
func (h *hookRunner) selectTools(model string, contents []*genai.Content, config *genai.GenerateContentConfig) {
	if h.hooks == nil || len(config.Tools) == 0 || !h.hooks.Handles(HookBeforeToolSelection) {
		return
	}
	out := h.fire(HookBeforeToolSelection, "", map[string]any{"llm_request": hookRequest(model, contents, config)})
	tc := out.ToolConfig
	if tc == nil {
		return
	}
	switch tc.Mode {
	case "NONE":
		config.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}}
	case "ANY":
		config.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: tc.AllowedFunctionNames}}
	default:
		if len(tc.AllowedFunctionNames) == 0 {
			return
		}
		var kept []*genai.FunctionDeclaration
		for _, d := range config.Tools[0].FunctionDeclarations {
			if slices.Contains(tc.AllowedFunctionNames, d.Name) {
				kept = append(kept, d)
			}
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: kept}}
		if len(kept) == 0 {
			config.Tools = nil
		}
	}
}

// notifyPermission fires the Notification hooks before the user is
// asked about a call of kind (a tools.Confirmation's) titled title
// (notification_type "ToolPermission"), with Gemini CLI's message and
// details. They only observe: what they say goes to the log.
func (h *hookRunner) notifyPermission(kind, title string, details map[string]any) {
	if h.handles(HookNotification) {
		h.notify(h.ctx, kind, title, details)
	}
}

// beforeModel runs the BeforeModel hooks on req. It returns the request
// to send, as they changed it, or the answer they gave instead of the
// model's (nil when none); a *hookEnd when they stopped or blocked the
// request. A hook's llm_response is the answer whether or not it also
// blocks, as the documentation says (Gemini CLI itself reads it only
// with a block, which is then shown too).
func (h *hookRunner) beforeModel(req modelRequest) (modelRequest, *genai.GenerateContentResponse, error) {
	if !h.handles(HookBeforeModel) {
		return req, nil, nil
	}
	out := h.fire(HookBeforeModel, "", map[string]any{"llm_request": hookRequest(h.activeModel(), req.contents, req.config)})
	if h.ctx.Err() != nil {
		return req, nil, h.ctx.Err()
	}
	if out.Stop {
		return req, nil, &hookEnd{stop: true, reason: out.StopReason}
	}
	var answer *genai.GenerateContentResponse
	if out.LLMResponse != nil {
		resp, err := syntheticResponse(out.LLMResponse)
		if err != nil {
			h.tell(fmt.Sprintf("A BeforeModel hook's llm_response was ignored: %v.", err))
		}
		answer = resp
	}
	switch {
	case out.Block && answer == nil:
		return req, nil, &hookEnd{reason: out.Reason}
	case out.Block:
		h.tell(hookBlockedPrompt + out.Reason)
		return req, answer, nil
	case answer != nil:
		return req, answer, nil
	case out.LLMRequest == nil:
		return req, nil, nil
	}
	changed, err := applyHookRequest(req, out.LLMRequest)
	if err != nil {
		h.tell(fmt.Sprintf("A BeforeModel hook's llm_request was ignored: %v.", err))
		return req, nil, nil
	}
	return changed, nil, nil
}

// afterModel fires the AfterModel hooks on each chunk of one streamed
// answer, as Gemini CLI does; nil when none are configured.
type afterModel struct {
	h *hookRunner
	// request is the request as the hooks read it, made once.
	request map[string]any
	// told are the messages already shown for this answer: a hook that
	// fails on every chunk is reported once, as in Gemini CLI.
	told map[string]bool
}

func (h *hookRunner) afterModel(model string, req modelRequest) *afterModel {
	if !h.handles(HookAfterModel) {
		return nil
	}
	return &afterModel{h: h, request: hookRequest(model, req.contents, req.config), told: map[string]bool{}}
}

// fire returns the chunk as the hooks left it, or a *hookEnd.
func (m *afterModel) fire(resp *genai.GenerateContentResponse) (*genai.GenerateContentResponse, error) {
	h := m.h
	out := h.fireQuiet(h.ctx, HookAfterModel, "", map[string]any{"llm_request": m.request, "llm_response": hookResponse(resp)})
	for _, msg := range out.Messages {
		m.tell(msg)
	}
	switch {
	case h.ctx.Err() != nil:
		return nil, h.ctx.Err()
	case out.Stop:
		return nil, &hookEnd{stop: true, reason: out.StopReason}
	case out.Block:
		return nil, &hookEnd{reason: out.Reason}
	case out.LLMResponse == nil:
		return resp, nil
	}
	replaced, _, err := replaceResponse(resp, out.LLMResponse)
	if err != nil {
		m.tell(fmt.Sprintf("An AfterModel hook's llm_response was ignored: %v.", err))
	}
	return replaced, nil
}

func (m *afterModel) tell(msg string) {
	if !m.told[msg] {
		m.told[msg] = true
		m.h.tell(msg)
	}
}

// changedArgs are the names of the arguments that differ between before
// and after, one left out included, sorted; nil when none does. The model
// is told these, never an argument the hook gave back as it was.
func changedArgs(before, after map[string]any) []string {
	var changed []string
	for k, v := range after {
		if old, ok := before[k]; !ok || !reflect.DeepEqual(old, v) {
			changed = append(changed, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			changed = append(changed, k)
		}
	}
	slices.Sort(changed)
	return changed
}
