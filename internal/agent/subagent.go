package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/bounded"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// Subagents, as Gemini CLI 0.61 runs them (agents/agent-tool.js,
// local-invocation.js, local-executor.js): the main agent's invoke_agent
// call hands a task to an agent of the catalogue. A local one is a turn
// of its own in a session of its own: its own system instruction, its
// own first message, only its tools and complete_task, its own model, no
// history of the main conversation, bounded by turns and time; its calls
// pass the main session's approval door, are landed by the same front
// end and counted in the same Stats. Its events carry dialog.Subagent.
// The main history gets the invoke_agent call and its answer alone.

// AgentCatalog is the subagents invoke_agent may hire: the enabled ones
// (*agents.Catalog).
type AgentCatalog interface {
	Lookup(name string) (subagents.Definition, bool)
	Active() []subagents.Definition
}

// RemoteInvoker runs a remote agent (Kind Remote) over A2A: query is its
// input, emit (events already marked as the run's) hears its progress;
// the text returned is what the main agent reads, a failure included:
// what came before it and 0.61's words for it (RemoteAgentInvocation,
// bundle chunk-JDPZ4CE3.js:350330-350367), as agents/remote's Client.Run
// returns it. A failure with no text is worded here, as 0.61 words an
// error it does not know.
type RemoteInvoker interface {
	Invoke(ctx context.Context, def subagents.Definition, query string, emit func(dialog.Event)) (string, error)
}

// 0.61's limits and texts (bundle chunk-JDPZ4CE3.js:335776-335795,
// 348695, 348855-348870).
const (
	subagentMaxTurns  = 30               // DEFAULT_MAX_TURNS
	subagentTimeout   = 10 * time.Minute // DEFAULT_MAX_TIME_MINUTES
	subagentGrace     = time.Minute      // GRACE_PERIOD_MS
	defaultQuery      = "Get Started!"   // DEFAULT_QUERY_STRING
	unauthorizedTool  = "Unauthorized tool call: '%s' is not available to this agent."
	finalWarningTail  = " You have one final chance to complete the task with a short grace period. You MUST call `complete_task` immediately with your best answer and explain that your investigation was interrupted. Do not call any other tools."
	subagentFinished  = "Subagent '%s' finished.\nTermination Reason: %s\nResult:\n%s"
	subagentFailed    = "Subagent '%s' failed. Error: %s"
	terminatedEarly   = "Agent execution was terminated before completion."
	noCompleteTaskMsg = "Agent stopped calling tools but did not call 'complete_task'."
)

// terminateMode is 0.61's AgentTerminateMode.
type terminateMode string

const (
	terminateGoal       terminateMode = "GOAL"
	terminateTimeout    terminateMode = "TIMEOUT"
	terminateMaxTurns   terminateMode = "MAX_TURNS"
	terminateError      terminateMode = "ERROR"
	terminateNoComplete terminateMode = "ERROR_NO_COMPLETE_TASK_CALL"
)

// finalWarning is 0.61's getFinalWarningMessage (bundle
// chunk-JDPZ4CE3.js:348838-348855).
func finalWarning(reason terminateMode) string {
	switch reason {
	case terminateTimeout:
		return "You have exceeded the time limit." + finalWarningTail
	case terminateMaxTurns:
		return "You have exceeded the maximum number of turns." + finalWarningTail
	}
	return "You have stopped calling tools without finishing." + finalWarningTail
}

// placeholder is a template's ${name} (0.61 templateString).
var placeholder = lazyregexp.New(`\$\{(\w+)\}`)

// fillTemplate is 0.61's templateString (bundle chunk-JDPZ4CE3.js:335836):
// each ${name} replaced by inputs[name]; a name without an input is an
// error naming them all. order is the inputs' names as 0.61 lists them.
func fillTemplate(template string, inputs map[string]string, order []string) (string, error) {
	var missing []string
	for _, m := range placeholder.FindAllStringSubmatch(template, -1) {
		if _, ok := inputs[m[1]]; !ok && !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("Template validation failed: Missing required input parameters: %s. Available inputs: %s", strings.Join(missing, ", "), strings.Join(order, ", "))
	}
	return placeholder.ReplaceAllStringFunc(template, func(m string) string {
		return inputs[m[2:len(m)-1]]
	}), nil
}

// subagentsSection lists the agents invoke_agent may hire, as 0.61's
// system prompt does (snippets.ts renderSubAgents, bundle
// chunk-JDPZ4CE3.js:333329-333363); "" for none.
func subagentsSection(list []subagents.Definition) string {
	if len(list) == 0 {
		return ""
	}
	var xml []string
	for _, d := range list {
		xml = append(xml, fmt.Sprintf("  <subagent>\n    <name>%s</name>\n    <description>%s</description>\n  </subagent>", d.Name, d.Description))
	}
	return `# Available Sub-Agents

Sub-agents are specialized expert agents. You can invoke them using the ` + "`" + tools.InvokeAgentName + "`" + ` tool by passing their name to the ` + "`agent_name`" + ` parameter. You MUST delegate tasks to the sub-agent with the most relevant expertise.

### Strategic Orchestration & Delegation
Operate as a **strategic orchestrator**. Your own context window is your most precious resource. Every turn you take adds to the permanent session history. To keep the session fast and efficient, use sub-agents to "compress" complex or repetitive work.

When you delegate, the sub-agent's entire execution is consolidated into a single summary in your history, keeping your main loop lean.

**Concurrency Safety and Mandate:** You should NEVER run multiple subagents in a single turn if their abilities mutate the same files or resources. This is to prevent race conditions and ensure that the workspace is in a consistent state. Only run multiple subagents in parallel when their tasks are independent (e.g., multiple concurrent research or read-only tasks) or if parallel execution is explicitly requested by the user.

**High-Impact Delegation Candidates:**
- **Repetitive Batch Tasks:** Tasks involving more than 3 files or repeated steps (e.g., "Add license headers to all files in src/", "Fix all lint errors in the project").
- **High-Volume Output:** Commands or tools expected to return large amounts of data (e.g., verbose builds, exhaustive file searches).
- **Speculative Research:** Investigations that require many "trial and error" steps before a clear path is found.

**Assertive Action:** Continue to handle "surgical" tasks directly` + "\u2014" + `simple reads, single-file edits, or direct questions that can be resolved in 1-2 turns. Delegation is an efficiency tool, not a way to avoid direct action when it is the fastest path.

<available_subagents>
` + strings.Join(xml, "\n") + `
</available_subagents>

Remember that the closest relevant sub-agent should still be used even if its expertise is broader than the given task.

For example:
- A license-agent -> Should be used for a range of tasks, including reading, validating, and updating licenses and headers.
- A test-fixing-agent -> Should be used both for fixing tests as well as investigating test failures.`
}

// delegator is how run's call runs subagents (tools.CallInfo).
func (t *turn) delegator(run *toolRun) tools.Delegator {
	callID := run.fc.ID
	a := t.s.agent
	if a.cfg.Agents == nil {
		return nil
	}
	show := t.show // the batch's, which hands events to the prompt's goroutine
	return func(ctx context.Context, name, prompt string) (tools.Result, error) {
		def, ok := a.cfg.Agents.Lookup(name)
		if !ok {
			return tools.Result{}, fmt.Errorf("Subagent '%s' not found.", name)
		}
		tag := dialog.Subagent{CallID: callID, Name: def.Name}
		tagged := func(ev dialog.Event) { show(tag, ev) }
		if def.Kind == subagents.Remote {
			text, err := "", errors.New("remote agents are not available here")
			if a.cfg.Remote != nil {
				text, err = a.cfg.Remote.Invoke(ctx, def, prompt, tagged)
			}
			switch {
			case ctx.Err() != nil:
				return tools.Result{}, ctx.Err()
			case err != nil && text == "":
				text = remoteError(err)
			}
			return tools.Result{Output: text, Display: text}, nil
		}
		return t.runLocal(ctx, run.index, callID, def, prompt, tagged)
	}
}

// remoteError is a remote run's failure as 0.61's formatExecutionError
// words one it does not know.
func remoteError(err error) string { return "Error calling remote agent: " + err.Error() }

// runLocal runs local agent def on prompt, a subagent of t's session, as
// 0.61's LocalAgentExecutor.run does, and answers the invoke_agent call
// as LocalSubagentInvocation.execute does (bundle chunk-JDPZ4CE3.js:
// 349885-349960): the report, or why there is none; ctx's error once the
// user cancelled.
func (t *turn) runLocal(ctx context.Context, index int, callID string, def subagents.Definition, prompt string, emit func(dialog.Event)) (tools.Result, error) {
	failed := func(err error) (tools.Result, error) {
		msg := fmt.Sprintf(subagentFailed, def.Name, err)
		return tools.Result{Output: msg, Display: msg}, nil
	}
	run, err := t.newSubagentRun(ctx, callID, def, prompt, emit)
	if err != nil {
		return failed(err)
	}
	run.turn.mainIndex = index
	reason, report, err := run.run(ctx)
	t.mu.Lock()
	t.result.Usage = t.result.Usage.Add(run.turn.result.Usage)
	t.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case err != nil:
		return failed(err)
	}
	msg := fmt.Sprintf(subagentFinished, def.Name, reason, report)
	return tools.Result{Output: msg, Display: reportDisplay(report)}, nil
}

// reportDisplay is a report as the user reads it (Markdown): a
// structured one (codebase_investigator's JSON) in a code block, so that
// its lines stay lines; text as it is.
func reportDisplay(report string) string {
	trimmed := strings.TrimSpace(report)
	if (strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[")) && json.Valid([]byte(trimmed)) {
		return "```json\n" + trimmed + "\n```"
	}
	return report
}

// subagentRun is one local subagent run: its own agent (the main one's
// configuration with the subagent's model, tools and system prompt) and
// session (sharing the main one's door, stats and front end).
type subagentRun struct {
	turn     *turn
	complete *tools.CompleteTask
	input    *genai.Content
	maxTurns int
	timeout  time.Duration
}

func (t *turn) newSubagentRun(ctx context.Context, callID string, def subagents.Definition, prompt string, emit func(dialog.Event)) (*subagentRun, error) {
	parent := t.s
	a := parent.agent
	complete, err := completeTaskOf(def)
	if err != nil {
		return nil, err
	}
	set := a.pickTools(def, complete)
	system, query, err := a.subagentPrompts(def, prompt)
	if err != nil {
		return nil, err
	}
	system += a.subagentInstruction(ctx, parent, set, def.Output != nil)
	cfg := a.subagentConfig(def, set, system)
	child := &Agent{cfg: cfg, log: a.log, sessions: map[string]*Session{},
		closed: bounded.New[string, struct{}](1), blanks: bounded.New[string, *blankSession](1)}
	child.sampling = samplingOf(def)

	cs := child.newSession(parent.id, parent.root, parent.created)
	cs.parent = parent
	cs.chat.idPrefix = callID + "."
	cs.approvals = parent.approvals.withAnnotations(child.annotations)
	run := &subagentRun{
		complete: complete,
		input:    genai.NewContentFromText(query, genai.RoleUser),
		maxTurns: cfg.MaxTurns,
		timeout:  cmp.Or(def.Timeout, subagentTimeout),
	}
	run.turn = &turn{
		s:        cs,
		port:     t.port,
		show:     func(_ dialog.Subagent, ev dialog.Event) { emit(ev) },
		promptID: fmt.Sprintf("%s-%s", t.promptID, def.Name),
		system:   system,
		main:     t,
		scope:    def.Name,
		loops:    loopDetector{off: cfg.DisableLoopDetection},
		finished: func() bool { _, done := complete.Submitted(); return done },
	}
	return run, nil
}

// completeTaskOf is the complete_task tool of a subagent defined by def,
// with the report's form when def asks for one.
func completeTaskOf(def subagents.Definition) (*tools.CompleteTask, error) {
	var out *tools.TaskOutput
	if def.Output != nil {
		out = &tools.TaskOutput{Name: def.Output.Name, Description: def.Output.Description, Schema: def.Output.Schema, Format: def.Output.Format}
	}
	return tools.NewCompleteTask(out)
}

// subagentPrompts are a subagent's system prompt, before the instruction
// that ends it (subagentInstruction), and its first message, def's
// templates filled with prompt and the inputs 0.61 gives them.
func (a *Agent) subagentPrompts(def subagents.Definition, prompt string) (system, query string, err error) {
	// The inputs, as 0.61's augmentedInputs (bundle chunk-JDPZ4CE3.js:348916).
	input := cmp.Or(def.Input.Name, "prompt")
	inputs := map[string]string{input: prompt, "cliVersion": a.cfg.Version, "activeModel": a.activeModel(), "today": a.cfg.Now().Format("1/2/2006")}
	order := []string{input, "cliVersion", "activeModel", "today"}
	switch {
	case def.InheritSystemPrompt:
		system = a.cfg.SystemPrompt
		if a.cfg.SystemPromptOverride {
			system = a.substitute(system)
		}
		system += a.rootsNote() + a.sandboxNote()
	case def.SystemPrompt == "":
		return "", "", errors.New("Failed to create chat object: PromptConfig must define either `systemPrompt` or `initialMessages`.")
	default:
		if system, err = fillTemplate(def.SystemPrompt, inputs, order); err != nil {
			return "", "", err
		}
	}
	query = prompt // the contract's default: the input itself
	if def.Query != "" {
		if query, err = fillTemplate(def.Query, inputs, order); err != nil {
			return "", "", err
		}
	}
	if strings.TrimSpace(query) == "" {
		query = defaultQuery
	}
	return system, query, nil
}

// subagentConfig is the configuration of a subagent's agent: the main
// agent's, with def's tools (set), model and turns, system as its
// prompt, and nothing that belongs to the main agent alone.
func (a *Agent) subagentConfig(def subagents.Definition, set *subagentTools, system string) Config {
	// Under the locks of what may change while the agent runs: the
	// approval mode (a.mu) and the model (fallback.mu).
	a.mu.Lock()
	a.fallback.mu.Lock()
	cfg := a.cfg
	a.fallback.mu.Unlock()
	a.mu.Unlock()
	cfg.Tools = set
	cfg.Model = cmp.Or(def.Model, "inherit")
	if cfg.Model == "inherit" {
		cfg.Model = a.configuredModel()
	}
	cfg.SystemPrompt = system
	// The main agent's GEMINI_SYSTEM_MD is already in system when it
	// inherits it; only the main agent writes its prompt out.
	cfg.SystemPromptOverride, cfg.WriteSystemPrompt = false, ""
	cfg.ClientPrompt = dialog.ClientPrompt{}
	cfg.Memory, cfg.Skills, cfg.TopicNarration = nil, nil, false
	cfg.Store, cfg.Retention = nil, nil
	// A checkpoint holds the main history; the subagent's edits are not
	// checkpointed (they are journaled with the main prompt, for a rewind).
	cfg.Checkpointer = nil
	cfg.Agents, cfg.Remote = nil, nil // no recursion
	cfg.MaxTurns = cmp.Or(def.MaxTurns, subagentMaxTurns)
	return cfg
}

// subagentInstruction ends a subagent's system prompt as 0.61's
// buildSystemPrompt does (bundle chunk-JDPZ4CE3.js:349500-349555): the
// skills when it may activate them, the memory, its environment, plan
// mode's constraint and the rules of its run.
func (a *Agent) subagentInstruction(ctx context.Context, parent *Session, set *subagentTools, structured bool) string {
	var b strings.Builder
	if _, ok := set.byName[tools.ActivateSkillName]; ok && a.cfg.Skills != nil {
		if section := skillsSection(a.cfg.Skills.Enabled()); section != "" {
			b.WriteString("\n\n" + section)
		}
	}
	if a.cfg.Memory != nil {
		if mem, err := a.cfg.Memory.SystemMemory(ctx); err == nil && strings.TrimSpace(mem) != "" {
			b.WriteString("\n\n" + mem)
		}
	}
	b.WriteString("\n\n# Environment Context\n" + a.directoryContext(ctx))
	if parent.ApprovalMode() == dialog.ApprovalPlan {
		b.WriteString("\n\n# Execution Constraints\nYou are currently operating in Plan Mode. Your write tools are globally restricted to only modifying plan (.md) files in the plans directory: " + parent.plansDirOrNone() + "/. Do not attempt to modify source code directly.")
	}
	b.WriteString(`
Important Rules:
* You are running in a non-interactive mode. You CANNOT ask the user for input or clarification.
* Work systematically using available tools to complete your task.
* Always use absolute paths for file operations. Construct them using the provided "Environment Context".
* If a tool call is rejected by the user, acknowledge the rejection, rethink your strategy, and try a different approach. Do not repeatedly attempt the same rejected operation.`)
	if structured {
		b.WriteString("\n* When you have completed your task, you MUST call the `complete_task` tool with your structured output.\n* Do not call any other tools in the same turn as `complete_task`.\n* This is the ONLY way to complete your mission. If you stop calling tools without calling this, you have failed.")
	} else {
		b.WriteString("\n* When you have completed your task, you MUST call the `complete_task` tool.\n* You MUST include your final findings in the \"result\" parameter. This is how you return the necessary results for the task to be marked complete.\n* Ensure your findings are comprehensive and follow any specific formatting requirements provided in your instructions.\n* Do not call any other tools in the same turn as `complete_task`.\n* This is the ONLY way to complete your mission. If you stop calling tools without calling this, you have failed.")
	}
	return b.String()
}

// sampling is what a subagent's definition sets of its requests.
type sampling struct {
	temperature, topP *float32
	thinking          *genai.ThinkingConfig
}

func samplingOf(def subagents.Definition) *sampling {
	s := &sampling{}
	if def.Temperature != nil {
		v := float32(*def.Temperature)
		s.temperature = &v
	}
	if def.TopP != nil {
		v := float32(*def.TopP)
		s.topP = &v
	}
	if th := def.Thinking; th != nil {
		s.thinking = &genai.ThinkingConfig{IncludeThoughts: th.IncludeThoughts, ThinkingBudget: th.Budget, ThinkingLevel: genai.ThinkingLevel(th.Level)}
	}
	return s
}

// run runs the subagent until it hands in its report or a limit ends it,
// then, for a limit, gives it one grace turn to hand one in (0.61's
// executeFinalWarningTurn); the reason it ended, and the report or why
// there is none. err is a failure (the model's error, a loop).
func (r *subagentRun) run(ctx context.Context) (terminateMode, string, error) {
	t := r.turn
	parent := t.s.parent.agent
	deadline := subagentDeadline(realDeadline)
	if parent.deadline != nil {
		deadline = parent.deadline
	}
	runCtx, clock, cancel := deadline(ctx, r.timeout)
	defer cancel()
	t.setContext(runCtx)
	t.clock = clock
	res := t.run(r.input)
	if report, done := r.complete.Submitted(); done {
		return terminateGoal, report, nil
	}
	var reason terminateMode
	switch {
	case ctx.Err() != nil:
		return terminateError, "", ctx.Err()
	case runCtx.Err() != nil:
		reason = terminateTimeout
	case res.StopReason == dialog.StopMaxTurns:
		reason = terminateMaxTurns
	case res.StopReason == dialog.StopEndTurn:
		reason = terminateNoComplete
	case res.Err != nil:
		return terminateError, "", res.Err
	default:
		return terminateError, terminatedEarly, nil
	}

	// The grace turn: one more request, within a minute of its own.
	t.emit(dialog.NoticeEvent{Text: fmt.Sprintf("Execution limit reached (%s). Attempting one final recovery turn with a grace period.", reason)})
	// The grace period is not paused for the user, as 0.61's is not.
	graceCtx, _, cancelGrace := deadline(ctx, subagentGrace)
	defer cancelGrace()
	t.setContext(graceCtx)
	t.clock = nil
	t.s.agent.cfg.MaxTurns = t.s.requests + 1
	t.run(r.pendingWith(finalWarning(reason)))
	if report, done := r.complete.Submitted(); done {
		return terminateGoal, report, nil
	}
	if ctx.Err() != nil {
		return terminateError, "", ctx.Err()
	}
	var why string
	switch reason {
	case terminateTimeout:
		why = fmt.Sprintf("Agent timed out after %s minutes.", minutes(r.timeout))
	case terminateMaxTurns:
		why = fmt.Sprintf("Agent reached max turns limit (%d).", r.maxTurns)
	default:
		why = noCompleteTaskMsg
	}
	t.emit(dialog.ErrorEvent{Err: errors.New(why)})
	return reason, why, nil
}

// pendingWith is the grace turn's message: the answers to the last calls,
// if the run ended with them unsent, then text.
func (r *subagentRun) pendingWith(text string) *genai.Content {
	c := &r.turn.s.chat
	msg := genai.NewContentFromText(text, genai.RoleUser)
	if n := len(c.history); n > 0 && c.history[n-1].Role == genai.RoleUser {
		last := c.history[n-1]
		c.history = c.history[:n-1]
		msg.Parts = append(slices.Clone(last.Parts), msg.Parts...)
	}
	return msg
}

// minutes is d in minutes as JavaScript prints a number.
func minutes(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", d.Minutes()), "0"), ".")
}
