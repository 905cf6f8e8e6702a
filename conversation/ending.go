package conversation

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/agent"
)

// The words for how a turn ended, said once for every front end: a
// status line (LSP's progress and message), the note after an answer
// (ACP's message, the LSP transcript) and headless's stderr all take
// them from here.

// Headline is how a turn ended, in a few words for a status line: "" for
// a turn that ended as it should ("cancelled", "stopped because the
// model was repeating itself", "failed: …").
func Headline(res agent.PromptResult) string {
	switch res.StopReason {
	case agent.StopEndTurn, "":
		return ""
	case agent.StopCancelled:
		return "cancelled"
	case agent.StopMaxTurns:
		return "stopped after too many model requests"
	case agent.StopLoopDetected:
		return "stopped because the model was repeating itself"
	case agent.StopMaxTokens:
		return "the answer was cut at the model's output token limit"
	}
	return "failed: " + errText(res)
}

// Explanation says in full why a turn stopped before it was done, for
// after whatever the model said: "" for a turn that ended as it should.
func Explanation(res agent.PromptResult) string {
	switch res.StopReason {
	case agent.StopEndTurn, "":
		return ""
	case agent.StopCancelled:
		return "Cancelled."
	case agent.StopMaxTurns:
		if res.Err != nil {
			// Which limit: the session's (Gemini CLI's words) or one
			// prompt's, which says how to go on.
			return sentence(res.Err.Error())
		}
		return "Stopped after too many model requests; send another prompt to go on."
	case agent.StopLoopDetected:
		return "Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on."
	case agent.StopMaxTokens:
		if res.Err != nil {
			return sentence(upperFirst(res.Err.Error()))
		}
		return "The answer was cut at the model's output token limit."
	}
	return "Failed: " + sentence(errText(res))
}

func errText(res agent.PromptResult) string {
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

// upperFirst starts s with a capital.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
