package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// TaskOutput is the report complete_task takes: its parameter's name,
// description and JSON schema, and Format, which makes the text the
// calling agent reads of it (nil: the report itself when a string, else
// its JSON indented by two spaces).
type TaskOutput struct {
	Name        string
	Description string
	Schema      json.RawMessage
	Format      func(report any) string
}

// CompleteTask is one subagent run's complete_task: it keeps the report
// its first successful call handed in.
type CompleteTask struct {
	out    *TaskOutput // nil: 0.61's default, one string "result"
	decl   *genai.FunctionDeclaration
	schema *jsonschema.Resolved // out's, to check reports against

	mu        sync.Mutex
	done      bool
	submitted string
}

// NewCompleteTask is complete_task for a run whose report is out (nil:
// one string "result"). A schema that does not compile is an error.
func NewCompleteTask(out *TaskOutput) (*CompleteTask, error) {
	t := &CompleteTask{out: out}
	if out == nil {
		t.decl = declare[completeTaskParams](CompleteTaskName, "Call this tool to submit your final findings and complete the task. This is the ONLY way to finish.")
		return t, nil
	}
	var s jsonschema.Schema
	if len(out.Schema) > 0 {
		if err := json.Unmarshal(out.Schema, &s); err != nil {
			return nil, fmt.Errorf("reading the output schema of %s: %w", out.Name, err)
		}
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("compiling the output schema of %s: %w", out.Name, err)
	}
	t.schema = resolved
	var prop map[string]any
	if len(out.Schema) > 0 {
		if err := json.Unmarshal(out.Schema, &prop); err != nil {
			return nil, fmt.Errorf("reading the output schema of %s: %w", out.Name, err)
		}
	}
	if prop == nil {
		prop = map[string]any{}
	}
	// 0.61 drops the converted schema's $schema and definitions.
	delete(prop, "$schema")
	delete(prop, "definitions")
	if _, ok := prop["description"]; !ok && out.Description != "" {
		prop["description"] = out.Description
	}
	t.decl = &genai.FunctionDeclaration{
		Name:        CompleteTaskName,
		Description: "Call this tool to submit your final answer and complete the task. This is the ONLY way to finish.",
		ParametersJsonSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{out.Name: prop},
			"required":   []string{out.Name},
		},
	}
	return t, nil
}

type completeTaskParams struct {
	Result any `json:"result" jsonschema:"Your final results or findings to return to the orchestrator. Ensure this is comprehensive and follows any formatting requested in your instructions."`
}

func (completeTaskParams) extendSchema(s *jsonschema.Schema) {
	s.Properties["result"].Type = "string"
}

func (t *CompleteTask) Name() string                            { return CompleteTaskName }
func (t *CompleteTask) Declaration() *genai.FunctionDeclaration { return t.decl }

// Annotations: it changes nothing; plan mode lets a subagent finish.
func (t *CompleteTask) Annotations() Annotations {
	return Annotations{Kind: dialog.KindOther, ReadOnly: true}
}

// Build checks the report as 0.61's validateToolParamValues does, in its
// words.
func (t *CompleteTask) Build(raw map[string]any) (Call, error) {
	if t.out == nil {
		result := raw["result"]
		if s, ok := result.(string); result == nil || ok && strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf(`Missing required "result" argument. You must provide your findings when calling complete_task.`)
		}
		return completeTaskCall{t: t, report: result}, nil
	}
	report, ok := raw[t.out.Name]
	if !ok {
		return nil, fmt.Errorf("Missing required argument '%s' for completion.", t.out.Name)
	}
	if err := t.schema.Validate(report); err != nil {
		return nil, fmt.Errorf("Output validation failed: %v", err)
	}
	return completeTaskCall{t: t, report: report}, nil
}

// Submitted is the report as the calling agent reads it, once a call
// handed it in.
func (t *CompleteTask) Submitted() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.submitted, t.done
}

// format is 0.61's processOutput, or its default.
func (t *CompleteTask) format(report any) string {
	if t.out != nil && t.out.Format != nil {
		return t.out.Format(report)
	}
	if s, ok := report.(string); ok {
		return s
	}
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return fmt.Sprint(report)
	}
	return string(b)
}

type completeTaskCall struct {
	t      *CompleteTask
	report any
}

func (completeTaskCall) Title() string               { return "Completing task and submitting results." }
func (completeTaskCall) Confirmation() *Confirmation { return nil }

// Execute keeps the first report handed in, as 0.61's executor takes the
// first completing call of a run.
func (c completeTaskCall) Execute(context.Context, CallInfo) (Result, error) {
	text := c.t.format(c.report)
	c.t.mu.Lock()
	if !c.t.done {
		c.t.done, c.t.submitted = true, text
	}
	c.t.mu.Unlock()
	msg := "Result submitted and task completed."
	if c.t.out != nil {
		msg = "Output submitted and task completed."
	}
	return Result{Output: msg, Display: msg}, nil
}
