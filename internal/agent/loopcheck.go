package agent

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

// The model-based loop check of Gemini CLI 0.61's LoopDetectionService
// (bundle chunk-JDPZ4CE3.js:342238-342245, 342597-342716): from a prompt's
// 30th model request on, every llmCheckInterval requests, the loop-detection
// model reads the last 20 contents of the history and gives its confidence
// that the conversation is stuck; at 0.9 or more the double-check model is
// asked too, and a loop is found when it agrees. Each confidence below the
// threshold sets the interval: 5 requests at confidence 1, 15 at 0.
const (
	llmCheckAfterTurns       = 30
	llmCheckInterval         = 10
	minLLMCheckInterval      = 5
	maxLLMCheckInterval      = 15
	llmConfidenceThreshold   = 0.9
	llmLoopCheckHistoryCount = 20
	loopCheckAttempts        = 2
)

// modelCheckDue is 0.61's turnStarted: called before each model request
// of the prompt, input being the request's input, it counts the request
// and says whether the model-based check is due (checkWithModel).
func (d *loopDetector) modelCheckDue(input *genai.Content) bool {
	if d.off {
		return false
	}
	if d.requests == 0 {
		d.userPrompt = slices.Clone(input.Parts)
	}
	d.requests++
	if d.requests < llmCheckAfterTurns || d.requests-d.lastCheck < cmp.Or(d.interval, llmCheckInterval) {
		return false
	}
	d.lastCheck = d.requests
	return true
}

// checkWithModel asks check whether the conversation is stuck: history
// is the history input just joined. It returns the loop the check found,
// nil when none.
func (d *loopDetector) checkWithModel(check jsonAsker, input *genai.Content, history []*genai.Content) *LoopError {
	// 0.61 checks before the request's input joins the history.
	if n := len(history); n > 0 && history[n-1] == input {
		history = history[:n-1]
	}
	contents := loopCheckContents(partsText(&genai.Content{Parts: d.userPrompt}), history)
	// The flash model first; only when it is sure, the double check, whose
	// analysis is the one told.
	var analysis string
	for _, alias := range []string{models.LoopDetection, models.LoopDetectionDoubleCheck} {
		confidence, said, ok := askLoopCheck(check, models.UtilityFor(alias), contents)
		if !ok {
			return nil
		}
		if confidence < llmConfidenceThreshold {
			d.interval = loopCheckInterval(confidence)
			return nil
		}
		analysis = said
	}
	return &LoopError{Analysis: analysis}
}

// loopCheckInterval is 0.61's updateCheckInterval.
func loopCheckInterval(confidence float64) int {
	return int(math.Round(minLLMCheckInterval + (maxLLMCheckInterval-minLLMCheckInterval)*(1-confidence)))
}

// loopCheckContents is what the loop check reads, as 0.61's
// checkForLoopWithLLM puts it: the prompt, the last contents of the
// history without calls at the end or responses at the start
// (trimRecentHistory), and the task.
func loopCheckContents(userPrompt string, history []*genai.Content) []*genai.Content {
	recent := history[max(0, len(history)-llmLoopCheckHistoryCount):]
	for len(recent) > 0 && isFunctionCallContent(recent[len(recent)-1]) {
		recent = recent[:len(recent)-1]
	}
	for len(recent) > 0 && isFunctionResponseContent(recent[0]) {
		recent = recent[1:]
	}
	var contents []*genai.Content
	if userPrompt != "" {
		contents = append(contents, genai.NewContentFromText("<original_user_request>\n"+userPrompt+"\n</original_user_request>", genai.RoleUser))
	}
	contents = append(contents, recent...)
	contents = append(contents, genai.NewContentFromText(loopCheckTask, genai.RoleUser))
	if isFunctionCallContent(contents[0]) {
		contents = append([]*genai.Content{genai.NewContentFromText("Recent conversation history:", genai.RoleUser)}, contents...)
	}
	return contents
}

// isFunctionCallContent and isFunctionResponseContent are 0.61's
// isFunctionCall and isFunctionResponse (bundle chunk-JDPZ4CE3.js:331394).
func isFunctionCallContent(c *genai.Content) bool {
	if c.Role != genai.RoleModel || len(c.Parts) == 0 {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionCall == nil {
			return false
		}
	}
	return true
}

func isFunctionResponseContent(c *genai.Content) bool {
	return c.Role == genai.RoleUser && hasFunctionResponse(c)
}

// partsText is the text of c's parts run together, as 0.61 keeps a
// prompt for the loop check (partListUnionToString).
func partsText(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// askLoopCheck asks use whether contents are stuck, as 0.61's
// queryLoopDetectionModel: ok is false when the request failed or the
// answer has no confidence, which is no loop.
func askLoopCheck(check jsonAsker, use models.Utility, contents []*genai.Content) (confidence float64, analysis string, ok bool) {
	text, err := check.utilityJSON("the loop check", use, loopDetectionSystemPrompt, loopDetectionSchema(), contents, loopCheckAttempts)
	if err != nil {
		return 0, "", false
	}
	var ans map[string]any
	if json.Unmarshal([]byte(text), &ans) != nil {
		return 0, "", false
	}
	confidence, ok = ans["unproductive_state_confidence"].(float64)
	if !ok {
		return 0, "", false
	}
	analysis, _ = ans["unproductive_state_analysis"].(string)
	return confidence, analysis, true
}

// loopDetectionSchema is 0.61's LOOP_DETECTION_SCHEMA.
func loopDetectionSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"unproductive_state_analysis": map[string]any{
				"type":        "string",
				"description": "Your reasoning on if the conversation is looping without forward progress.",
			},
			"unproductive_state_confidence": map[string]any{
				"type":        "number",
				"description": "A number between 0.0 and 1.0 representing your confidence that the conversation is in an unproductive state.",
			},
		},
		"required": []any{"unproductive_state_analysis", "unproductive_state_confidence"},
	}
}

const loopCheckTask = `Please analyze the conversation history to determine the possibility that the conversation is stuck in a repetitive, non-productive state. Consider the original user request when evaluating whether repeated tool calls represent legitimate batch work or an actual loop. Provide your response in the requested JSON format.`

// loopDetectionSystemPrompt is 0.61's LOOP_DETECTION_SYSTEM_PROMPT.
const loopDetectionSystemPrompt = `You are a diagnostic agent that determines whether a conversational AI assistant is stuck in an unproductive loop. Analyze the conversation history (and, if provided, the original user request) to make this determination.

## What constitutes an unproductive state

An unproductive state requires BOTH of the following to be true:
1. The assistant has exhibited a repetitive pattern over at least 5 consecutive model actions (tool calls or text responses, counting only model-role turns).
2. The repetition produces NO net change or forward progress toward the user's goal.

Specific patterns to look for:
- **Alternating cycles with no net effect:** The assistant cycles between the same actions (e.g., edit_file → run_build → edit_file → run_build) where each iteration applies the same edit and encounters the same error, making zero progress. Note: alternating between actions is only a loop if the arguments and outcomes are substantively identical each cycle. If the assistant is modifying different code or getting different errors, that is debugging progress, not a loop.
- **Semantic repetition with identical outcomes:** The assistant calls the same tool with semantically equivalent arguments (same file, same line range, same content) multiple times consecutively, and each call produces the same outcome. This does NOT include build/test commands that are re-run after making code changes between invocations — re-running a build to verify a fix is normal workflow.
- **Stuck reasoning:** The assistant produces multiple consecutive text responses that restate the same plan, question, or analysis without taking any new action or making a decision. This does NOT include command output that happens to contain repeated status lines or warnings.

## What is NOT an unproductive state

You MUST distinguish repetitive-looking but productive work from true loops. The following are examples of forward progress and must NOT be flagged:

- **Cross-file batch operations:** A series of tool calls with the same tool name but targeting different files (different file paths in the arguments). For example, adding license headers to 20 files, or running the same refactoring across multiple modules.
- **Incremental same-file edits:** Multiple edits to the same file that target different line ranges, different functions, or different text content (e.g., adding docstrings to functions one by one).
- **Sequential processing:** A series of read or search operations on different files/paths to gather information.
- **Retry with variation:** Re-attempting a failed operation with modified arguments or a different approach.

## Argument analysis (critical)

When evaluating tool calls, you MUST compare the **arguments** of each call, not just the tool name. Pay close attention to:
- **File paths:** Different file paths mean different targets — this is distinct work, not repetition.
- **Line numbers and text content:** Different line ranges or different old_string/new_string values indicate distinct edits.
- **Search queries and patterns:** Different search terms indicate information gathering, not looping.

A loop exists only when the same tool is called with semantically equivalent arguments repeatedly, indicating no forward progress.

## Using the original user request

If the original user request is provided, use it to contextualize the assistant's behavior. If the request implies a batch or multi-step operation (e.g., "update all files", "refactor every module", "add tests for each function"), then repetitive tool calls with varying arguments are expected and should weigh heavily against flagging a loop.`
