package models

import "strings"

// DeclaresWriteTodos reports whether Gemini CLI 0.61 offers write_todos
// on the configured model: only on a Gemini 2 model that is not a
// preview (its Config: isGemini2Model(model) && !isPreviewModel(model),
// bundle chunk-JDPZ4CE3.js:379078). Gemini 2 is the name starting
// "gemini-2." (or "gemini-2" alone), as 0.61 matches it, so no auto,
// alias or Gemini 3 model; 0.61's list of previews holds no Gemini 2
// model, so every one of those is offered it. The model is the one
// configured, not the one a prompt is routed to: 0.61 decides once.
func DeclaresWriteTodos(model string) bool {
	rest, ok := strings.CutPrefix(model, "gemini-2")
	return ok && (rest == "" || strings.HasPrefix(rest, "."))
}
