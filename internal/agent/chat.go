package agent

import (
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// chat keeps a session's history the way Gemini CLI's GeminiChat curates
// it. The session runs one prompt at a time, so chat needs no lock of its
// own beyond the session's.
type chat struct {
	history []*genai.Content
	// calls numbers the ids given to function calls the model sent without one.
	calls int
	// idPrefix starts the ids given: a subagent's are its invoke_agent
	// call's id and a dot, so that none is an id the main agent's calls
	// have (ACP clients key tool calls and permissions by id).
	idPrefix string
	// epoch counts the times the whole history was replaced (compressed),
	// so that a copy kept elsewhere knows to rewrite it, not append to it.
	epoch int
	// promptTokens is the prompt size the last response reported: what
	// compression compares with the threshold, as Gemini CLI does.
	promptTokens int32
	// compressionFailed is set when a summary would not have made the
	// history smaller; compression is not tried again in the session.
	compressionFailed bool
	// save, while a prompt is recorded as it runs (livesave.go), saves
	// each content the history gains.
	save func(sessionstore.Step)
	// masks are the old tool outputs masked in what is sent (masking.go).
	masks masker
	// context is the session context every request begins with, nil
	// for none (envcontext.go); never part of history, so never saved:
	// a resumed session gets its own, as in Gemini CLI. head is the
	// first content sent with it, made once for each first content, so
	// that what is sent stays the same content from one request to the
	// next (auth's encoding cache keys a conversation by it).
	context *genai.Content
	head    struct{ of, merged *genai.Content }
}

// record appends c to the history.
func (c *chat) record(content *genai.Content) {
	c.recordStep(sessionstore.Step{Content: content})
}

// recordStep appends st's content to the history: a model answer with
// the model that gave it and its tokens.
func (c *chat) recordStep(st sessionstore.Step) {
	c.history = append(c.history, st.Content)
	if c.save != nil {
		c.save(st)
	}
}

// contents is the history to send: a model turn that answered nothing is
// left out together with the input it answered, so the API never sees an
// empty turn; the session context first, in the first user content, as
// Gemini CLI 0.61 joins the two (coalesceConsecutiveRoles).
func (c *chat) contents() []*genai.Content {
	out := make([]*genai.Content, 0, len(c.history)+1)
	for _, content := range c.history {
		if content.Role == genai.RoleModel && len(content.Parts) == 0 {
			if n := len(out); n > 0 && out[n-1].Role == genai.RoleUser {
				out = out[:n-1]
			}
			continue
		}
		out = append(out, content)
	}
	return c.withContext(out)
}

// withContext is contents with the session context first: joined to the
// first content when that is the user's, else before it.
func (c *chat) withContext(contents []*genai.Content) []*genai.Content {
	switch {
	case c.context == nil:
		return contents
	case len(contents) == 0 || contents[0].Role != genai.RoleUser:
		return append([]*genai.Content{c.context}, contents...)
	}
	if c.head.of != contents[0] {
		parts := append(append(make([]*genai.Part, 0, len(c.context.Parts)+len(contents[0].Parts)), c.context.Parts...), contents[0].Parts...)
		c.head.of, c.head.merged = contents[0], &genai.Content{Role: genai.RoleUser, Parts: parts}
	}
	contents[0] = c.head.merged
	return contents
}

// first is the first content the conversation sends, nil before any.
func (c *chat) first() *genai.Content {
	if contents := c.contents(); len(contents) > 0 {
		return contents[0]
	}
	return nil
}

// callID returns the call's id, or a new one unique in the session.
func (c *chat) callID(fc *genai.FunctionCall) string {
	if fc.ID != "" {
		return fc.ID
	}
	c.calls++
	return fmt.Sprintf("%scall_%d", c.idPrefix, c.calls)
}

// modelTurn gathers one streamed model answer.
type modelTurn struct {
	// parts is what history keeps: no thoughts, adjacent texts merged,
	// thought signatures on the parts that carried them.
	parts []*genai.Part
	calls []*genai.FunctionCall
	text  strings.Builder
	// sep is what went before this answer's text in the prompt's text: a
	// blank line when an earlier model turn of the prompt said something,
	// so that "…a greeting." and "Done: …" do not run together.
	sep string

	// What emptyAnswer judges: whether any response had a candidate, the
	// last finish reason given, and whether the model thought.
	candidates bool
	finish     genai.FinishReason
	thoughts   bool
}

// add takes one streamed part and returns the event it makes, if any.
func (t *modelTurn) add(c *chat, p *genai.Part) (dialog.Event, bool) {
	switch {
	case p.Thought:
		t.thoughts = true
		if p.ThoughtSignature != nil {
			// Thoughts are not kept, but their signature must go back.
			t.keep(&genai.Part{ThoughtSignature: p.ThoughtSignature})
		}
		if strings.TrimSpace(p.Text) == "" {
			return nil, false
		}
		return dialog.ThoughtEvent{Thought: parseThought(p.Text)}, true
	case p.FunctionCall != nil:
		fc := *p.FunctionCall
		fc.ID = c.callID(&fc)
		if fc.Args == nil {
			fc.Args = map[string]any{}
		}
		t.calls = append(t.calls, &fc)
		t.keep(&genai.Part{FunctionCall: &fc, ThoughtSignature: p.ThoughtSignature})
		return nil, false
	case isText(p) && p.Text == "" && p.ThoughtSignature == nil:
		// The stream's last chunk often holds only an empty text: kept,
		// it would go back to the model as an empty part ({}), which
		// 0.61 leaves out (isValidContent).
		return nil, false
	case isText(p):
		t.keep(&genai.Part{Text: p.Text, ThoughtSignature: p.ThoughtSignature})
		if p.Text == "" {
			return nil, false
		}
		t.text.WriteString(p.Text)
		return dialog.TextEvent{Text: p.Text}, true
	default:
		t.keep(p)
		return nil, false
	}
}

// keep appends p to the stored parts, merging adjacent texts. Two parts that
// each carry a signature stay apart so neither signature is lost.
func (t *modelTurn) keep(p *genai.Part) {
	if n := len(t.parts); n > 0 && isText(p) && isText(t.parts[n-1]) {
		prev := t.parts[n-1]
		if prev.ThoughtSignature == nil || p.ThoughtSignature == nil {
			merged := &genai.Part{Text: prev.Text + p.Text, ThoughtSignature: prev.ThoughtSignature}
			if merged.ThoughtSignature == nil {
				merged.ThoughtSignature = p.ThoughtSignature
			}
			t.parts[n-1] = merged
			return
		}
	}
	t.parts = append(t.parts, p)
}

// emptyAnswer returns an *EmptyAnswerError when the answer says nothing
// the user or the loop can use: no candidates, a malformed call, or no
// text and no call. (An answer without a finish reason never gets here:
// the stream retries it or reports it cut off.) An answer to function responses
// may be empty when the model simply finished (STOP), as Gemini CLI allows.
func (t *modelTurn) emptyAnswer(answersFunctions bool) error {
	if len(t.calls) > 0 {
		return nil
	}
	empty := strings.TrimSpace(t.text.String()) == ""
	e := &EmptyAnswerError{FinishReason: t.finish}
	switch {
	case !t.candidates:
		e.What = "the response had no candidates"
	case t.finish == genai.FinishReasonMalformedFunctionCall:
		e.What = "its function call was malformed"
	case t.finish == genai.FinishReasonUnexpectedToolCall:
		e.What = "it called a tool that was not declared"
	case !empty:
		return nil
	case t.finish == genai.FinishReasonSafety, t.finish == genai.FinishReasonImageSafety:
		e.What = "its answer was blocked for safety"
	case t.finish == genai.FinishReasonRecitation:
		e.What = "its answer was blocked for reciting protected material"
	case t.finish == genai.FinishReasonMaxTokens:
		e.What = "its answer was cut at the output token limit before it said anything"
	case t.finish == genai.FinishReasonBlocklist, t.finish == genai.FinishReasonProhibitedContent, t.finish == genai.FinishReasonSPII:
		e.What = "its answer was blocked"
	case t.finish == genai.FinishReasonStop && answersFunctions && !t.thoughts:
		return nil // done after the tools ran: nothing more to say
	case t.thoughts:
		e.What = "it only thought and gave no answer"
	default:
		e.What = "it gave no answer"
	}
	return e
}

// content is the model turn as history keeps it.
func (t *modelTurn) content() *genai.Content {
	return &genai.Content{Role: genai.RoleModel, Parts: t.parts}
}

// isText reports whether p is plain text (possibly empty, possibly signed).
func isText(p *genai.Part) bool {
	return !p.Thought && p.FunctionCall == nil && p.FunctionResponse == nil &&
		p.InlineData == nil && p.FileData == nil && p.ExecutableCode == nil &&
		p.CodeExecutionResult == nil && p.ToolCall == nil && p.ToolResponse == nil
}

// hasFunctionResponse reports whether c answers function calls.
func hasFunctionResponse(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// parseThought splits a thought into its **subject** line and the rest.
func parseThought(text string) dialog.Thought {
	text = strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(text, "**"); ok {
		if subject, desc, ok := strings.Cut(rest, "**"); ok && !strings.Contains(subject, "\n") {
			return dialog.Thought{Subject: strings.TrimSpace(subject), Description: strings.TrimSpace(desc)}
		}
	}
	return dialog.Thought{Description: text}
}
