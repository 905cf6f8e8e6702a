package discovered

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// maxCallOutput is how much of a call's stdout, and of its stderr, is kept
// for the model.
const maxCallOutput = 1 << 20

type tool struct {
	decl     *genai.FunctionDeclaration
	original string   // the name the project declared, passed to callCommand
	callArgv []string // callCommand, split into words
	schema   map[string]any
	cfg      Config
}

func (t *tool) Name() string                            { return t.decl.Name }
func (t *tool) Declaration() *genai.FunctionDeclaration { return t.decl }

// Annotations: a discovered tool runs the project's command.
func (t *tool) Annotations() tools.Annotations {
	return tools.Annotations{Kind: dialog.KindExecute, RunsCommands: true}
}

func (t *tool) Build(args map[string]any) (tools.Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	if err := checkArgs(t.schema, args); err != nil {
		return nil, err
	}
	input, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encoding the arguments: %w", err)
	}
	return &call{tool: t, input: input}, nil
}

// checkArgs checks what the model most often gets wrong against the
// declared schema: a required argument missing, a top-level argument of
// the wrong JSON type. The command checks the rest.
func checkArgs(schema map[string]any, args map[string]any) error {
	required, _ := schema["required"].([]any)
	for _, r := range required {
		if name, ok := r.(string); ok && args[name] == nil {
			return fmt.Errorf("params must have required property '%s'", name)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for name, arg := range args {
		prop, _ := props[name].(map[string]any)
		want, _ := prop["type"].(string)
		want = strings.ToLower(want) // "parameters" spells types in capitals
		if want == "" || arg == nil || hasType(arg, want) {
			continue
		}
		return fmt.Errorf("params/%s must be %s", name, want)
	}
	return nil
}

func hasType(v any, want string) bool {
	switch v := v.(type) {
	case string:
		return want == "string"
	case bool:
		return want == "boolean"
	case float64:
		return want == "number" || want == "integer" && v == float64(int64(v))
	case []any:
		return want == "array"
	case map[string]any:
		return want == "object"
	}
	return true // a type this check does not know: the command decides
}

type call struct {
	*tool
	input []byte // the arguments as JSON, the command's stdin
}

func (c *call) Title() string { return c.decl.Name + " " + string(c.input) }

// Confirmation always asks (Gemini CLI's policy asks for discovered tools
// in every mode but yolo); Always Allow covers this tool.
func (c *call) Confirmation() *tools.Confirmation {
	return &tools.Confirmation{
		Kind:      dialog.ConfirmExecute,
		Title:     fmt.Sprintf("Allow discovered tool %s?", c.decl.Name),
		Details:   c.commandLine() + "\n" + string(c.input),
		AllowKeys: []string{tools.ToolKey(c.decl.Name)},
	}
}

// callReason is why the door starts a call's command: the model chose
// its arguments, so it runs in the sandbox whenever there is one.
var callReason = spawn.Configured{Setting: "tools.callCommand", Kind: spawn.DiscoveredTool}

func (c *call) commandLine() string { return c.cfg.CallCommand + " " + c.original }

// Execute runs callCommand NAME in the workspace root with the arguments on
// stdin. Its stdout is the result; any error, non-zero exit, signal or
// stderr output is a failure reported as Gemini CLI reports it.
func (c *call) Execute(ctx context.Context, _ tools.CallInfo) (tools.Result, error) {
	runCtx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout)
	defer cancel()
	stdout := &limitedBuffer{max: maxCallOutput}
	stderr := &limitedBuffer{max: maxCallOutput}
	argv := append(slices.Clip(c.callArgv), c.original)
	cmd := c.cfg.Door.Command(runCtx, callReason, argv[0], argv[1:]...)
	cmd.Dir = c.cfg.Dir
	cmd.Env = envredact.Sanitize(os.Environ(), c.cfg.Redaction)
	cmd.Stdin = bytes.NewReader(c.input)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay

	errText, exitCode, signal := "(none)", "(none)", "(none)"
	runErr := cmd.Start()
	if runErr == nil {
		runErr = cmd.Wait()
		exitCode, signal = tools.ExitStatus(cmd.ProcessState)
	}
	if runErr != nil || runCtx.Err() != nil {
		// A call that failed or was stopped leaves nothing running. Its
		// group is gone or ours to kill: an error here has no remedy.
		_ = cmd.Kill()
	}
	var exitErr *spawn.ExitError
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case runCtx.Err() != nil:
		errText = fmt.Sprintf("Command timed out after %s and was killed.", c.cfg.CallTimeout)
	case errors.Is(runErr, spawn.ErrWaitDelay):
		errText = "The command exited leaving a process that held its output open, which was killed."
	case runErr != nil && !errors.As(runErr, &exitErr):
		errText = runErr.Error()
	}
	out, errOut := stdout.text(), stderr.text()
	if errText == "(none)" && exitCode == "0" && signal == "(none)" && errOut == "" {
		return tools.Result{Output: out, Display: fenced(out)}, nil
	}
	lines := []string{
		"Stdout: " + orEmpty(out),
		"Stderr: " + orEmpty(errOut),
		"Error: " + errText,
		"Exit Code: " + exitCode,
		"Signal: " + signal,
	}
	if c.cfg.Door.Confines(callReason) {
		// As for run_shell_command: the refusal may be the sandbox's.
		lines = append(lines, "Sandbox: "+sandbox.Of(c.cfg.Door).Note())
	}
	msg := strings.Join(lines, "\n")
	return tools.Result{Error: msg, Status: dialog.StatusError, Display: msg}, nil
}

func orEmpty(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// fenced is text in a Markdown code block longer than any backtick run in it.
func fenced(text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimRight(text, "\n") + "\n" + fence
}
