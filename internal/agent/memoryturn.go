package agent

import (
	"context"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"
)

// Where the memory goes. Gemini CLI 0.61 splits it (Config's
// getSystemInstructionMemory and getSessionMemory, bundle
// chunk-JDPZ4CE3.js:379957): the global GEMINI.md and the private
// MEMORY.md end its system instruction, which it makes again when they
// change; the extensions' and the project's GEMINI.md files end the
// <session_context> of its first user message, made once. gemini-ls
// keeps all of it out of the system instruction, so that the system
// instruction and the tools, the start of every request, never change
// within a session: the memory is a part of the first user content, and
// a change of it (the model or the user edited GEMINI.md) is a part of
// the next prompt's content, the whole memory as it is then. Both are
// in the history, so saved, and a resumed session sends them as they
// were. A compression summarises them away: the next prompt gives the
// memory whole again.

// contextFilesTag opens the part that gives the memory.
const contextFilesTag = "<context_files>"

// memoryChangedNote begins a memory part that updates an earlier one.
const memoryChangedNote = "The context files changed since they were last given; they now read:\n\n"

// memoryNoneNote is the update when no context file is loaded any more.
const memoryNoneNote = "The context files changed since they were last given: none is loaded now."

// memoryPart is the part that gives mem: the first time, or as a change.
func memoryPart(mem string, changed bool) *genai.Part {
	body := mem
	switch {
	case changed && mem == "":
		body = memoryNoneNote
	case changed:
		body = memoryChangedNote + mem
	}
	return &genai.Part{Text: contextFilesTag + "\n" + body + "\n</context_files>"}
}

// toldMemory is the memory the last memory part of history gave, and
// whether there is one.
func toldMemory(history []*genai.Content) (string, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		c := history[i]
		if c.Role != genai.RoleUser {
			continue
		}
		for _, p := range c.Parts {
			body, ok := strings.CutPrefix(p.Text, contextFilesTag+"\n")
			if !ok {
				continue
			}
			body = strings.TrimSuffix(body, "\n</context_files>")
			if body == memoryNoneNote {
				return "", true
			}
			return strings.TrimPrefix(body, memoryChangedNote), true
		}
	}
	return "", false
}

// withMemory is a main session's prompt input with the memory before it
// when the model was not given it yet, or it changed since; input itself
// otherwise (and for a subagent, which has its memory in its system
// instruction, and for the answers of calls).
func (t *turn) withMemory(input *genai.Content) *genai.Content {
	a := t.s.agent
	if a.cfg.Memory == nil || t.main != nil || t.s.parent != nil || hasFunctionResponse(input) {
		return input
	}
	mem := a.readMemory(t.ctx)
	told, given := toldMemory(t.s.chat.history)
	if (!given && mem == "") || (given && told == mem) {
		return input
	}
	parts := append([]*genai.Part{memoryPart(mem, given)}, input.Parts...)
	return &genai.Content{Role: input.Role, Parts: parts}
}

// readMemory is the memory as it is now, "" for none (a failure logged).
func (a *Agent) readMemory(ctx context.Context) string {
	mem, err := a.cfg.Memory.SystemMemory(ctx)
	if err != nil {
		a.cfg.Logger.Warn("reading the GEMINI.md memory", zap.Error(err))
	}
	return mem
}
