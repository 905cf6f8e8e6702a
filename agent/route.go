package agent

import (
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/models"
	"github.com/gemini-ls/gemini-ls/tools"
)

// Routing of an auto model, as Gemini CLI 0.61's ModelRouterService does it
// for a Gemini API key: once per user prompt (a tool call's continuation
// stays on the model the prompt was routed to), a classifier on
// models.ClassifierModel reads the last turns of the history and the prompt
// and answers with JSON; whatever goes wrong (an error, no JSON, an answer
// outside the schema) the prompt goes to models.Resolve of the auto, as
// 0.61's DefaultStrategy sends it.

// classifierAttempts is how often the classifier is asked while it answers
// no JSON: 0.61's generateJson retries such an answer, five attempts in all.
const classifierAttempts = 5

// complexityThreshold: a complexity score at or above it routes to Pro, as
// 0.61's default (getResolvedClassifierThreshold, 90).
const complexityThreshold = 90

// route picks the model of a prompt whose input is input, the history
// before it being history; "" when the agent's model is not an auto.
func (t *turn) route(history []*genai.Content, input *genai.Content) string {
	a := t.s.agent
	configured := a.configuredModel()
	if !models.IsAuto(configured) || hasFunctionResponse(input) {
		return ""
	}
	// 0.61's ApprovalModeStrategy, ahead of the classifier: plan mode
	// plans on Pro, an approved plan is carried out on Flash.
	if !a.cfg.NoPlanRouting {
		if t.s.ApprovalMode() == tools.ApprovalPlan {
			return models.ResolveRouted(configured, models.ChoicePro)
		}
		if t.s.ApprovedPlan() != "" {
			return models.ResolveRouted(configured, models.ChoiceFlash)
		}
	}
	numerical := models.NumericalClassifier(configured)
	var contents []*genai.Content
	var system string
	var schema map[string]any
	if numerical {
		contents, system, schema = numericalContext(history), numericalClassifierPrompt, numericalSchema()
	} else {
		contents, system, schema = binaryContext(history), binaryClassifierPrompt, binarySchema()
	}
	contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: textParts(input)})
	config := &genai.GenerateContentConfig{
		SystemInstruction:  genai.NewContentFromText(system, genai.RoleUser),
		Temperature:        genai.Ptr[float32](0),
		TopP:               genai.Ptr[float32](1),
		MaxOutputTokens:    1024,
		ThinkingConfig:     &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](512)},
		ResponseMIMEType:   "application/json",
		ResponseJsonSchema: schema,
	}
	fallback := models.Resolve(configured)
	for attempt := 1; attempt <= classifierAttempts; attempt++ {
		var resp *genai.GenerateContentResponse
		start := a.cfg.Now()
		err := a.cfg.Retry.do(t.ctx, func() error {
			var err error
			resp, err = a.cfg.Generator.GenerateContent(t.ctx, models.ClassifierModel, contents, config)
			return err
		}, nil)
		var usage *genai.GenerateContentResponseUsageMetadata
		if resp != nil {
			usage = resp.UsageMetadata
		}
		t.s.stats.request(models.ClassifierModel, a.cfg.Now().Sub(start), usageOf(usage), err != nil)
		if err != nil {
			a.log.error(models.ClassifierModel, t.promptID, 0, err)
			return fallback
		}
		text := strings.TrimSpace(resp.Text())
		if text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, "```json"), "```")); !json.Valid([]byte(text)) {
			continue
		}
		choice, ok := classifierChoice(text, numerical)
		if !ok {
			return fallback
		}
		return models.ResolveRouted(configured, choice)
	}
	return fallback
}

// classifierChoice reads the classifier's JSON answer.
func classifierChoice(text string, numerical bool) (models.Choice, bool) {
	if numerical {
		var ans struct {
			Reasoning *string  `json:"complexity_reasoning"`
			Score     *float64 `json:"complexity_score"`
		}
		if json.Unmarshal([]byte(text), &ans) != nil || ans.Reasoning == nil || ans.Score == nil || *ans.Score < 1 || *ans.Score > 100 {
			return "", false
		}
		if *ans.Score >= complexityThreshold {
			return models.ChoicePro, true
		}
		return models.ChoiceFlash, true
	}
	var ans struct {
		Reasoning *string `json:"reasoning"`
		Choice    string  `json:"model_choice"`
	}
	if json.Unmarshal([]byte(text), &ans) != nil || ans.Reasoning == nil {
		return "", false
	}
	switch c := models.Choice(ans.Choice); c {
	case models.ChoiceFlash, models.ChoicePro:
		return c, true
	}
	return "", false
}

// numericalContext is the history the complexity classifier reads: the
// last 8 contents, from the first that is neither a call nor a response.
func numericalContext(history []*genai.Content) []*genai.Content {
	slice := history[max(0, len(history)-8):]
	for i, c := range slice {
		if !isCallOrResponse(c) {
			return append([]*genai.Content(nil), slice[i:]...)
		}
	}
	return nil
}

// binaryContext is the history the flash-or-pro classifier reads: of the
// last 20 contents, the last 4 that are neither calls nor responses.
func binaryContext(history []*genai.Content) []*genai.Content {
	var clean []*genai.Content
	for _, c := range history[max(0, len(history)-20):] {
		if !isCallOrResponse(c) {
			clean = append(clean, c)
		}
	}
	return clean[max(0, len(clean)-4):]
}

// isCallOrResponse is 0.61's isFunctionCall || isFunctionResponse: a
// content all of whose parts are calls, or all responses.
func isCallOrResponse(c *genai.Content) bool {
	if len(c.Parts) == 0 {
		return false
	}
	calls, responses := true, true
	for _, p := range c.Parts {
		calls = calls && p.FunctionCall != nil
		responses = responses && p.FunctionResponse != nil
	}
	return calls || responses
}

// textParts is the prompt as the classifier gets it: each part's text
// alone (0.61 sanitizes the request so), other parts as they are.
func textParts(c *genai.Content) []*genai.Part {
	out := make([]*genai.Part, 0, len(c.Parts))
	for _, p := range c.Parts {
		if p.Text != "" {
			out = append(out, &genai.Part{Text: p.Text})
			continue
		}
		out = append(out, p)
	}
	return out
}
