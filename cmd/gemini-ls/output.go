package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/tools"
)

// output renders a headless run in one of the output formats.
type output interface {
	begin(sessionID, model, prompt string)
	event(e agent.Event)
	end(res agent.PromptResult, model string, elapsed time.Duration)
}

func newOutput(format string, w, stderr io.Writer) (output, error) {
	switch format {
	case "text":
		return &textOutput{w: w, stderr: stderr}, nil
	case "json":
		return &jsonOutput{w: w}, nil
	case "stream-json":
		return &streamOutput{enc: json.NewEncoder(w)}, nil
	}
	return nil, fmt.Errorf("--output-format must be text, json or stream-json, not %q", format)
}

// textOutput streams the model's text as it arrives, ending it with a
// newline if it has none. A run that printed nothing leaves stdout empty.
// What the user must know that is not the answer (a retry's wait, a switch
// of model, a compression) goes to stderr.
type textOutput struct {
	w, stderr io.Writer
	wrote     bool
	endedNL   bool
}

func (o *textOutput) begin(string, string, string) {}

func (o *textOutput) event(e agent.Event) {
	switch {
	case e.Kind == agent.EventText && e.Text != "":
		fmt.Fprint(o.w, e.Text)
		o.wrote = true
		o.endedNL = e.Text[len(e.Text)-1] == '\n'
	case e.Kind == agent.EventRetry || e.Kind == agent.EventNotice || e.Kind == agent.EventCompressed:
		fmt.Fprintf(o.stderr, "gemini-ls: %s\n", describe(e))
	}
}

// describe is an event that is not the answer, in words.
func describe(e agent.Event) string {
	switch e.Kind {
	case agent.EventRetry:
		return fmt.Sprintf("%s; trying again in %s (attempt %d)", e.Retry.Reason, e.Retry.Delay.Round(time.Millisecond), e.Retry.Attempt+1)
	case agent.EventCompressed:
		return fmt.Sprintf("the conversation was compressed from %d to %d tokens", e.Compressed.Before, e.Compressed.After)
	}
	return e.Text
}

func (o *textOutput) end(agent.PromptResult, string, time.Duration) {
	if o.wrote && !o.endedNL {
		fmt.Fprintln(o.w)
	}
}

// stats is the accounting printed by the json formats.
type stats struct {
	Models map[string]modelStats `json:"models"`
	// Session is the tokens of the whole session, earlier runs included
	// when it was resumed.
	Session    *tokenStats `json:"session,omitempty"`
	Tools      toolStats   `json:"tools"`
	DurationMS int64       `json:"duration_ms"`
}

type modelStats struct {
	Tokens tokenStats `json:"tokens"`
}

type tokenStats struct {
	Prompt     int32 `json:"prompt"`
	Candidates int32 `json:"candidates"`
	Thoughts   int32 `json:"thoughts"`
	Total      int32 `json:"total"`
}

type toolStats struct {
	TotalCalls   int                  `json:"totalCalls"`
	TotalSuccess int                  `json:"totalSuccess"`
	TotalFail    int                  `json:"totalFail"`
	ByName       map[string]toolCount `json:"byName"`
}

type toolCount struct {
	Count   int `json:"count"`
	Success int `json:"success"`
	Fail    int `json:"fail"`
}

// tally accumulates stats from events.
type tally struct {
	tools   toolStats
	session *tokenStats // from the last usage event
}

func (t *tally) event(e agent.Event) {
	if e.Kind == agent.EventUsage {
		u := e.SessionUsage
		t.session = &tokenStats{Prompt: u.PromptTokens, Candidates: u.CandidatesTokens, Thoughts: u.ThoughtsTokens, Total: u.TotalTokens}
	}
	if e.Kind != agent.EventToolResult {
		return
	}
	if t.tools.ByName == nil {
		t.tools.ByName = map[string]toolCount{}
	}
	c := t.tools.ByName[e.ToolResult.Name]
	c.Count++
	t.tools.TotalCalls++
	if e.ToolResult.Status == tools.StatusOK {
		c.Success++
		t.tools.TotalSuccess++
	} else {
		c.Fail++
		t.tools.TotalFail++
	}
	t.tools.ByName[e.ToolResult.Name] = c
}

func (t *tally) stats(res agent.PromptResult, model string, elapsed time.Duration) stats {
	if t.tools.ByName == nil {
		t.tools.ByName = map[string]toolCount{}
	}
	return stats{
		Models: map[string]modelStats{model: {Tokens: tokenStats{
			Prompt: res.Usage.PromptTokens, Candidates: res.Usage.CandidatesTokens,
			Thoughts: res.Usage.ThoughtsTokens, Total: res.Usage.TotalTokens,
		}}},
		Session:    t.session,
		Tools:      t.tools,
		DurationMS: elapsed.Milliseconds(),
	}
}

type jsonError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func errorOf(res agent.PromptResult) *jsonError {
	switch {
	case res.StopReason == agent.StopEndTurn:
		return nil
	case res.Err != nil:
		return &jsonError{Type: string(res.StopReason), Message: res.Err.Error()}
	default:
		return &jsonError{Type: string(res.StopReason), Message: string(res.StopReason)}
	}
}

// jsonOutput prints one object when the run ends.
type jsonOutput struct {
	w         io.Writer
	sessionID string
	tally
}

func (o *jsonOutput) begin(sessionID, _, _ string) { o.sessionID = sessionID }

func (o *jsonOutput) end(res agent.PromptResult, model string, elapsed time.Duration) {
	enc := json.NewEncoder(o.w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(struct {
		SessionID string     `json:"session_id"`
		Response  string     `json:"response"`
		Stats     stats      `json:"stats"`
		Error     *jsonError `json:"error"`
	}{o.sessionID, res.Text, o.stats(res, model, elapsed), errorOf(res)})
}

// streamOutput prints one JSON event per line as the run goes.
type streamOutput struct {
	enc *json.Encoder
	tally
}

type streamEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`

	SessionID string `json:"session_id,omitempty"`
	Model     string `json:"model,omitempty"`

	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Delta   bool   `json:"delta,omitempty"`

	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`

	ToolName   string         `json:"tool_name,omitempty"`
	ToolID     string         `json:"tool_id,omitempty"`
	Title      string         `json:"title,omitempty"`
	Parameters map[string]any `json:"parameters,omitempty"`
	Status     string         `json:"status,omitempty"`
	Output     string         `json:"output,omitempty"`

	Message string     `json:"message,omitempty"`
	Error   *jsonError `json:"error,omitempty"`
	Stats   *stats     `json:"stats,omitempty"`
}

func (o *streamOutput) emit(e streamEvent) {
	e.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	_ = o.enc.Encode(e)
}

func (o *streamOutput) begin(sessionID, model, prompt string) {
	o.emit(streamEvent{Type: "init", SessionID: sessionID, Model: model})
	o.emit(streamEvent{Type: "message", Role: "user", Content: prompt})
}

func (o *streamOutput) event(e agent.Event) {
	o.tally.event(e)
	switch e.Kind {
	case agent.EventText:
		o.emit(streamEvent{Type: "message", Role: "assistant", Content: e.Text, Delta: true})
	case agent.EventThought:
		o.emit(streamEvent{Type: "thought", Subject: e.Thought.Subject, Description: e.Thought.Description})
	case agent.EventToolCall:
		o.emit(streamEvent{Type: "tool_use", ToolName: e.ToolCall.Name, ToolID: e.ToolCall.CallID, Title: e.ToolCall.Title, Parameters: e.ToolCall.Args})
	case agent.EventToolResult:
		o.emit(streamEvent{Type: "tool_result", ToolID: e.ToolResult.CallID, ToolName: e.ToolResult.Name, Status: string(e.ToolResult.Status), Output: e.ToolResult.Display})
	case agent.EventError:
		if e.Err != nil {
			o.emit(streamEvent{Type: "error", Message: e.Err.Error()})
		}
	case agent.EventRetry:
		o.emit(streamEvent{Type: "retry", Message: describe(e)})
	case agent.EventNotice, agent.EventCompressed:
		o.emit(streamEvent{Type: "notice", Message: describe(e)})
	}
}

func (o *streamOutput) end(res agent.PromptResult, model string, elapsed time.Duration) {
	status := "success"
	if res.StopReason != agent.StopEndTurn {
		status = string(res.StopReason)
	}
	st := o.stats(res, model, elapsed)
	o.emit(streamEvent{Type: "result", Status: status, Error: errorOf(res), Stats: &st})
}

// jsonOutput tallies too.
func (o *jsonOutput) event(e agent.Event) { o.tally.event(e) }
