package agent

import "strings"

// thinks reports whether model supports thinking, as Gemini CLI judges it
// (isThinkingSupported: every model but gemini-2.0), gemini-1.x not either.
func thinks(model string) bool {
	model = strings.TrimPrefix(model, "models/")
	for _, old := range []string{"gemini-1.", "gemini-2.0"} {
		if strings.HasPrefix(model, old) {
			return false
		}
	}
	return true
}
