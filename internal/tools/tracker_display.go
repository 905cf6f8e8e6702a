package tools

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// taskTree is the tasks by parent, each list in the order given.
type taskTree struct {
	roots    []trackerTask
	children map[string][]trackerTask
}

func treeOf(tasks []trackerTask) taskTree {
	tree := taskTree{children: map[string][]trackerTask{}}
	for _, t := range tasks {
		if t.ParentID != "" {
			tree.children[t.ParentID] = append(tree.children[t.ParentID], t)
		} else {
			tree.roots = append(tree.roots, t)
		}
	}
	return tree
}

// walk calls visit for each task below the roots, depth first, a task
// met again below itself as a cycle (task nil), as 0.61's tracker tools
// walk the tree; order sorts each list of children first, when set.
func (tree taskTree) walk(order func(a, b trackerTask) int, visit func(t *trackerTask, id string, depth int)) {
	roots := slices.Clone(tree.roots)
	if order != nil {
		slices.SortStableFunc(roots, order)
	}
	onPath := map[string]bool{}
	var walk func(t trackerTask, depth int)
	walk = func(t trackerTask, depth int) {
		if onPath[t.ID] {
			visit(nil, t.ID, depth)
			return
		}
		onPath[t.ID] = true
		visit(&t, t.ID, depth)
		children := slices.Clone(tree.children[t.ID])
		if order != nil {
			slices.SortStableFunc(children, order)
		}
		for _, child := range children {
			walk(child, depth+1)
		}
		delete(onPath, t.ID)
	}
	for _, root := range roots {
		walk(root, 0)
	}
}

// byStatusThenID is 0.61's order of the user's list: in progress, open,
// blocked, closed, then by id.
func byStatusThenID(a, b trackerTask) int {
	rank := func(status string) int {
		return slices.Index([]string{taskInProgress, taskOpen, taskBlocked, taskClosed}, status)
	}
	return cmp.Or(cmp.Compare(rank(a.Status), rank(b.Status)), strings.Compare(a.ID, b.ID))
}

// todosDisplay is the tracker as the user is shown it after each call,
// as 0.61's buildTodosReturnDisplay lists it (a to-do per task, indented
// below its parent), written as write_todos shows its list.
func todosDisplay(tasks []trackerTask) string {
	var b strings.Builder
	treeOf(tasks).walk(byStatusThenID, func(t *trackerTask, id string, depth int) {
		indent := strings.Repeat("  ", depth)
		if t == nil {
			fmt.Fprintf(&b, "%s- [ ] [CYCLE DETECTED: %s]\n", indent, id)
			return
		}
		mark := " "
		if t.Status == taskClosed {
			mark = "x"
		}
		fmt.Fprintf(&b, "%s- [%s] %s: %s (%s)\n", indent, mark, t.Type, t.Title, t.ID)
	})
	return b.String()
}

// taskGraph is tracker_visualize's output, 0.61's words and symbols.
func taskGraph(tasks []trackerTask) string {
	symbols := map[string]string{taskOpen: "⭕", taskInProgress: "🚧", taskBlocked: "⛔", taskClosed: "✅"}
	var b strings.Builder
	b.WriteString("Task Tracker Graph:\n")
	treeOf(tasks).walk(nil, func(t *trackerTask, id string, depth int) {
		indent := strings.Repeat("  ", depth)
		if t == nil {
			fmt.Fprintf(&b, "%s[CYCLE DETECTED: %s]\n", indent, id)
			return
		}
		fmt.Fprintf(&b, "%s%s %s [%s] %s\n", indent, symbols[t.Status], t.ID, strings.ToUpper(t.Type), t.Title)
		if len(t.Dependencies) > 0 {
			fmt.Fprintf(&b, "%s  └─ Depends on: %s\n", indent, strings.Join(t.Dependencies, ", "))
		}
	})
	return b.String()
}
