package tools

import (
	"iter"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// ChecklistTodos is the to-do list a Markdown text writes as a task list
// (- [ ] step, - [x] step done), as write_todos' list is shown: each
// item's text and its status, pending or completed; nil when the text
// has fewer than two such items (one box is no plan). Items in fenced
// code blocks are not counted: they are code, not the model's plan.
func ChecklistTodos(markdown string) []dialog.Todo {
	var todos []dialog.Todo
	for line := range proseLines(markdown) {
		if todo, ok := checklistItem(strings.TrimSpace(line)); ok {
			todos = append(todos, todo)
		}
	}
	if len(todos) < 2 {
		return nil
	}
	return todos
}

// checklistItem reads one task list item: a bullet (-, * or +), a box
// ([ ], [x] or [X]) and the item's text.
func checklistItem(line string) (dialog.Todo, bool) {
	if len(line) < 6 || !strings.ContainsRune("-*+", rune(line[0])) || line[1] != ' ' || line[2] != '[' || line[4] != ']' || line[5] != ' ' {
		return dialog.Todo{}, false
	}
	text := strings.TrimSpace(line[6:])
	if text == "" {
		return dialog.Todo{}, false
	}
	switch line[3] {
	case ' ':
		return dialog.Todo{Description: text, Status: "pending"}, true
	case 'x', 'X':
		return dialog.Todo{Description: text, Status: "completed"}, true
	}
	return dialog.Todo{}, false
}

// PlanTodos is the to-do list of a plan file (plan mode's, which
// exit_plan_mode presents): its task list (ChecklistTodos), else its
// numbered steps, each a line that starts "1. " or "1) " at the left
// margin, all pending; nil for a plan with neither.
func PlanTodos(plan string) []dialog.Todo {
	if todos := ChecklistTodos(plan); todos != nil {
		return todos
	}
	var todos []dialog.Todo
	for line := range proseLines(plan) {
		digits := len(line) - len(strings.TrimLeft(line, "0123456789"))
		if digits == 0 || digits > 3 || len(line) < digits+2 || (line[digits] != '.' && line[digits] != ')') || line[digits+1] != ' ' {
			continue
		}
		if text := strings.TrimSpace(line[digits+2:]); text != "" {
			todos = append(todos, dialog.Todo{Description: text, Status: "pending"})
		}
	}
	return todos
}

// proseLines are markdown's lines outside fenced code blocks (``` or
// ~~~), the fences left out too: a list in code is code, not a plan.
func proseLines(markdown string) iter.Seq[string] {
	return func(yield func(string) bool) {
		fenced := false
		for line := range strings.Lines(markdown) {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				fenced = !fenced
				continue
			}
			if !fenced && !yield(line) {
				return
			}
		}
	}
}
