package hooks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// output is a hook's JSON output, as Gemini CLI reads it.
type output struct {
	Continue           *bool          `json:"continue"`
	StopReason         string         `json:"stopReason"`
	SuppressOutput     bool           `json:"suppressOutput"`
	SystemMessage      string         `json:"systemMessage"`
	Decision           string         `json:"decision"`
	Reason             string         `json:"reason"`
	HookSpecificOutput map[string]any `json:"hookSpecificOutput"`
}

// parseOutput reads text as a hook's JSON output: an object, or a JSON
// string holding one, as Gemini CLI accepts; with JSON.parse's exact
// member names, the last of a name winning ({"Decision": "block"} does not
// block).
func parseOutput(text string) (*output, bool) {
	if text == "" {
		return nil, false
	}
	var raw any
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, false
	}
	if s, ok := raw.(string); ok {
		text = s
	}
	var out output
	if err := jsjson.Decode([]byte(text), &out); err != nil {
		return nil, false
	}
	return &out, true
}

func (o *output) blocks() bool { return o.Decision == "deny" || o.Decision == "block" }
func (o *output) stops() bool  { return o.Continue != nil && !*o.Continue }

// toolInput is BeforeTool's hookSpecificOutput.tool_input, when an object.
func (o *output) toolInput() map[string]any {
	in, _ := o.HookSpecificOutput["tool_input"].(map[string]any)
	return in
}

// tailCall is AfterTool's hookSpecificOutput.tailToolCallRequest, when
// an object: {"name", "args"}. A name that is not text is "", which names
// no tool, and arguments that are not an object are none, as Gemini CLI
// passes them on for the tool to refuse.
func (o *output) tailCall() *agent.HookTailCall {
	req, ok := o.HookSpecificOutput["tailToolCallRequest"].(map[string]any)
	if !ok {
		return nil
	}
	name, _ := req["name"].(string)
	args, _ := req["args"].(map[string]any)
	return &agent.HookTailCall{Name: name, Args: args}
}

// clearsContext is AfterAgent's hookSpecificOutput.clearContext: true.
func (o *output) clearsContext() bool {
	clear, _ := o.HookSpecificOutput["clearContext"].(bool)
	return clear
}

// additionalContext is hookSpecificOutput.additionalContext, when text.
func (o *output) additionalContext() string {
	s, _ := o.HookSpecificOutput["additionalContext"].(string)
	return s
}

// escapeContext keeps a hook's context from closing the tags the model
// reads it in, as Gemini CLI escapes it.
func escapeContext(c string) string {
	return strings.ReplaceAll(strings.ReplaceAll(c, "<", "&lt;"), ">", "&gt;")
}

// llmRequest is BeforeModel's hookSpecificOutput.llm_request, when an
// object.
func (o *output) llmRequest() map[string]any {
	req, _ := o.HookSpecificOutput["llm_request"].(map[string]any)
	return req
}

// llmResponse is the model events' hookSpecificOutput.llm_response, when
// an object.
func (o *output) llmResponse() map[string]any {
	resp, _ := o.HookSpecificOutput["llm_response"].(map[string]any)
	return resp
}

// merge is what an event's hooks decided together, as Gemini CLI's
// aggregator merges them: any block or stop wins, reasons and messages
// are joined, the contexts too, and the last tool_input given is the
// call's arguments, whole (0.61's mergeWithOrDecision spreads each
// hook's hookSpecificOutput over the ones before). The model
// events' decisions are merged as Gemini CLI's mergeWithFieldReplacement:
// later hooks' fields replace earlier ones.
func merge(event string, results []result) agent.HookOutcome {
	if event == agent.HookBeforeModel || event == agent.HookAfterModel {
		return mergeModel(event, results)
	}
	var out agent.HookOutcome
	var reasons, stopReasons, contexts []string
	var tools toolSelection
	for _, res := range results {
		if res.failure != "" {
			out.Messages = append(out.Messages, fmt.Sprintf("Hook %q failed for event %s: %s. It was ignored.", res.name, event, res.failure))
		}
		o := res.output
		if o == nil {
			continue
		}
		if o.SystemMessage != "" {
			out.Messages = append(out.Messages, o.SystemMessage)
		}
		if o.stops() {
			out.Stop = true
			stopReasons = append(stopReasons, firstNonEmpty(o.StopReason, o.Reason))
		}
		if o.blocks() {
			out.Block = true
		}
		if o.Decision == "ask" && event == agent.HookBeforeTool {
			out.Ask = true
		}
		if o.Reason != "" {
			reasons = append(reasons, o.Reason)
		}
		if c := o.additionalContext(); c != "" {
			contexts = append(contexts, escapeContext(c))
		}
		if event == agent.HookBeforeToolSelection {
			tools.add(o.HookSpecificOutput["toolConfig"])
		}
		if tail := o.tailCall(); tail != nil && event == agent.HookAfterTool {
			out.TailCall = tail // the last hook's, as Gemini CLI merges them
		}
		if o.clearsContext() && event == agent.HookAfterAgent {
			out.ClearContext = true
		}
		if in := o.toolInput(); in != nil && event == agent.HookBeforeTool {
			out.ToolInput = maps.Clone(in)
		}
	}
	out.Reason = firstNonEmpty(strings.Join(reasons, "\n"), "No reason provided")
	out.StopReason = firstNonEmpty(strings.Join(nonEmpty(stopReasons), "\n"), "No reason provided")
	out.AdditionalContext = strings.Join(contexts, "\n")
	out.ToolConfig = tools.config()
	return out
}

// mergeModel merges the outcome of a model event's hooks: each field is
// the last hook's that set it (decision, continue, reasons, llm_response),
// the llm_requests are merged over each other key by key; every message
// is kept.
func mergeModel(event string, results []result) agent.HookOutcome {
	var out agent.HookOutcome
	var decision, reason, stopReason string
	for _, res := range results {
		if res.failure != "" {
			out.Messages = append(out.Messages, fmt.Sprintf("Hook %q failed for event %s: %s. It was ignored.", res.name, event, res.failure))
		}
		o := res.output
		if o == nil {
			continue
		}
		if o.SystemMessage != "" {
			out.Messages = append(out.Messages, o.SystemMessage)
		}
		if o.Continue != nil {
			out.Stop = !*o.Continue
		}
		decision = firstNonEmpty(o.Decision, decision)
		reason = firstNonEmpty(o.Reason, reason)
		stopReason = firstNonEmpty(o.StopReason, stopReason)
		if req := o.llmRequest(); req != nil {
			out.LLMRequest = mergedRequest(out.LLMRequest, req)
		}
		if resp := o.llmResponse(); resp != nil {
			out.LLMResponse = resp
		}
	}
	out.Block = decision == "deny" || decision == "block"
	// Gemini CLI's getEffectiveReason, for a block and a stop alike.
	out.Reason = firstNonEmpty(stopReason, reason, "No reason provided")
	out.StopReason = out.Reason
	return out
}

// mergedRequest is req with changes over it, key by key, as Gemini CLI
// hands a sequential BeforeModel hook the request the one before it left.
func mergedRequest(req, changes map[string]any) map[string]any {
	out := make(map[string]any, len(req)+len(changes))
	for k, v := range req {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

// toolSelection merges the BeforeToolSelection hooks' toolConfigs as
// Gemini CLI does: NONE wins, then ANY, else AUTO; the names of all are
// offered (sorted).
type toolSelection struct {
	seen      bool
	none, any bool
	names     []string
}

func (s *toolSelection) add(v any) {
	tc, ok := v.(map[string]any)
	if !ok {
		return
	}
	s.seen = true
	switch tc["mode"] {
	case "NONE":
		s.none = true
	case "ANY":
		s.any = true
	}
	names, _ := tc["allowedFunctionNames"].([]any)
	for _, n := range names {
		if name, ok := n.(string); ok && !slices.Contains(s.names, name) {
			s.names = append(s.names, name)
		}
	}
}

func (s *toolSelection) config() *agent.HookToolConfig {
	switch {
	case !s.seen:
		return nil
	case s.none:
		return &agent.HookToolConfig{Mode: "NONE"}
	}
	mode := "AUTO"
	if s.any {
		mode = "ANY"
	}
	slices.Sort(s.names)
	return &agent.HookToolConfig{Mode: mode, AllowedFunctionNames: s.names}
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func nonEmpty(values []string) []string {
	var out []string
	for _, v := range values {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
