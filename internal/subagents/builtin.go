package subagents

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The built-in agents' names.
const (
	CodebaseInvestigator = "codebase_investigator"
	CLIHelp              = "cli_help"
	Generalist           = "generalist"
)

// Model aliases a definition may name besides a model.
const (
	// Inherit runs the agent on the main agent's model.
	Inherit = "inherit"
)

// BuiltInContext is what the built-ins depend on.
type BuiltInContext struct {
	// MainModel is the main agent's configured model (or alias):
	// codebase_investigator picks its model by it.
	MainModel string
	// GOOS names the listing command in codebase_investigator's prompt;
	// "" : runtime.GOOS.
	GOOS string
}

// BuiltIns are 0.61's three built-in agents, in its registration order
// (AgentRegistry.loadBuiltInAgents, chunk-JDPZ4CE3.js:340932).
func BuiltIns(c BuiltInContext) []Definition {
	return []Definition{codebaseInvestigator(c), cliHelp(), generalist()}
}

func ptr[T any](v T) *T { return &v }

// supportsModernFeatures is 0.61's rule (chunk-JDPZ4CE3.js:280020): a
// Gemini 3 model, or one that is not Gemini at all, each judged by the
// model resolveModel's defaults make of the name.
func supportsModernFeatures(model string) bool {
	model = strings.TrimSpace(model)
	if models.NumericalClassifier(model) { // isGemini3Model, on resolveModel's defaults
		return true
	}
	switch model {
	case models.Auto, models.AutoGemini3, models.AutoGemini25, models.Pro, models.Flash, models.FlashLite, "":
		return false // they resolve to Gemini models
	}
	return !strings.HasPrefix(model, "gemini-")
}

// codebaseInvestigator is 0.61's CodebaseInvestigatorAgent
// (chunk-JDPZ4CE3.js:334631).
func codebaseInvestigator(c BuiltInContext) Definition {
	model := models.Gemini25Pro
	if supportsModernFeatures(c.MainModel) {
		model = models.Gemini3FlashPreview
	}
	thinking := &Thinking{IncludeThoughts: true, Budget: ptr(int32(8192))} // DEFAULT_THINKING_MODE
	if supportsModernFeatures(model) {
		thinking = &Thinking{IncludeThoughts: true, Level: "HIGH"}
	}
	goos := c.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	listCommand := "`ls -R`"
	if goos == "windows" {
		listCommand = "`dir /s` (CMD) or `Get-ChildItem -Recurse` (PowerShell)"
	}
	return Definition{
		Name:        CodebaseInvestigator,
		DisplayName: "Codebase Investigator Agent",
		Description: "The specialized tool for codebase analysis, architectural mapping, and understanding system-wide dependencies. Invoke this tool for tasks like vague requests, bug root-cause analysis, system refactoring, comprehensive feature implementation or to answer questions about the codebase that require investigation. It returns a structured report with key file paths, symbols, and actionable architectural insights.",
		Kind:        Local,
		Source:      BuiltIn,
		Input: InputParam{Name: "objective", Description: `A comprehensive and detailed description of the user's ultimate goal.
          You must include original user's objective as well as questions and any extra context and questions you may have.`},
		Query:        "Your task is to do a deep investigation of the codebase to find all relevant files, code locations, architectural mental map and insights to solve  for the following user objective:\n<objective>\n${objective}\n</objective>",
		SystemPrompt: strings.ReplaceAll(investigatorPrompt, "${listCommand}", listCommand),
		Model:        model,
		Temperature:  ptr(0.1),
		TopP:         ptr(0.95),
		Thinking:     thinking,
		// 0.61's four, and gemini-ls's navigate_code where a language
		// server answers (a tool not declared is left out).
		Tools:    []string{tools.ListDirectoryName, tools.ReadFileName, tools.GlobName, tools.GrepSearchName, tools.NavigateCodeName},
		MaxTurns: 50,
		Timeout:  10 * time.Minute,
		Output: &Output{
			Name:        "report",
			Description: "The final investigation report as a JSON object.",
			Schema:      json.RawMessage(investigationReportSchema),
			Format:      indentJSON,
		},
	}
}

// investigationReportSchema is CodebaseInvestigationReportSchema as
// zodToJsonSchema writes it, $schema dropped as CompleteTaskTool drops it.
const investigationReportSchema = `{"type":"object","properties":{"SummaryOfFindings":{"type":"string","description":"A summary of the investigation's conclusions and insights for the main agent."},"ExplorationTrace":{"type":"array","items":{"type":"string"},"description":"A step-by-step list of actions and tools used during the investigation."},"RelevantLocations":{"type":"array","items":{"type":"object","properties":{"FilePath":{"type":"string"},"Reasoning":{"type":"string"},"KeySymbols":{"type":"array","items":{"type":"string"}}},"required":["FilePath","Reasoning","KeySymbols"],"additionalProperties":false},"description":"A list of relevant files and the key symbols within them."}},"required":["SummaryOfFindings","ExplorationTrace","RelevantLocations"],"additionalProperties":false}`

// indentJSON is JSON.stringify(report, null, 2): a report the model sent
// as JSON text (json.RawMessage) keeps its keys' order.
func indentJSON(report any) string {
	var raw []byte
	switch r := report.(type) {
	case json.RawMessage:
		raw = r
	case []byte:
		raw = r
	default:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // JSON.stringify leaves <, > and & alone
		if err := enc.Encode(report); err != nil {
			return ""
		}
		raw = b.Bytes()
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(raw), "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}

// cliHelp is 0.61's CliHelpAgent (chunk-JDPZ4CE3.js:339136), about
// gemini-ls and its docs: get_internal_docs reads gemini-ls's docs/.
// ${cliVersion}, ${activeModel} and ${today} are the runner's to fill.
func cliHelp() Definition {
	return Definition{
		Name:        CLIHelp,
		DisplayName: "CLI Help Agent",
		Description: "Specialized agent for answering questions about gemini-ls, the Gemini coding agent for editors (a language server, also run headless and as an ACP agent). Invoke this agent for questions regarding gemini-ls features, configuration schemas (e.g., settings, policies), editor setup, or instructions on how to create custom subagents. It queries internal documentation to provide accurate usage guidance.",
		Kind:        Local,
		Source:      BuiltIn,
		Input:       InputParam{Name: "question", Description: "The specific question about gemini-ls."},
		Query:       "Your task is to answer the following question about gemini-ls:\n<question>\n${question}\n</question>",
		SystemPrompt: "You are **CLI Help Agent**, an expert on gemini-ls. Your purpose is to provide accurate information about gemini-ls's features, configuration, and current state.\n\n" +
			"### Runtime Context\n- **gemini-ls Version:** ${cliVersion}\n- **Active Model:** ${activeModel}\n- **Today's Date:** ${today}\n\n" +
			"### Instructions\n1. **Explore Documentation**: Use the `get_internal_docs` tool to find answers. If you don't know where to start, call `get_internal_docs()` without arguments to see the full list of available documentation files.\n" +
			"2. **Be Precise**: Use the provided runtime context and documentation to give exact answers.\n" +
			"3. **Cite Sources**: Always include the specific documentation files you used in your final report.\n" +
			"4. **Non-Interactive**: You operate in a loop and cannot ask the user for more info. If the question is ambiguous, answer as best as you can with the information available.\n\n" +
			"You MUST call `complete_task` with a JSON report containing your `answer` and the `sources` you used.",
		Model:       models.Flash,
		Temperature: ptr(0.1),
		TopP:        ptr(0.95),
		Thinking:    &Thinking{IncludeThoughts: true, Budget: ptr(int32(-1))},
		Tools:       []string{tools.GetInternalDocsName},
		MaxTurns:    10,
		Timeout:     3 * time.Minute,
		Output: &Output{
			Name:        "report",
			Description: "The final answer and sources as a JSON object.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string","description":"The detailed answer to the user question about gemini-ls."},"sources":{"type":"array","items":{"type":"string"},"description":"The documentation files used to answer the question."}},"required":["answer","sources"],"additionalProperties":false}`),
			Format:      formatHelpReport,
		},
	}
}

// formatHelpReport is cli_help's processOutput (chunk-JDPZ4CE3.js:339158):
// the answer, then its sources, trimmed and without repeats, under
// "**Sources:**".
func formatHelpReport(report any) string {
	var r struct {
		Answer  *string   `json:"answer"`
		Sources []*string `json:"sources"`
	}
	switch v := report.(type) {
	case nil:
		return ""
	case json.RawMessage:
		if string(bytes.TrimSpace(v)) == "null" {
			return ""
		}
		_ = jsjson.Decode(v, &r)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		_ = jsjson.Decode(b, &r)
	}
	answer := ""
	if r.Answer != nil {
		answer = strings.TrimSpace(*r.Answer)
	}
	var sources []string
	seen := map[string]bool{}
	for _, s := range r.Sources {
		if s == nil {
			continue
		}
		t := strings.TrimSpace(*s)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		sources = append(sources, "- "+t)
	}
	if len(sources) == 0 {
		return answer
	}
	return answer + "\n\n**Sources:**\n" + strings.Join(sources, "\n")
}

// generalist is 0.61's GeneralistAgent (chunk-JDPZ4CE3.js:339200): every
// tool, the main agent's model and system prompt. Its description is
// the default mode's; Describe gives plan mode's.
func generalist() Definition {
	return Definition{
		Name:                Generalist,
		DisplayName:         "Generalist Agent",
		Description:         GeneralistDescription(false),
		Kind:                Local,
		Source:              BuiltIn,
		Input:               InputParam{Name: "request", Description: "The task or question for the generalist agent."},
		Query:               "${request}",
		InheritSystemPrompt: true,
		Model:               Inherit,
		Tools:               nil, // all of the main agent's
		MaxTurns:            20,
		Timeout:             10 * time.Minute,
		Output: &Output{
			Name:        "result",
			Description: "The final answer or results of the task.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"response":{"type":"string","description":"The final response from the agent."}},"required":["response"],"additionalProperties":false}`),
		},
	}
}

// GeneralistDescription is the generalist's description, which 0.61
// words by whether the session is in plan mode.
func GeneralistDescription(planMode bool) string {
	const base = "A general-purpose AI agent with access to all tools. Highly recommended for tasks that are turn-intensive or involve processing large amounts of data. Use this to keep the main session history lean and efficient. Excellent for: "
	if planMode {
		return base + "large-scale investigation and batch planning across multiple files."
	}
	return base + "batch refactoring/error fixing across multiple files, running commands with high-volume output, and speculative investigations."
}

// Describe is d's description in the session's mode: the built-in
// generalist's changes in plan mode, the others' never.
func Describe(d Definition, planMode bool) string {
	if d.Source == BuiltIn && d.Name == Generalist {
		return GeneralistDescription(planMode)
	}
	return d.Description
}
