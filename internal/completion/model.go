package completion

import (
	"context"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

// The output budgets, in tokens: a completion is a few lines, a next
// edit's blocks a few lines each.
const (
	completionBudget = 256
	nextEditBudget   = 1024
)

// generate asks b's model for an answer to prompt under system, streamed,
// and returns its text. With oneLine it stops reading, and so ends the
// upstream request, once a line break follows some text: the rest would
// be cut anyway.
func (e *Engine) generate(ctx context.Context, b Backend, system, prompt string, budget int32, oneLine bool) (string, error) {
	use := models.Completion(budget)
	if name := strings.TrimSpace(b.Settings.Model); name != "" {
		use.Model = models.Resolve(name)
	}
	config := use.Generation.Over(&genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(system, genai.RoleUser),
	})
	contents := []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream when it was left early
	var out strings.Builder
	for resp, err := range b.Model.GenerateContentStream(ctx, use.Model, contents, config) {
		if err != nil {
			return "", err
		}
		for _, c := range resp.Candidates {
			if c == nil || c.Content == nil {
				continue
			}
			for _, p := range c.Content.Parts {
				if p != nil && !p.Thought {
					out.WriteString(p.Text)
				}
			}
		}
		if oneLine {
			if s := strings.TrimLeft(out.String(), "\r\n"); strings.ContainsAny(s, "\n") {
				break
			}
		}
	}
	return out.String(), nil
}
