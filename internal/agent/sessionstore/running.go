package sessionstore

import (
	"slices"
	"strings"

	"google.golang.org/genai"
)

// What a session read back says of a prompt its process never ended.
const (
	// StopInterrupted is the stop reason of such a prompt's exchange: as
	// a front end names a prompt that ended before the model did.
	StopInterrupted = "cancelled"
	// InterruptedNote answers such a prompt's last input, in Gemini CLI
	// 0.61's words (INTERRUPTED_RESPONSE_PLACEHOLDER, the model turn its
	// closeUnansweredToolResponseTurn adds), so the model reads that the
	// turn was cut short and the next prompt is a turn of its own.
	InterruptedNote = "[The previous response was interrupted before it completed.]"
	// InterruptedCall answers a call of such a prompt with no recorded
	// result (0.61 sends the call unanswered, which the API refuses).
	InterruptedCall = "This call was interrupted: gemini-ls stopped before its result was recorded, so whether it took effect is unknown. Check before repeating it."
)

// runningPrompt is a prompt gemini-ls began and has not seen end while
// reading a file.
type runningPrompt struct {
	ex      Exchange
	answers []string // the text of each model answer recorded since
	usage   Usage    // the tokens of those answers
}

// openRunning is the prompt ex begins; nil for none.
func openRunning(ex *Exchange) *runningPrompt {
	if ex == nil {
		return nil
	}
	r := &runningPrompt{ex: *ex}
	if ex.Answer != "" {
		r.answers = []string{ex.Answer}
	}
	return r
}

// took notes a message gemini-ls recorded during the prompt.
func (r *runningPrompt) took(m *decoded) {
	if r == nil {
		return
	}
	if m.Tokens != nil {
		r.usage.add(usageOf(m.Tokens))
	}
	if m.Type == "gemini" {
		r.answered(plainText(m.parts))
	}
}

func (r *runningPrompt) answered(text string) {
	if strings.TrimSpace(text) != "" {
		r.answers = append(r.answers, text)
	}
}

// exchange is the interrupted prompt as the transcript shows it.
func (r *runningPrompt) exchange() Exchange {
	ex := r.ex
	ex.Answer = strings.Join(r.answers, "\n\n")
	ex.StopReason = StopInterrupted
	return ex
}

// close makes an interrupted session's history one the model accepts:
// a call with no result (anywhere: Gemini CLI may have gone on from an
// interrupted prompt without answering its calls) is answered with
// InterruptedCall, and, when the last prompt was interrupted, a history
// ending in an input (the prompt, or results) with InterruptedNote.
// Saved counts the contents that are on disk: those added at the end
// are not (the next save writes them); those answering calls in the
// middle are made again at each load.
func (snap *Snapshot) close() {
	h := snap.History
	if len(h) == 0 {
		snap.Context = "" // no conversation left (rewound away): the next begins anew
	}
	out := make([]*genai.Content, 0, len(h)+2)
	tail := 0 // contents added at the end
	for i := 0; i < len(h); i++ {
		out = append(out, h[i])
		calls := callsOf(h[i])
		if len(calls) == 0 {
			continue
		}
		var next *genai.Content
		if i+1 < len(h) && h[i+1].Role == genai.RoleUser && hasResponse(h[i+1].Parts) {
			next = h[i+1]
			i++
		}
		switch answer := answerMissing(calls, next); {
		case answer != nil && next == nil && i == len(h)-1:
			tail++
			out = append(out, answer)
		case answer != nil:
			// In place of results recorded as the calls ended, or made
			// again at each load in the middle: counted as on disk.
			out = append(out, answer)
		case next != nil:
			out = append(out, next)
		}
	}
	if snap.Interrupted && len(out) > 0 && out[len(out)-1].Role == genai.RoleUser {
		tail++
		out = append(out, &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: InterruptedNote}}})
	}
	snap.History, snap.Saved = out, len(out)-tail
}

// callsOf are the function calls of a model content.
func callsOf(c *genai.Content) []*genai.FunctionCall {
	if c == nil || c.Role != genai.RoleModel {
		return nil
	}
	var calls []*genai.FunctionCall
	for _, p := range c.Parts {
		if p != nil && p.FunctionCall != nil {
			calls = append(calls, p.FunctionCall)
		}
	}
	return calls
}

// answerMissing is next (the content answering calls; nil when none)
// with InterruptedCall added for each call it does not answer; nil when
// it answers them all.
func answerMissing(calls []*genai.FunctionCall, next *genai.Content) *genai.Content {
	var have []*genai.Part
	if next != nil {
		have = next.Parts
	}
	var missing []*genai.Part
	for _, fc := range calls {
		answered := slices.ContainsFunc(have, func(p *genai.Part) bool {
			return p != nil && p.FunctionResponse != nil && p.FunctionResponse.Name == fc.Name &&
				(p.FunctionResponse.ID == fc.ID || fc.ID == "")
		})
		if !answered {
			missing = append(missing, &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID: fc.ID, Name: fc.Name, Response: map[string]any{"error": InterruptedCall},
			}})
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &genai.Content{Role: genai.RoleUser, Parts: append(slices.Clone(have), missing...)}
}
