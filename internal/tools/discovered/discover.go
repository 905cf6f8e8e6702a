package discovered

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"
	"mvdan.cc/sh/v3/shell"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/shellparse"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// NamePrefix starts every discovered tool's name, as in Gemini CLI.
const NamePrefix = "discovered_tool_"

const (
	// DefaultDiscoveryTimeout bounds the discovery command when
	// Config.DiscoveryTimeout is zero. The agent waits for it before it
	// starts (an LSP client, for the initialize response), so it is short.
	DefaultDiscoveryTimeout = 10 * time.Second
	// DefaultCallTimeout bounds one call when Config.CallTimeout is zero.
	DefaultCallTimeout = 5 * time.Minute
	// maxDiscoveryOutput is Gemini CLI's limit on the discovery command's output.
	maxDiscoveryOutput = 10 << 20
	// waitDelay bounds how long output is awaited after a command exits,
	// when a background process keeps its output open.
	waitDelay = 500 * time.Millisecond
)

// Config is the "tools" settings and where the commands run.
type Config struct {
	DiscoveryCommand string
	CallCommand      string
	// Dir is the workspace root, where both commands run.
	Dir string
	// CallTimeout bounds one call; zero means DefaultCallTimeout.
	CallTimeout time.Duration
	// DiscoveryTimeout bounds the discovery command; zero means
	// DefaultDiscoveryTimeout.
	DiscoveryTimeout time.Duration
	// Door starts both commands: the session's. The calls run in its
	// sandbox; the discovery command, the user's, only where
	// tools.sandboxHooksAndMCPServers asks.
	Door *spawn.Door
	// Redaction keeps secrets out of the calls' environment.
	Redaction envredact.Policy
}

// Discover runs the discovery command and returns its tools; none when no
// discovery command is set. The error, when not nil, says what went wrong
// in words for the user: the command failed (no tools then), or some
// declarations were unusable (the rest are returned).
func Discover(ctx context.Context, cfg Config) ([]tools.Tool, error) {
	if strings.TrimSpace(cfg.DiscoveryCommand) == "" {
		return nil, nil
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.DiscoveryTimeout <= 0 {
		cfg.DiscoveryTimeout = DefaultDiscoveryTimeout
	}
	fail := func(err error) ([]tools.Tool, error) {
		return nil, fmt.Errorf("tool discovery command %q: %w", cfg.DiscoveryCommand, err)
	}
	if strings.TrimSpace(cfg.CallCommand) == "" {
		return fail(errors.New("tools.callCommand is not set, so discovered tools could not run; no tools were added"))
	}
	callArgv, err := words(cfg.CallCommand)
	if err != nil {
		return fail(fmt.Errorf("tools.callCommand: %w", err))
	}
	stdout, err := runDiscovery(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	decls, err := parseDeclarations(stdout)
	if err != nil {
		return fail(err)
	}
	var (
		found    []tools.Tool
		index    = map[string]int{}
		problems []error
	)
	for _, d := range decls {
		t, err := newTool(cfg, callArgv, d)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if i, dup := index[t.Name()]; dup {
			// Gemini CLI's registry keeps the last one too.
			problems = append(problems, fmt.Errorf("tool %q is declared more than once; the last declaration is used", d.Name))
			found[i] = t
			continue
		}
		index[t.Name()] = len(found)
		found = append(found, t)
	}
	if len(problems) > 0 {
		return found, fmt.Errorf("tool discovery command %q: %w", cfg.DiscoveryCommand, errors.Join(problems...))
	}
	return found, nil
}

// words splits a command line as the shell would, without running
// anything: quotes group, $VAR expands from the environment, and command
// substitution is refused.
func words(command string) ([]string, error) {
	if err := shellparse.CheckBounds(command); err != nil {
		return nil, err // the parser would recurse past the stack
	}
	argv, err := shell.Fields(command, nil)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("the command is empty")
	}
	return argv, nil
}

// runDiscovery runs the discovery command, bounded in time and output,
// and returns its stdout.
func runDiscovery(ctx context.Context, cfg Config) ([]byte, error) {
	argv, err := words(cfg.DiscoveryCommand)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.DiscoveryTimeout)
	defer cancel()
	stdout := &limitedBuffer{max: maxDiscoveryOutput}
	stderr := &limitedBuffer{max: 4 << 10}
	cmd := cfg.Door.Command(ctx, spawn.Configured{Setting: "tools.discoveryCommand", Kind: spawn.ToolDiscovery}, argv[0], argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	err = cmd.Wait()
	if err != nil || ctx.Err() != nil {
		// A command that failed or was stopped leaves nothing running.
		// Its group is gone or ours to kill: an error here has no remedy.
		_ = cmd.Kill()
	}
	var exitErr *spawn.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("it did not finish within %s and was killed", cfg.DiscoveryTimeout)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, spawn.ErrWaitDelay):
		return nil, errors.New("it exited leaving a process that held its output open, which was killed")
	case stdout.dropped > 0:
		return nil, fmt.Errorf("its output exceeded the size limit of %d bytes", maxDiscoveryOutput)
	case errors.As(err, &exitErr):
		code, signal := tools.ExitStatus(exitErr.ProcessState)
		msg := "it failed with exit code " + code
		if signal != "(none)" {
			msg = "it was killed by " + signal
		}
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += ": " + s
		}
		return nil, errors.New(msg)
	case err != nil:
		return nil, err
	}
	return stdout.buf.Bytes(), nil
}

// declaration is one FunctionDeclaration as a discovery command prints it.
type declaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
	Parameters           json.RawMessage `json:"parameters"`
}

// parseDeclarations reads what Gemini CLI reads: a JSON array whose items
// are declarations (with a name) or tools wrapping function_declarations /
// functionDeclarations. A single such object is taken as a one-item array.
func parseDeclarations(out []byte) ([]declaration, error) {
	out = bytes.TrimSpace(out)
	var items []json.RawMessage
	if err := json.Unmarshal(out, &items); err != nil {
		var one json.RawMessage
		if json.Unmarshal(out, &one) != nil || !bytes.HasPrefix(out, []byte("{")) {
			return nil, errors.New("it did not print a JSON array of tools")
		}
		items = []json.RawMessage{one}
	}
	var decls []declaration
	for _, item := range items {
		var wrapper struct {
			Snake []declaration `json:"function_declarations"`
			Camel []declaration `json:"functionDeclarations"`
			declaration
		}
		if json.Unmarshal(item, &wrapper) != nil {
			continue // not an object: Gemini CLI skips it too
		}
		switch {
		case wrapper.Snake != nil:
			decls = append(decls, wrapper.Snake...)
		case wrapper.Camel != nil:
			decls = append(decls, wrapper.Camel...)
		default: // reported when it has no name
			decls = append(decls, wrapper.declaration)
		}
	}
	return decls, nil
}

func newTool(cfg Config, callArgv []string, d declaration) (*tool, error) {
	if d.Name == "" {
		return nil, errors.New("a tool without a name was left out")
	}
	name := NamePrefix + d.Name
	if !tools.ValidFunctionName(name) { // one the API refuses would fail every request
		return nil, fmt.Errorf("tool %q was left out: the model accepts names of letters, digits, _ . : and - up to 64 characters (with the %q prefix)", d.Name, NamePrefix)
	}
	decl := &genai.FunctionDeclaration{Name: name, Description: describe(cfg, d)}
	var schema map[string]any // for checking the model's arguments
	switch {
	case isObject(d.ParametersJSONSchema):
		json.Unmarshal(d.ParametersJSONSchema, &schema)
		// As Gemini CLI 0.61 declares it; the model's wait_for_previous
		// reaches the command with the rest, as 0.61 passes it on.
		if s, ok := tools.AddWaitForPrevious(schema).(map[string]any); ok {
			schema = s
		}
		decl.ParametersJsonSchema = schema
	case isObject(d.Parameters):
		var s genai.Schema
		if err := json.Unmarshal(d.Parameters, &s); err != nil {
			return nil, fmt.Errorf("tool %q was left out: its parameters are not a schema: %v", d.Name, err)
		}
		json.Unmarshal(d.Parameters, &schema)
		decl.Parameters = &s
	}
	return &tool{decl: decl, original: d.Name, callArgv: callArgv, schema: schema, cfg: cfg}, nil
}

func isObject(raw json.RawMessage) bool {
	return bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
}

// describe is the declaration's description followed by Gemini CLI's note
// on how the tool runs and fails.
func describe(cfg Config, d declaration) string {
	return d.Description + fmt.Sprintf(`

This tool was discovered from the project by executing the command `+"`%s`"+` on project root.
When called, this tool will execute the command `+"`%s %s`"+` on project root.
Tool discovery and call commands can be configured in project or user settings.

When called, the tool call command is executed as a subprocess.
On success, tool output is returned as a json string.
Otherwise, the following information is returned:

Stdout: Output on stdout stream. Can be `+"`(empty)`"+` or partial.
Stderr: Output on stderr stream. Can be `+"`(empty)`"+` or partial.
Error: Error or `+"`(none)`"+` if no error was reported for the subprocess.
Exit Code: Exit code or `+"`(none)`"+` if terminated by signal.
Signal: Signal number or `+"`(none)`"+` if no signal was received.
`, cfg.DiscoveryCommand, cfg.CallCommand, d.Name)
}

// limitedBuffer keeps the first max bytes written to it and counts the rest.
type limitedBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	room := b.max - b.buf.Len()
	if room < len(p) {
		b.dropped += int64(len(p) - max(room, 0))
		p = p[:max(room, 0)]
	}
	b.buf.Write(p)
	return n, nil
}

func (b *limitedBuffer) String() string { return strings.ToValidUTF8(b.buf.String(), "\uFFFD") }

// text is what was kept, followed by a note when some was cut.
func (b *limitedBuffer) text() string {
	s := b.String()
	if b.dropped > 0 {
		s += fmt.Sprintf("\n[Output truncated: showing the first %d of %d bytes]", b.buf.Len(), int64(b.buf.Len())+b.dropped)
	}
	return s
}
