package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// trackerToolsIn are the tracker's tools by name, each session keeping
// its tasks in dir/<session>/tracker.
func trackerToolsIn(t *testing.T) (dir string, byName map[string]Tool) {
	t.Helper()
	dir = t.TempDir()
	byName = map[string]Tool{}
	for _, tool := range trackerTools(func(id string) (string, error) { return filepath.Join(dir, id, "tracker"), nil }) {
		byName[tool.Name()] = tool
	}
	return dir, byName
}

// trackerRun runs tool name with args in session "s".
func trackerRun(t *testing.T, tools map[string]Tool, name string, args map[string]any) Result {
	t.Helper()
	call := build(t, tools[name], args)
	res, err := call.Execute(t.Context(), CallInfo{SessionID: "s"})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// The tracker's declarations are Gemini CLI 0.61's (trackerTools.js's
// definitions), word for word.
func TestTrackerDeclarationsAreGeminiCLIs(t *testing.T) {
	_, byName := trackerToolsIn(t)
	statuses := []any{"open", "in_progress", "blocked", "closed"}
	types := []any{"epic", "task", "bug"}
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	enum := func(d string, values []any) map[string]any {
		return map[string]any{"type": "string", "enum": values, "description": d}
	}
	strs := func(d string) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": d}
	}
	want := map[string]map[string]any{
		TrackerCreateTaskName: {"type": "object", "required": []any{"title", "description", "type"}, "properties": map[string]any{
			"title":        str("Detailed title of the task. Should be concise but provide enough detail to understand the objective."),
			"description":  str("Detailed description of the task. Must contain more specific details and context than the title."),
			"type":         enum("Type of the task.", types),
			"parentId":     str("Optional ID of the parent task."),
			"dependencies": strs("Optional list of task IDs that this task depends on."),
		}},
		TrackerUpdateTaskName: {"type": "object", "required": []any{"id"}, "properties": map[string]any{
			"id":           str("The 6-character hex ID of the task to update."),
			"title":        str("New title for the task."),
			"description":  str("New detailed description for the task."),
			"status":       enum("New status for the task.", statuses),
			"dependencies": strs("New list of dependency IDs."),
		}},
		TrackerGetTaskName: {"type": "object", "required": []any{"id"}, "properties": map[string]any{
			"id": str("The 6-character hex ID of the task."),
		}},
		TrackerListTasksName: {"type": "object", "properties": map[string]any{
			"status":   enum("Filter by status.", statuses),
			"type":     enum("Filter by type.", types),
			"parentId": str("Filter by parent task ID."),
		}},
		TrackerAddDependencyName: {"type": "object", "required": []any{"taskId", "dependencyId"}, "properties": map[string]any{
			"taskId":       str("The ID of the task that has a dependency."),
			"dependencyId": str("The ID of the task that is being depended upon."),
		}},
		TrackerVisualizeName: {"type": "object", "properties": map[string]any{}},
	}
	descriptions := map[string]string{
		TrackerCreateTaskName:    "Creates a new task in the tracker.",
		TrackerUpdateTaskName:    "Updates an existing task in the tracker.",
		TrackerGetTaskName:       "Retrieves details for a specific task.",
		TrackerListTasksName:     "Lists tasks in the tracker, optionally filtered by status, type, or parent.",
		TrackerAddDependencyName: "Adds a dependency between two tasks.",
		TrackerVisualizeName:     "Renders an ASCII tree visualization of the task graph.",
	}
	if len(byName) != len(want) {
		t.Fatalf("%d tracker tools, want %d", len(byName), len(want))
	}
	for name, schema := range want {
		d := byName[name].Declaration()
		var got map[string]any
		data, _ := json.Marshal(d.ParametersJsonSchema)
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, schema) {
			t.Errorf("%s parameters:\n got  %v\n want %v", name, got, schema)
		}
		if d.Description != descriptions[name] {
			t.Errorf("%s description %q, want %q", name, d.Description, descriptions[name])
		}
	}
}

// A task's life: created, listed, given a dependency it must wait for,
// closed once that is; each answer in 0.61's words, each file as 0.61
// writes it.
func TestTrackerKeepsTasksAsGeminiCLIDoes(t *testing.T) {
	dir, tools := trackerToolsIn(t)
	created := trackerRun(t, tools, TrackerCreateTaskName, map[string]any{"title": "Parse <input>", "description": "Write the parser & tests.", "type": "task"})
	id := strings.TrimSuffix(strings.TrimPrefix(created.Output, "Created task "), ": Parse <input>")
	if len(id) != 6 || created.Output != "Created task "+id+": Parse <input>" {
		t.Fatalf("create answered %q", created.Output)
	}
	file := filepath.Join(dir, "s", "tracker", id+".json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"title\": \"Parse <input>\",\n  \"description\": \"Write the parser & tests.\",\n  \"type\": \"task\",\n  \"status\": \"open\",\n  \"dependencies\": [],\n  \"id\": \"" + id + "\"\n}"
	if string(data) != want {
		t.Errorf("task file:\n%s\nwant (JSON.stringify(task, null, 2)):\n%s", data, want)
	}

	dep := trackerRun(t, tools, TrackerCreateTaskName, map[string]any{"title": "Lexer", "description": "Tokens.", "type": "bug", "parentId": id})
	depID := strings.Fields(dep.Output)[2]
	depID = strings.TrimSuffix(depID, ":")
	if got := trackerRun(t, tools, TrackerAddDependencyName, map[string]any{"taskId": id, "dependencyId": depID}).Output; got != "Linked "+id+" -> "+depID+"." {
		t.Errorf("add_dependency answered %q", got)
	}
	closing := trackerRun(t, tools, TrackerUpdateTaskName, map[string]any{"id": id, "status": "closed"})
	if want := "Error updating task: Cannot close task " + id + " because dependency " + depID + " is still open."; closing.Error != want {
		t.Errorf("closing before the dependency: %+v, want error %q", closing, want)
	}
	if got := trackerRun(t, tools, TrackerAddDependencyName, map[string]any{"taskId": depID, "dependencyId": id}).Error; got != "Error adding dependency: Circular dependency detected involving task "+depID+"." {
		t.Errorf("a cycle: %q", got)
	}
	trackerRun(t, tools, TrackerUpdateTaskName, map[string]any{"id": depID, "status": "closed"})
	if got := trackerRun(t, tools, TrackerUpdateTaskName, map[string]any{"id": id, "status": "closed"}).Output; got != "Updated task "+id+". Status: closed" {
		t.Errorf("closing after the dependency: %q", got)
	}
	list := trackerRun(t, tools, TrackerListTasksName, map[string]any{"type": "bug"})
	if list.Output != "- ["+depID+"] Lexer (closed)" {
		t.Errorf("list of bugs: %q", list.Output)
	}
	if want := "- [x] task: Parse <input> (" + id + ")\n  - [x] bug: Lexer (" + depID + ")\n"; list.Display != want {
		t.Errorf("the user's list:\n%s\nwant:\n%s", list.Display, want)
	}
	graph := trackerRun(t, tools, TrackerVisualizeName, map[string]any{}).Output
	if want := "Task Tracker Graph:\n✅ " + id + " [TASK] Parse <input>\n  └─ Depends on: " + depID + "\n  ✅ " + depID + " [BUG] Lexer\n"; graph != want {
		t.Errorf("graph:\n%s\nwant:\n%s", graph, want)
	}
	got := trackerRun(t, tools, TrackerGetTaskName, map[string]any{"id": depID}).Output
	var task map[string]any
	if err := json.Unmarshal([]byte(got), &task); err != nil || task["parentId"] != id || task["status"] != "closed" {
		t.Errorf("get answered %q (%v)", got, err)
	}
	// An id that is a path names no task.
	if got := trackerRun(t, tools, TrackerGetTaskName, map[string]any{"id": "../s/tracker/" + id}).Output; got != "Task ../s/tracker/"+id+" not found." {
		t.Errorf("a path as the id: %q", got)
	}
	// Another session has its own tracker.
	call := build(t, tools[TrackerListTasksName], map[string]any{})
	if res, err := call.Execute(t.Context(), CallInfo{SessionID: "other"}); err != nil || res.Output != "No tasks found matching the criteria." {
		t.Errorf("another session's list: %+v, %v", res, err)
	}
}

// A task written by Gemini CLI 0.61 (its fields in another order, its
// metadata) is read and kept whole when updated.
func TestTrackerReadsGeminiCLIsTasks(t *testing.T) {
	dir, tools := trackerToolsIn(t)
	written := `{
  "id": "a1b2c3",
  "title": "Ship",
  "description": "Release it.",
  "type": "epic",
  "status": "in_progress",
  "dependencies": [],
  "subagentSessionId": "sub-1",
  "metadata": {"owner": "ada"}
}`
	if err := os.MkdirAll(filepath.Join(dir, "s", "tracker"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s", "tracker", "a1b2c3.json"), []byte(written), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := trackerRun(t, tools, TrackerListTasksName, map[string]any{}).Output; got != "- [a1b2c3] Ship (in_progress)" {
		t.Errorf("list: %q", got)
	}
	trackerRun(t, tools, TrackerUpdateTaskName, map[string]any{"id": "a1b2c3", "title": "Ship it"})
	data, err := os.ReadFile(filepath.Join(dir, "s", "tracker", "a1b2c3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var task map[string]any
	if err := json.Unmarshal(data, &task); err != nil {
		t.Fatal(err)
	}
	if task["title"] != "Ship it" || task["subagentSessionId"] != "sub-1" || !reflect.DeepEqual(task["metadata"], map[string]any{"owner": "ada"}) {
		t.Errorf("after the update: %s", data)
	}
}
