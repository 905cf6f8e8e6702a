package conversation

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/dialog"
)

// The words for how a turn ended, said once for every front end: a
// status line (LSP's progress and message), the note after an answer
// (ACP's message, the LSP transcript) and headless's stderr all take
// them from here.

// ending is the words for one way a turn ends early.
type ending struct {
	// headline is a few words for a status line.
	headline string
	// explanation is the sentence for after the answer; errSays: the
	// turn's error says it better, when it has one.
	explanation string
	errSays     bool
}

// endingOf is the words for stop reason r; false for an error (whose
// words are the error's) and for a turn that ended as it should.
func endingOf(r dialog.StopReason) (ending, bool) {
	switch r {
	case dialog.StopCancelled:
		return ending{"cancelled", "Cancelled.", false}, true
	case dialog.StopMaxTurns:
		return ending{"stopped after too many model requests", "Stopped after too many model requests; send another prompt to go on.", true}, true
	case dialog.StopLoopDetected:
		return ending{"stopped because the model was repeating itself", "Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on.", false}, true
	case dialog.StopMaxTokens:
		return ending{"the answer was cut at the model's output token limit", "The answer was cut at the model's output token limit.", true}, true
	}
	return ending{}, false
}

// Headline is how a turn ended, in a few words for a status line: "" for
// a turn that ended as it should ("cancelled", "stopped because the
// model was repeating itself", "failed: …").
func Headline(res dialog.PromptResult) string {
	if res.StopReason == dialog.StopEndTurn || res.StopReason == "" {
		return ""
	}
	if e, ok := endingOf(res.StopReason); ok {
		return e.headline
	}
	return "failed: " + errText(res)
}

// Explanation says in full why a turn stopped before it was done, for
// after whatever the model said: "" for a turn that ended as it should.
// Where the turn's error says which limit it met (the session's, in
// Gemini CLI's words, or one prompt's), it is the error's sentence.
func Explanation(res dialog.PromptResult) string {
	if res.StopReason == dialog.StopEndTurn || res.StopReason == "" {
		return ""
	}
	e, ok := endingOf(res.StopReason)
	switch {
	case !ok:
		return "Failed: " + sentence(errText(res))
	case e.errSays && res.Err != nil:
		return Sentence(res.Err.Error())
	}
	return e.explanation
}

func errText(res dialog.PromptResult) string {
	if res.Err == nil {
		return "the turn failed"
	}
	return res.Err.Error()
}

// sentence ends s with a full stop unless it has one.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// Sentence is s (an error's text, say) as a sentence of a message: a
// capital first, a full stop last unless it ends one already.
func Sentence(s string) string { return sentence(upperFirst(s)) }

// upperFirst starts s with a capital.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
