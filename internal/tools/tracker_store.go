package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// The task tracker keeps its tasks as Gemini CLI 0.61's TrackerService
// does (trackerService.ts), so that a user moving between the two sees
// the same tasks: one JSON file per task, <id>.json, 2-space indented, in
// the session's tracker directory, ~/.gemini/tmp/<project>/<session
// id>/tracker.

// Task statuses and types, in 0.61's words (trackerTypes.ts).
const (
	taskOpen       = "open"
	taskInProgress = "in_progress"
	taskBlocked    = "blocked"
	taskClosed     = "closed"
)

var (
	taskStatuses = []string{taskOpen, taskInProgress, taskBlocked, taskClosed}
	taskTypes    = []string{"epic", "task", "bug"}
)

// trackerTask is one task as 0.61 writes it, its fields in the order
// 0.61's createTask writes them.
type trackerTask struct {
	Title             string         `json:"title"`
	Description       string         `json:"description"`
	Type              string         `json:"type"`
	Status            string         `json:"status"`
	ParentID          string         `json:"parentId,omitempty"`
	Dependencies      []string       `json:"dependencies"`
	ID                string         `json:"id"`
	SubagentSessionID string         `json:"subagentSessionId,omitempty"`
	Metadata          map[string]any `json:"metadata,omitempty"`
}

// validate is 0.61's TrackerTaskSchema: what a task must be to be
// written or read.
func (t *trackerTask) validate() error {
	switch {
	case len(t.ID) != 6:
		return fmt.Errorf("invalid task id %q: it must be 6 characters", t.ID)
	case !slices.Contains(taskTypes, t.Type):
		return fmt.Errorf("invalid task type %q: expected one of %s", t.Type, strings.Join(taskTypes, ", "))
	case !slices.Contains(taskStatuses, t.Status):
		return fmt.Errorf("invalid task status %q: expected one of %s", t.Status, strings.Join(taskStatuses, ", "))
	case t.Dependencies == nil:
		return errors.New("invalid task: dependencies must be an array")
	}
	return nil
}

// taskUpdate is what tracker_update_task changes of a task; nil leaves a
// field as it is.
type taskUpdate struct {
	Title, Description, Status *string
	Dependencies               []string // nil: unchanged
}

// trackerStore is one session's tracker directory.
type trackerStore struct{ dir string }

// maxTaskFile bounds a task file read: a task is a few hundred bytes.
const maxTaskFile = 1 << 20

// newTaskID is 0.61's generateId: 3 random bytes in hex.
func newTaskID() (string, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making a task id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// create makes a task of t (its id is made here) and saves it; its
// parent must exist.
func (s trackerStore) create(t trackerTask) (trackerTask, error) {
	id, err := newTaskID()
	if err != nil {
		return trackerTask{}, err
	}
	t.ID = id
	if t.Dependencies == nil {
		t.Dependencies = []string{}
	}
	if t.ParentID != "" {
		if _, found, err := s.get(t.ParentID); err != nil {
			return trackerTask{}, err
		} else if !found {
			return trackerTask{}, fmt.Errorf("Parent task with ID %s not found.", t.ParentID)
		}
	}
	if err := t.validate(); err != nil {
		return trackerTask{}, err
	}
	return t, s.save(t)
}

// get reads task id; found is false when there is no such task. An id
// that is no file name in the directory (a path) names no task.
func (s trackerStore) get(id string) (t trackerTask, found bool, err error) {
	if id == "" || id != filepath.Base(id) || id == "." || id == ".." {
		return trackerTask{}, false, nil
	}
	t, err = s.read(id + ".json")
	if errors.Is(err, fs.ErrNotExist) {
		return trackerTask{}, false, nil
	}
	return t, err == nil, err
}

// read reads and checks the task file name.
func (s trackerStore) read(name string) (trackerTask, error) {
	data, err := safefile.Read(filepath.Join(s.dir, name), maxTaskFile)
	if errors.Is(err, fs.ErrNotExist) {
		return trackerTask{}, err
	}
	var t trackerTask
	if err == nil {
		err = json.Unmarshal(data, &t)
	}
	if err == nil {
		err = t.validate()
	}
	if err != nil {
		// 0.61's words, with why.
		return trackerTask{}, fmt.Errorf("Task tracker encountered an issue reading %s. The data might be corrupted: %w", name, err)
	}
	return t, nil
}

// list reads every task, by file name.
func (s trackerStore) list() ([]trackerTask, error) {
	entries, err := safefile.ReadDir(s.dir, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the tasks in %s: %w", s.dir, err)
	}
	var tasks []trackerTask
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		t, err := s.read(e.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since the listing
		}
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// update applies u to task id and saves it, as 0.61's updateTask: its
// parent must exist, it closes only once its dependencies are closed,
// and new dependencies may not make a cycle.
func (s trackerStore) update(id string, u taskUpdate) (trackerTask, error) {
	t, found, err := s.get(id)
	if err != nil {
		return trackerTask{}, err
	}
	if !found {
		return trackerTask{}, fmt.Errorf("Task with ID %s not found.", id)
	}
	wasClosed := t.Status == taskClosed
	apply(&t, u)
	if t.ParentID != "" {
		if _, found, err := s.get(t.ParentID); err != nil {
			return trackerTask{}, err
		} else if !found {
			return trackerTask{}, fmt.Errorf("Parent task with ID %s not found.", t.ParentID)
		}
	}
	if u.Status != nil && *u.Status == taskClosed && !wasClosed {
		if err := s.canClose(t); err != nil {
			return trackerTask{}, err
		}
	}
	if u.Dependencies != nil {
		if err := s.noCycle(t); err != nil {
			return trackerTask{}, err
		}
	}
	if err := t.validate(); err != nil {
		return trackerTask{}, err
	}
	return t, s.save(t)
}

func apply(t *trackerTask, u taskUpdate) {
	if u.Title != nil {
		t.Title = *u.Title
	}
	if u.Description != nil {
		t.Description = *u.Description
	}
	if u.Status != nil {
		t.Status = *u.Status
	}
	if u.Dependencies != nil {
		t.Dependencies = u.Dependencies
	}
}

// canClose is 0.61's validateCanClose: every dependency is closed.
func (s trackerStore) canClose(t trackerTask) error {
	for _, depID := range t.Dependencies {
		dep, found, err := s.get(depID)
		switch {
		case err != nil:
			return err
		case !found:
			return fmt.Errorf("Dependency %s not found for task %s.", depID, t.ID)
		case dep.Status != taskClosed:
			return fmt.Errorf("Cannot close task %s because dependency %s is still %s.", t.ID, depID, dep.Status)
		}
	}
	return nil
}

// noCycle is 0.61's validateNoCircularDependencies, with t as it is to
// be saved.
func (s trackerStore) noCycle(t trackerTask) error {
	known := map[string]trackerTask{t.ID: t}
	visited, onPath := map[string]bool{}, map[string]bool{}
	var visit func(id string) error
	visit = func(id string) error {
		if onPath[id] {
			return fmt.Errorf("Circular dependency detected involving task %s.", id)
		}
		if visited[id] {
			return nil
		}
		visited[id], onPath[id] = true, true
		task, ok := known[id]
		if !ok {
			found, exists, err := s.get(id)
			if err != nil {
				return err
			}
			if !exists {
				return fmt.Errorf("Dependency %s not found.", id)
			}
			task, known[id] = found, found
		}
		for _, dep := range task.Dependencies {
			if err := visit(dep); err != nil {
				return err
			}
		}
		delete(onPath, id)
		return nil
	}
	return visit(t.ID)
}

// save writes t as 0.61 does: JSON.stringify(task, null, 2), no
// newline after it.
func (s trackerStore) save(t trackerTask) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("making the tracker directory %s: %w", s.dir, err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as JavaScript writes <, > and &
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return fmt.Errorf("encoding task %s: %w", t.ID, err)
	}
	if err := safefile.Write(filepath.Join(s.dir, t.ID+".json"), bytes.TrimSuffix(b.Bytes(), []byte("\n"))); err != nil {
		return fmt.Errorf("saving task %s: %w", t.ID, err)
	}
	return nil
}
