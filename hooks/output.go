package hooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/agent"
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
// string holding one, as Gemini CLI accepts.
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
	if err := json.Unmarshal([]byte(text), &out); err != nil {
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

// additionalContext is hookSpecificOutput.additionalContext, when text.
func (o *output) additionalContext() string {
	s, _ := o.HookSpecificOutput["additionalContext"].(string)
	return s
}

// contextEscaper keeps a hook's context from closing the tags the model
// reads it in, as Gemini CLI escapes it.
var contextEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;")

// merge is what an event's hooks decided together, as Gemini CLI's
// aggregator merges them: any block or stop wins, reasons and messages
// are joined, the contexts too, and later tool_input keys win.
func merge(event string, results []result) agent.HookOutcome {
	var out agent.HookOutcome
	var reasons, stopReasons, contexts []string
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
		if o.Reason != "" {
			reasons = append(reasons, o.Reason)
		}
		if c := o.additionalContext(); c != "" {
			contexts = append(contexts, contextEscaper.Replace(c))
		}
		if in := o.toolInput(); in != nil && event == agent.HookBeforeTool {
			if out.ToolInput == nil {
				out.ToolInput = map[string]any{}
			}
			for k, v := range in {
				out.ToolInput[k] = v
			}
		}
	}
	out.Reason = firstNonEmpty(strings.Join(reasons, "\n"), "No reason provided")
	out.StopReason = firstNonEmpty(strings.Join(nonEmpty(stopReasons), "\n"), "No reason provided")
	out.AdditionalContext = strings.Join(contexts, "\n")
	return out
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
