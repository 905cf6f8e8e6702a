package agent

// A call of a tool the model was not told of.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// toolNotRegistered is 0.61's ToolErrorType for a call of a tool it has
// not: what -o stream-json's tool_result names such a failure.
const toolNotRegistered = "tool_not_registered"

// declaredTools says which tools the turn's last model request declared:
// those the session offered in the mode and plans directory of key.
// Unset for a turn that made no request (a call the user ran).
type declaredTools struct {
	key toolsKey
	set bool
}

// lookUp finds the tool run's call names, among the tools the model was
// told of, as 0.61's registry finds only its active tools: a tool the
// session holds but did not declare in the request the model answered
// (one the policy excludes in the mode, enter_plan_mode in plan mode, a
// tool a subagent was not given) is not there for the model, whatever
// it calls. ok false, with the result to answer with (0.61's words,
// tools.ToolNotFound), when there is none; the user is told why a tool
// the session holds did not run.
func (t *turn) lookUp(run *toolRun) (tools.Tool, tools.Result, bool) {
	a, name := t.s.agent, run.fc.Name
	if a.cfg.Tools == nil {
		return nil, tools.Result{Error: fmt.Sprintf("Tool %q not found: no tools are available.", name)}, false
	}
	tool, held := a.cfg.Tools.Get(name)
	key := t.declared.key
	if !t.declared.set {
		key.mode, key.plansDir = t.s.requestMode()
	}
	declared := a.declaredNames(key)
	if held && (!t.declared.set || slices.Contains(declared, tool.Name())) {
		return tool, tools.Result{}, true
	}
	run.notFound = true
	if held {
		text, not := a.notOffered(tool.Name(), key)
		t.emit(dialog.NoticeEvent{Text: text, NotOffered: not})
	}
	return nil, tools.Result{Error: a.cfg.Tools.UnknownToolError(name, declared)}, false
}

// notOffered tells the user that tool name, which the session holds, was
// not offered in key's mode, so its call did not run, and what would
// offer it: the first mode of default, auto_edit and yolo that does, and
// (outside plan mode, where settings allow nothing) tools.allowed. It
// also says so as data, nil where no mode would offer it (write_todos on
// a model that never gets it).
func (a *Agent) notOffered(name string, key toolsKey) (string, *dialog.NotOffered) {
	if model := a.configuredModel(); name == tools.WriteTodosName && !models.DeclaresWriteTodos(model) {
		return fmt.Sprintf("%s is offered to the model only on Gemini 2 models, as Gemini CLI 0.61 offers it, not on %s, so the model's call of it did not run; the model was told: Tool %q not found.", name, model, name), nil
	}
	var offers []string
	var offeredIn dialog.ApprovalMode
	for _, mode := range []dialog.ApprovalMode{dialog.ApprovalDefault, dialog.ApprovalAutoEdit, dialog.ApprovalYolo} {
		if mode != key.mode && slices.Contains(a.declaredNames(toolsKey{mode: mode, plansDir: key.plansDir}), name) {
			offers = append(offers, fmt.Sprintf("the %s approval mode offers it", mode))
			offeredIn = mode
			break
		}
	}
	if key.mode != dialog.ApprovalPlan {
		offers = append(offers, "settings' tools.allowed can allow it")
	}
	hint := ""
	if len(offers) > 0 {
		hint = " (" + strings.Join(offers, "; ") + ")"
	}
	return fmt.Sprintf("%s is not offered to the model in the %s approval mode%s, so the model's call of it did not run; the model was told: Tool %q not found.", name, key.mode, hint, name), &dialog.NotOffered{Tool: name, Mode: key.mode, OfferedIn: offeredIn}
}

// declaredNames are the names of the tools a request in key's mode and
// plans directory declares, in their order.
func (a *Agent) declaredNames(key toolsKey) []string {
	var names []string
	for _, t := range a.offeredTools(key.mode, key.plansDir) {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}
