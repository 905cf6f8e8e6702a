package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// Routing of an auto model, as Gemini CLI 0.61's ModelRouterService does it
// for a Gemini API key: once per user prompt (a tool call's continuation
// stays on the model the prompt was routed to), a classifier on
// 0.61's classifier model config reads the last turns of the history and the prompt
// and answers with JSON; whatever goes wrong (an error, no JSON, an answer
// outside the schema) the prompt goes to models.Resolve of the auto, as
// 0.61's DefaultStrategy sends it.

// classifierAttempts is how often the classifier is asked while it answers
// no JSON or fails: 0.61's generateJson default, five attempts.
const classifierAttempts = 5

// complexityThreshold: a complexity score at or above it routes to Pro, as
// 0.61's default (getResolvedClassifierThreshold, 90).
const complexityThreshold = 90

// router routes a prompt on an auto model.
type router struct {
	// configured is the agent's model setting; planRouting whether plan
	// mode (mode) and an approved plan choose the model.
	configured   string
	planRouting  bool
	mode         dialog.ApprovalMode
	approvedPlan string
	ask          jsonAsker
}

// route picks the model of a prompt whose input is input, the history
// before it being history; "" when the agent's model is not an auto.
func (t *turn) route(history []*genai.Content, input *genai.Content) string {
	if t.requests > 0 {
		// A prompt is routed once: recovering from a loop (stopLoop) goes
		// on with the model the prompt was routed to.
		return t.routed
	}
	a := t.s.agent
	r := router{configured: a.configuredModel(), planRouting: !a.cfg.NoPlanRouting, ask: t.utility()}
	if !models.IsAuto(r.configured) || hasFunctionResponse(input) {
		return ""
	}
	r.mode, r.approvedPlan = t.s.ApprovalMode(), t.s.ApprovedPlan()
	return r.route(history, input)
}

// route is the model of a prompt on an auto: by the approval mode, then
// by the classifier's choice, else the auto's default.
func (r router) route(history []*genai.Content, input *genai.Content) string {
	// 0.61's ApprovalModeStrategy, ahead of the classifier: plan mode
	// plans on Pro, an approved plan is carried out on Flash.
	if r.planRouting {
		if r.mode == dialog.ApprovalPlan {
			return models.ResolveRouted(r.configured, models.ChoicePro)
		}
		if r.approvedPlan != "" {
			return models.ResolveRouted(r.configured, models.ChoiceFlash)
		}
	}
	numerical := models.NumericalClassifier(r.configured)
	history = conversation(history)
	var contents []*genai.Content
	var system string
	var schema map[string]any
	if numerical {
		contents, system, schema = numericalContext(history), numericalClassifierPrompt, numericalSchema()
	} else {
		contents, system, schema = binaryContext(history), binaryClassifierPrompt, binarySchema()
	}
	contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: textParts(input)})
	fallback := models.Resolve(r.configured)
	// 0.61's "classifier" model config: its flash-lite model resolves to
	// the latest Flash-Lite, which takes that model's chat config (the
	// alias's maxOutputTokens and thinking budget are not sent).
	text, err := r.ask.utilityJSON("the routing request", models.UtilityFor(models.Classifier), system, schema, contents, classifierAttempts)
	if err != nil {
		return fallback
	}
	choice, ok := classifierChoice(text, numerical)
	if !ok {
		return fallback
	}
	return models.ResolveRouted(r.configured, choice)
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

// conversation is history without the parts that set the scene: the
// session context and the memory. They tell where the work happens, not
// how hard the prompt is; 0.61 gives the classifier whatever is among the
// last contents, so its first prompts' routing requests carry the
// workspace's tree (some 900 tokens) and a changed GEMINI.md is sent whole
// with the next two prompts'. A content left with no part is left out.
func conversation(history []*genai.Content) []*genai.Content {
	out := make([]*genai.Content, 0, len(history))
	for _, c := range history {
		if c.Role == genai.RoleUser && slices.ContainsFunc(c.Parts, setsTheScene) {
			parts := slices.DeleteFunc(slices.Clone(c.Parts), setsTheScene)
			if len(parts) == 0 {
				continue
			}
			c = &genai.Content{Role: c.Role, Parts: parts}
		}
		out = append(out, c)
	}
	return out
}

// setsTheScene is whether p is the session context or a memory part.
func setsTheScene(p *genai.Part) bool {
	return strings.HasPrefix(p.Text, sessionContextTag) || strings.HasPrefix(p.Text, contextFilesTag+"\n")
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
