package conversation

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// Exchange is one prompt of a saved session, as it is shown again.
type Exchange struct {
	// Prompt is the prompt as the user typed it.
	Prompt string
	// Answer is all the model said, as the user saw it.
	Answer string
	// Ending is how the prompt ended: Done where the save does not say
	// (recorded false).
	Ending   Ending
	recorded bool
	// events are the turn as it was streamed (Show).
	events []dialog.Event
}

// Show shows the prompt's turn again through v, as the live turn showed
// it: the model's text, and each call (titled as its tool titles it)
// followed by its result. Thoughts are not saved. An exchange a
// compression summarised away shows its answer as its one text.
func (x Exchange) Show(ctx context.Context, v ReplayView) {
	for _, e := range x.events {
		v.Show(ctx, dialog.Subagent{}, e)
	}
}

// Reason is how the prompt ended in the wires' word (Ending.Reason);
// "" where the save does not say.
func (x Exchange) Reason() string {
	if !x.recorded {
		return ""
	}
	return x.Ending.Reason()
}

// ended records that the prompt ended as the agent saved it, r.
func (x *Exchange) ended(r dialog.StopReason) {
	x.Ending, x.recorded = endingOf(r), r != ""
}

// Describe is the title, kind and location a call of tool name with args
// has (dialog.ToolCall's Title, Kind, Path and Line).
type Describe func(name string, args map[string]any) dialog.ToolCall

// Describer describes calls as reg's tools do: by the tool's own title
// and location, else (a tool not there now, as an MCP server not started
// yet, or args it refuses) by the tool's name.
func Describer(reg *tools.Registry) Describe {
	return func(name string, args map[string]any) dialog.ToolCall {
		if reg == nil {
			return dialog.ToolCall{Title: name}
		}
		t, ok := reg.Get(name)
		if !ok {
			return dialog.ToolCall{Title: name}
		}
		call, err := t.Build(args)
		if err != nil {
			return dialog.ToolCall{Title: name}
		}
		var d dialog.ToolCall
		tools.Present(t, call, &d)
		return d
	}
}

// replaySaved is saved session id of ag as it is shown again, a prompt
// at a time; it resumes the session if it is not live.
func replaySaved(ctx context.Context, ag *agent.Agent, id string, describe Describe) (dialog.SessionInfo, []Exchange, error) {
	info, exchanges, err := ag.Transcript(ctx, id)
	if err != nil {
		return dialog.SessionInfo{}, nil, err
	}
	sess, err := ag.Session(ctx, id)
	if err != nil {
		return dialog.SessionInfo{}, nil, err
	}
	history, err := sess.History()
	if err != nil {
		return dialog.SessionInfo{}, nil, fmt.Errorf("reading the session's history: %w", err)
	}
	return info, replay(history, exchanges, describe), nil
}

// MaxReplayedOutput bounds the text of a replayed call's result: the
// model had it all, the user was shown a summary that was not saved.
const MaxReplayedOutput = 2000

// replay merges the transcript (the prompts as typed, the answers as
// shown) with the history (the calls and their results).
func replay(history []*genai.Content, exchanges []agent.Exchange, describe Describe) []Exchange {
	history = history[agent.CompressedPrefix(history):]
	results := map[string]*genai.FunctionResponse{}
	prompts := 0
	for _, c := range history {
		if isPrompt(c) {
			prompts++
		}
		for _, p := range c.Parts {
			if r := p.FunctionResponse; r != nil && r.ID != "" {
				results[r.ID] = r
			}
		}
	}
	var out []Exchange
	// The history's prompts are the transcript's last ones; those before
	// were summarised away and are shown from the transcript alone.
	earlier := max(0, len(exchanges)-prompts)
	for _, e := range exchanges[:earlier] {
		x := Exchange{Prompt: e.Prompt, Answer: e.Answer}
		x.ended(e.StopReason)
		out = append(out, x)
	}
	k := len(exchanges) - prompts // the exchange of the next prompt
	var cur *Exchange
	for _, c := range history {
		switch {
		case isPrompt(c):
			x := Exchange{Prompt: contentText(c)}
			if k >= 0 {
				e := exchanges[k]
				x.Prompt, x.Answer = e.Prompt, e.Answer
				x.ended(e.StopReason)
			}
			k++
			out = append(out, x)
			cur = &out[len(out)-1]
		case c.Role == genai.RoleModel && cur != nil:
			for _, p := range c.Parts {
				switch {
				case p.FunctionCall != nil:
					call, result := callEvents(p.FunctionCall, results[p.FunctionCall.ID], describe)
					cur.events = append(cur.events, call, result)
				case !p.Thought && strings.TrimSpace(p.Text) != "":
					cur.events = append(cur.events, dialog.TextEvent{Text: p.Text})
				}
			}
		}
	}
	// A prompt the history holds nothing of after it shows its answer
	// from the transcript: one summarised away, or one the model did not
	// answer ("!command" of shell mode, whose output the user was shown).
	for i := range out {
		if x := &out[i]; len(x.events) == 0 && strings.TrimSpace(x.Answer) != "" {
			x.events = append(x.events, dialog.TextEvent{Text: x.Answer})
		}
	}
	return out
}

// callEvents are a call and how it ended; a call the history holds no
// result for was cut short.
func callEvents(fc *genai.FunctionCall, res *genai.FunctionResponse, describe Describe) (dialog.ToolCallEvent, dialog.ToolResultEvent) {
	call := describe(fc.Name, fc.Args)
	call.CallID, call.Name, call.Args = fc.ID, fc.Name, fc.Args
	result := dialog.ToolResult{CallID: fc.ID, Name: fc.Name, Status: dialog.StatusCancelled}
	if res != nil {
		result.Status, result.Display = dialog.StatusOK, resultText(res.Response)
		if _, failed := res.Response["error"]; failed {
			result.Status = dialog.StatusError
		}
	}
	return dialog.ToolCallEvent{Call: call}, dialog.ToolResultEvent{Result: result}
}

// resultText is what a call's response said: its error, or its output,
// cut to MaxReplayedOutput.
func resultText(response map[string]any) string {
	v, ok := response["error"]
	if !ok {
		v = response["output"]
	}
	text, ok := v.(string)
	if !ok && v != nil {
		b, _ := json.Marshal(v)
		text = string(b)
	}
	if len(text) <= MaxReplayedOutput {
		return text
	}
	cut := MaxReplayedOutput
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "\n…"
}

// isPrompt reports whether c is a prompt's input, not calls' responses.
func isPrompt(c *genai.Content) bool {
	if c.Role != genai.RoleUser {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return false
		}
	}
	return true
}

// contentText is c's text parts, for a prompt with no transcript entry.
func contentText(c *genai.Content) string {
	var texts []string
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
