package conversation

import (
	"errors"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Ending is how a prompt ended, for a front end to say in its wire's
// words.
type Ending int

const (
	// Done: the model ended its turn.
	Done Ending = iota
	// Cancelled: the user (or the connection's end) stopped it.
	Cancelled
	// MaxTurns: it made too many model requests.
	MaxTurns
	// MaxTokens: the answer was cut at the output token limit.
	MaxTokens
	// LoopDetected: the model was repeating itself.
	LoopDetected
	// Failed: the turn failed (Outcome.Err says why).
	Failed
	// NotRun: the prompt's command was not run (Outcome.NotRun says why);
	// nothing went to the model.
	NotRun
	// Busy: the session is running another prompt (Outcome.Err is its
	// *dialog.BusyError).
	Busy
	// Unknown: no live session has the id (Outcome.Err is an
	// *dialog.UnknownSessionError).
	Unknown
	// Refused: the agent refused the prompt (the session was dropped
	// meanwhile); Outcome.Err says why.
	Refused
)

// Reason is the ending in the one word the wires that have one share
// (LSP's stopReason, headless's error type): end_turn, cancelled,
// max_turns, max_tokens, loop_detected, and error for a turn that failed
// or a prompt that did not run.
func (e Ending) Reason() string {
	switch e {
	case Done:
		return string(dialog.StopEndTurn)
	case Cancelled:
		return string(dialog.StopCancelled)
	case MaxTurns:
		return string(dialog.StopMaxTurns)
	case MaxTokens:
		return string(dialog.StopMaxTokens)
	case LoopDetected:
		return string(dialog.StopLoopDetected)
	}
	return string(dialog.StopError)
}

// endingOf is the ending of a turn whose agent said it stopped for r.
func endingOf(r dialog.StopReason) Ending {
	switch r {
	case dialog.StopEndTurn, "":
		return Done
	case dialog.StopCancelled:
		return Cancelled
	case dialog.StopMaxTurns:
		return MaxTurns
	case dialog.StopMaxTokens:
		return MaxTokens
	case dialog.StopLoopDetected:
		return LoopDetected
	}
	return Failed
}

// Outcome is how a prompt ended, said once for every front end: the only
// ending a front end reads.
type Outcome struct {
	Ending Ending
	// Text is all the model said in the turn, concatenated (a built-in's
	// answer).
	Text string
	// Usage is the turn's tokens, summed.
	Usage dialog.Usage
	// Model is the concrete model the turn's last request went to (the
	// one an auto routed it to, or fell back to); "" when none was made.
	Model string
	// Err says why the turn stopped before it was done, when it says
	// (Failed, MaxTurns, MaxTokens, Cancelled), or why nothing ran
	// (NotRun, Busy, Unknown, Refused).
	Err error
	// NotRun is the command not run (Ending NotRun).
	NotRun *CommandError
}

// outcomeOf is the outcome of a turn that Run ended with res and err.
func outcomeOf(res dialog.PromptResult, err error) Outcome {
	if notRun, ok := errors.AsType[*CommandError](err); ok {
		return Outcome{Ending: NotRun, NotRun: notRun, Err: notRun}
	}
	if errors.Is(err, dialog.ErrBusy) {
		return Outcome{Ending: Busy, Err: err}
	}
	if err != nil {
		return Outcome{Ending: Refused, Err: err}
	}
	return Outcome{Ending: endingOf(res.StopReason), Text: res.Text, Usage: res.Usage, Model: res.Model, Err: res.Err}
}

// The words for how a turn ended, said once for every front end: a
// status line (LSP's progress and message), the note after an answer
// (ACP's message, the LSP transcript) and headless's stderr all take
// them from here.

// words are the words for one way a turn ends early.
type words struct {
	// headline is a few words for a status line.
	headline string
	// explanation is the sentence for after the answer; errSays: the
	// turn's error says it better, when it has one.
	explanation string
	errSays     bool
}

// wordsOf is the words for ending e; false for a failure (whose words
// are its error's) and for a turn that ended as it should.
func wordsOf(e Ending) (words, bool) {
	switch e {
	case Cancelled:
		return words{"cancelled", "Cancelled.", false}, true
	case MaxTurns:
		return words{"stopped after too many model requests", "Stopped after too many model requests; send another prompt to go on.", true}, true
	case LoopDetected:
		return words{"stopped because the model was repeating itself", "Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on.", false}, true
	case MaxTokens:
		return words{"the answer was cut at the model's output token limit", "The answer was cut at the model's output token limit.", true}, true
	}
	return words{}, false
}

// Headline is how the prompt ended, in a few words for a status line: ""
// for a turn that ended as it should ("cancelled", "stopped because the
// model was repeating itself", "failed: …").
func (o Outcome) Headline() string {
	if o.Ending == Done {
		return ""
	}
	if w, ok := wordsOf(o.Ending); ok {
		return w.headline
	}
	if said, ok := o.apiError(); ok {
		// Its sentence says what failed and what to do; no "failed: ".
		return strings.TrimSuffix(said, ".")
	}
	return "failed: " + o.errText()
}

// apiError is the sentence of a model request's failure the turn ended
// with (apierror), which says what to do already.
func (o Outcome) apiError() (string, bool) {
	if e, ok := errors.AsType[*apierror.Error](o.Err); ok && o.Ending == Failed {
		return e.Error(), true
	}
	return "", false
}

// Explanation says in full why the prompt stopped before it was done,
// for after whatever the model said: "" for a turn that ended as it
// should. Where the turn's error says which limit it met (the session's,
// in Gemini CLI's words, or one prompt's), it is the error's sentence.
func (o Outcome) Explanation() string {
	if o.Ending == Done {
		return ""
	}
	if said, ok := o.apiError(); ok {
		return said
	}
	w, ok := wordsOf(o.Ending)
	switch {
	case !ok:
		return "Failed: " + sentence(o.errText())
	case w.errSays && o.Err != nil:
		return Sentence(o.Err.Error())
	}
	return w.explanation
}

func (o Outcome) errText() string {
	if o.Err == nil {
		return "the turn failed"
	}
	return o.Err.Error()
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
