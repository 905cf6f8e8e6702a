package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// TodoStatuses are the states a to-do may be in, in Gemini CLI's words.
var todoStatuses = []string{"pending", "in_progress", "completed", "cancelled", "blocked"}

// Todo is one item of the model's to-do list.
type Todo struct {
	Description string `json:"description" jsonschema:"The description of the task."`
	Status      string `json:"status" jsonschema:"The current status of the task."`
}

// writeTodosParams are write_todos' parameters, as Gemini CLI declares
// them, word for word.
type writeTodosParams struct {
	Todos []Todo `json:"todos" jsonschema:"The complete list of todo items. This will replace the existing list."`
}

// extendSchema: the statuses, and no other properties, as Gemini CLI
// declares them.
func (writeTodosParams) extendSchema(s *jsonschema.Schema) {
	item := s.Properties["todos"].Items
	item.Description = "A single todo item."
	for _, status := range todoStatuses {
		item.Properties["status"].Enum = append(item.Properties["status"].Enum, status)
	}
	s.AdditionalProperties, item.AdditionalProperties = closed(), closed()
}

// writeTodos is write_todos, which keeps nothing: the list is the
// call's arguments, which front ends show (ACP as the session's plan),
// and the model's history. Its declaration is Gemini CLI's, word for
// word: its models were tuned on this text. Its annotations say only its
// kind: it changes only the session's list, but Gemini CLI 0.61 does not
// count it read-only, so plan mode refuses it.
func writeTodos() *Defined[writeTodosParams] {
	return Define(Spec{
		Name:        WriteTodosName,
		Description: writeTodosDescription,
		Annotations: Annotations{Kind: dialog.KindThink},
		Aliases:     []string{"WriteTodosTool"},
	}, func(p writeTodosParams) (Call, error) { return writeTodosCall{p.Todos}, nil })
}

// ParseTodos reads write_todos' arguments as its calls are built: with
// the messages of Gemini CLI's own checks (validateToolParamValues), made
// first, as gemini-ls always made them, then against its schema.
func ParseTodos(args map[string]any) ([]Todo, error) {
	call, err := writeTodos().Build(args)
	if err != nil {
		return nil, err
	}
	return call.(writeTodosCall).todos, nil
}

// precheck is Gemini CLI's validateToolParamValues of write_todos.
func (writeTodosParams) precheck(args map[string]any) error {
	raw, ok := args["todos"].([]any)
	if !ok {
		return errors.New("`todos` parameter must be an array")
	}
	inProgress := 0
	for _, item := range raw {
		obj, ok := item.(map[string]any)
		if !ok {
			return errors.New("Each todo item must be an object")
		}
		if d, ok := obj["description"].(string); !ok || strings.TrimSpace(d) == "" {
			return errors.New("Each todo must have a non-empty description string")
		}
		status, _ := obj["status"].(string)
		if !slices.Contains(todoStatuses, status) {
			return fmt.Errorf("Each todo must have a valid status (%s)", strings.Join(todoStatuses, ", "))
		}
		if status == "in_progress" {
			inProgress++
		}
	}
	if inProgress > 1 {
		return errors.New(`Invalid parameters: Only one task can be "in_progress" at a time.`)
	}
	return nil
}

type writeTodosCall struct{ todos []Todo }

func (c writeTodosCall) Title() string {
	if len(c.todos) == 0 {
		return "Cleared todo list"
	}
	return fmt.Sprintf("Set %d todo(s)", len(c.todos))
}

func (writeTodosCall) Confirmation() *Confirmation { return nil }

// Present gives the list, for the front ends to show as the plan.
func (c writeTodosCall) Present(d *dialog.ToolCall) {
	d.Todos = make([]dialog.Todo, 0, len(c.todos))
	for _, t := range c.todos {
		d.Todos = append(d.Todos, dialog.Todo{Description: t.Description, Status: t.Status})
	}
}

func (c writeTodosCall) Execute(context.Context, CallInfo) (Result, error) {
	if len(c.todos) == 0 {
		return Result{Output: "Successfully cleared the todo list.", Display: "Cleared the todo list."}, nil
	}
	var list strings.Builder
	var display strings.Builder
	for i, t := range c.todos {
		fmt.Fprintf(&list, "\n%d. [%s] %s", i+1, t.Status, t.Description)
		fmt.Fprintf(&display, "- [%s] %s\n", map[bool]string{true: "x", false: " "}[t.Status == "completed"], t.Description)
	}
	return Result{
		Output:  "Successfully updated the todo list. The current list is now:" + list.String(),
		Display: display.String(),
	}, nil
}

const writeTodosDescription = `This tool can help you list out the current subtasks that are required to be completed for a given user request. The list of subtasks helps you keep track of the current task, organize complex queries and help ensure that you don't miss any steps. With this list, the user can also see the current progress you are making in executing a given task.

Depending on the task complexity, you should first divide a given task into subtasks and then use this tool to list out the subtasks that are required to be completed for a given user request.
Each of the subtasks should be clear and distinct. 

Use this tool for complex queries that require multiple steps. If you find that the request is actually complex after you have started executing the user task, create a todo list and use it. If execution of the user task requires multiple steps, planning and generally is higher complexity than a simple Q&A, use this tool.

DO NOT use this tool for simple tasks that can be completed in less than 2 steps. If the user query is simple and straightforward, do not use the tool. If you can respond with an answer in a single turn then this tool is not required.

## Task state definitions

- pending: Work has not begun on a given subtask.
- in_progress: Marked just prior to beginning work on a given subtask. You should only have one subtask as in_progress at a time.
- completed: Subtask was successfully completed with no errors or issues. If the subtask required more steps to complete, update the todo list with the subtasks. All steps should be identified as completed only when they are completed.
- cancelled: As you update the todo list, some tasks are not required anymore due to the dynamic nature of the task. In this case, mark the subtasks as cancelled.
- blocked: Subtask is blocked and cannot be completed at this time.


## Methodology for using this tool
1. Use this todo list as soon as you receive a user request based on the complexity of the task.
2. Keep track of every subtask that you update the list with.
3. Mark a subtask as in_progress before you begin working on it. You should only have one subtask as in_progress at a time.
4. Update the subtask list as you proceed in executing the task. The subtask list is not static and should reflect your progress and current plans, which may evolve as you acquire new information.
5. Mark a subtask as completed when you have completed it.
6. Mark a subtask as cancelled if the subtask is no longer needed.
7. You must update the todo list as soon as you start, stop or cancel a subtask. Don't batch or wait to update the todo list.


## Examples of When to Use the Todo List

<example>
User request: Create a website with a React for creating fancy logos using gemini-2.5-flash-image

ToDo list created by the agent:
1. Initialize a new React project environment (e.g., using Vite).
2. Design and build the core UI components: a text input (prompt field) for the logo description, selection controls for style parameters (if the API supports them), and an image preview area.
3. Implement state management (e.g., React Context or Zustand) to manage the user's input prompt, the API loading status (pending, success, error), and the resulting image data.
4. Create an API service module within the React app (using "fetch" or "axios") to securely format and send the prompt data via an HTTP POST request to the specified "gemini-2.5-flash-image" (Gemini model) endpoint.
5. Implement asynchronous logic to handle the API call: show a loading indicator while the request is pending, retrieve the generated image (e.g., as a URL or base64 string) upon success, and display any errors.
6. Display the returned "fancy logo" from the API response in the preview area component.
7. Add functionality (e.g., a "Download" button) to allow the user to save the generated image file.
8. Deploy the application to a web server or hosting platform.

<reasoning>
The agent used the todo list to break the task into distinct, manageable steps:
1. Building an entire interactive web application from scratch is a highly complex, multi-stage process involving setup, UI development, logic integration, and deployment.
2. The agent inferred the core functionality required for a "logo creator," such as UI controls for customization (Task 3) and an export feature (Task 7), which must be tracked as distinct goals.
3. The agent rightly inferred the requirement of an API service model for interacting with the image model endpoint.
</reasoning>
</example>


## Examples of When NOT to Use the Todo List

<example>
User request: Ensure that the test <test file> passes.

Agent:
<Goes into a loop of running the test, identifying errors, and updating the code until the test passes.>

<reasoning>
The agent did not use the todo list because this task could be completed by a tight loop of execute test->edit->execute test.
</reasoning>
</example>`
