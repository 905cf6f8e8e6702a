package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// TrackerDir finds the tracker directory of the session with the id.
type TrackerDir func(sessionID string) (string, error)

// tracker is what the tracker's tools share: where each session's tasks
// are, and one lock, so that calls running side by side (the model's
// answer may hold several) read and write whole tasks in turn.
type tracker struct {
	dirOf TrackerDir
	mu    *sync.Mutex
}

// trackerTools are the task tracker's six tools, as Gemini CLI 0.61
// declares them under experimental.taskTracker; none without dirOf (the
// setting off). Their declarations are 0.61's, word for word. They change
// only the tracker's own files, and 0.61's read-only.toml allows them
// everywhere, plan mode included: they say they are read-only.
func trackerTools(dirOf TrackerDir) []Tool {
	if dirOf == nil {
		return nil
	}
	tr := tracker{dirOf: dirOf, mu: new(sync.Mutex)}
	spec := func(name, description string, kind dialog.Kind, alias string) Spec {
		return Spec{Name: name, Description: description, Annotations: Annotations{Kind: kind, ReadOnly: true}, Aliases: []string{alias}}
	}
	return []Tool{
		Define(spec(TrackerCreateTaskName, "Creates a new task in the tracker.", dialog.KindEdit, "TrackerCreateTaskTool"),
			func(p createTaskParams) (Call, error) {
				return trackerCall{tr, "Creating task: " + p.Title, p.run}, nil
			}),
		Define(spec(TrackerUpdateTaskName, "Updates an existing task in the tracker.", dialog.KindEdit, "TrackerUpdateTaskTool"),
			func(p updateTaskParams) (Call, error) { return trackerCall{tr, "Updating task " + p.ID, p.run}, nil }),
		Define(spec(TrackerGetTaskName, "Retrieves details for a specific task.", dialog.KindRead, "TrackerGetTaskTool"),
			func(p getTaskParams) (Call, error) { return trackerCall{tr, "Retrieving task " + p.ID, p.run}, nil }),
		Define(spec(TrackerListTasksName, "Lists tasks in the tracker, optionally filtered by status, type, or parent.", dialog.KindSearch, "TrackerListTasksTool"),
			func(p listTasksParams) (Call, error) { return trackerCall{tr, "Listing tasks.", p.run}, nil }),
		Define(spec(TrackerAddDependencyName, "Adds a dependency between two tasks.", dialog.KindEdit, "TrackerAddDependencyTool"),
			func(p addDependencyParams) (Call, error) {
				return trackerCall{tr, fmt.Sprintf("Adding dependency: %s depends on %s", p.TaskID, p.DependencyID), p.run}, nil
			}),
		Define(spec(TrackerVisualizeName, "Renders an ASCII tree visualization of the task graph.", dialog.KindRead, "TrackerVisualizeTool"),
			func(p visualizeParams) (Call, error) {
				return trackerCall{tr, "Visualizing the task graph.", p.run}, nil
			}),
	}
}

// trackerCall is a call of a tracker tool: run does its work on the
// session's store.
type trackerCall struct {
	tr    tracker
	title string
	run   func(trackerStore) (Result, error)
}

func (c trackerCall) Title() string               { return c.title }
func (c trackerCall) Confirmation() *Confirmation { return nil }

func (c trackerCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	dir, err := c.tr.dirOf(info.SessionID)
	if err != nil {
		return failure(fmt.Sprintf("The task tracker has no directory: %v", err)), nil
	}
	c.tr.mu.Lock()
	defer c.tr.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return c.run(trackerStore{dir: dir})
}

// withTodos is res with the user's view of the tracker after the call
// (0.61's buildTodosReturnDisplay).
func withTodos(s trackerStore, res Result) (Result, error) {
	tasks, err := s.list()
	if err != nil {
		return failure(err.Error()), nil
	}
	res.Display = todosDisplay(tasks)
	return res, nil
}

// enumOf sets the enum of s's property name to values.
func enumOf(s *jsonschema.Schema, name string, values []string) {
	for _, v := range values {
		s.Properties[name].Enum = append(s.Properties[name].Enum, v)
	}
}

type createTaskParams struct {
	Title        string   `json:"title" jsonschema:"Detailed title of the task. Should be concise but provide enough detail to understand the objective."`
	Description  string   `json:"description" jsonschema:"Detailed description of the task. Must contain more specific details and context than the title."`
	Type         string   `json:"type" jsonschema:"Type of the task."`
	ParentID     string   `json:"parentId,omitempty" jsonschema:"Optional ID of the parent task."`
	Dependencies []string `json:"dependencies,omitempty" jsonschema:"Optional list of task IDs that this task depends on."`
}

func (createTaskParams) extendSchema(s *jsonschema.Schema) { enumOf(s, "type", taskTypes) }

func (p createTaskParams) run(s trackerStore) (Result, error) {
	t, err := s.create(trackerTask{Title: p.Title, Description: p.Description, Type: p.Type, Status: taskOpen, ParentID: p.ParentID, Dependencies: p.Dependencies})
	if err != nil {
		return Result{Error: "Error creating task: " + err.Error(), Status: dialog.StatusError, Display: "Failed to create task."}, nil
	}
	return withTodos(s, Result{Output: fmt.Sprintf("Created task %s: %s", t.ID, t.Title)})
}

type updateTaskParams struct {
	ID           string   `json:"id" jsonschema:"The 6-character hex ID of the task to update."`
	Title        *string  `json:"title,omitempty" jsonschema:"New title for the task."`
	Description  *string  `json:"description,omitempty" jsonschema:"New detailed description for the task."`
	Status       *string  `json:"status,omitempty" jsonschema:"New status for the task."`
	Dependencies []string `json:"dependencies,omitempty" jsonschema:"New list of dependency IDs."`
}

func (updateTaskParams) extendSchema(s *jsonschema.Schema) { enumOf(s, "status", taskStatuses) }

func (p updateTaskParams) run(s trackerStore) (Result, error) {
	t, err := s.update(p.ID, taskUpdate{Title: p.Title, Description: p.Description, Status: p.Status, Dependencies: p.Dependencies})
	if err != nil {
		return Result{Error: "Error updating task: " + err.Error(), Status: dialog.StatusError, Display: "Failed to update task."}, nil
	}
	return withTodos(s, Result{Output: fmt.Sprintf("Updated task %s. Status: %s", t.ID, t.Status)})
}

type getTaskParams struct {
	ID string `json:"id" jsonschema:"The 6-character hex ID of the task."`
}

func (p getTaskParams) run(s trackerStore) (Result, error) {
	t, found, err := s.get(p.ID)
	switch {
	case err != nil:
		return failure(err.Error()), nil
	case !found:
		return Result{Output: fmt.Sprintf("Task %s not found.", p.ID), Display: "Task not found."}, nil
	}
	text, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return Result{}, fmt.Errorf("encoding task %s: %w", t.ID, err)
	}
	return withTodos(s, Result{Output: string(text)})
}

type listTasksParams struct {
	Status   string `json:"status,omitempty" jsonschema:"Filter by status."`
	Type     string `json:"type,omitempty" jsonschema:"Filter by type."`
	ParentID string `json:"parentId,omitempty" jsonschema:"Filter by parent task ID."`
}

func (listTasksParams) extendSchema(s *jsonschema.Schema) {
	enumOf(s, "status", taskStatuses)
	enumOf(s, "type", taskTypes)
}

func (p listTasksParams) run(s trackerStore) (Result, error) {
	tasks, err := s.list()
	if err != nil {
		return failure(err.Error()), nil
	}
	var lines []string
	for _, t := range tasks {
		if (p.Status == "" || t.Status == p.Status) && (p.Type == "" || t.Type == p.Type) && (p.ParentID == "" || t.ParentID == p.ParentID) {
			lines = append(lines, fmt.Sprintf("- [%s] %s (%s)", t.ID, t.Title, t.Status))
		}
	}
	if len(lines) == 0 {
		return Result{Output: "No tasks found matching the criteria.", Display: "No matching tasks."}, nil
	}
	return Result{Output: strings.Join(lines, "\n"), Display: todosDisplay(tasks)}, nil
}

type addDependencyParams struct {
	TaskID       string `json:"taskId" jsonschema:"The ID of the task that has a dependency."`
	DependencyID string `json:"dependencyId" jsonschema:"The ID of the task that is being depended upon."`
}

func (p addDependencyParams) run(s trackerStore) (Result, error) {
	if p.TaskID == p.DependencyID {
		return Result{Error: fmt.Sprintf("Error: Task %s cannot depend on itself.", p.TaskID), Status: dialog.StatusError, Display: "Self-referential dependency rejected."}, nil
	}
	task, found, err := s.get(p.TaskID)
	if err != nil {
		return failure(err.Error()), nil
	}
	if !found {
		return Result{Output: fmt.Sprintf("Task %s not found.", p.TaskID), Display: "Task not found."}, nil
	}
	dep, found, err := s.get(p.DependencyID)
	if err != nil {
		return failure(err.Error()), nil
	}
	if !found {
		return Result{Output: fmt.Sprintf("Dependency task %s not found.", p.DependencyID), Display: "Dependency not found."}, nil
	}
	deps := task.Dependencies
	if !slices.Contains(deps, dep.ID) {
		deps = append(deps, dep.ID)
	}
	if _, err := s.update(task.ID, taskUpdate{Dependencies: deps}); err != nil {
		return Result{Error: "Error adding dependency: " + err.Error(), Status: dialog.StatusError, Display: "Failed to add dependency."}, nil
	}
	return withTodos(s, Result{Output: fmt.Sprintf("Linked %s -> %s.", task.ID, dep.ID)})
}

type visualizeParams struct{}

func (visualizeParams) run(s trackerStore) (Result, error) {
	tasks, err := s.list()
	if err != nil {
		return failure(err.Error()), nil
	}
	if len(tasks) == 0 {
		return Result{Output: "No tasks to visualize.", Display: "Empty tracker."}, nil
	}
	return Result{Output: taskGraph(tasks), Display: todosDisplay(tasks)}, nil
}
