package hooks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// DefaultTimeout is how long a hook may run unless it says otherwise, as
// in Gemini CLI.
const DefaultTimeout = 60 * time.Second

// Source is one set of hook definitions and where it came from.
type Source struct {
	// Name says where the hooks came from, for the user: "settings", or an
	// extension's name.
	Name  string
	Hooks settings.Hooks
}

// Config configures a Runner.
type Config struct {
	// Sources are the hooks, in order: the merged settings, then the
	// extensions'.
	Sources []Source
	// Disabled are hooks, by name (else command), that do not run
	// (hooksConfig.disabled); SetDisabled changes them.
	Disabled []string
	// ProjectDir is the project root: the hooks' working directory,
	// cwd and GEMINI_PROJECT_DIR.
	ProjectDir string
	// Environ is the environment hooks run with, before the GEMINI_
	// variables; the process's when nil.
	Environ []string
	// Logger records every hook run; none when nil.
	Logger *zap.Logger
	// Now is the clock of the input's timestamp; time.Now when nil.
	Now func() time.Time
	// Door starts the hooks' commands: the session's, which runs them in
	// its sandbox where tools.sandboxHooksAndMCPServers asks; nil: no
	// sandbox.
	Door *spawn.Door
	// Redaction keeps secrets out of Environ, as 0.61 does for hooks.
	Redaction envredact.Policy
	// Shell runs the hooks' commands; the zero Shell is osshell.Local().
	Shell osshell.Shell
	// Telemetry hears of every hook that ran (gemini_cli.hook_call);
	// none when nil.
	Telemetry telemetry.Recorder
}

// Runner runs the hooks of an event; it implements agent.Hooks.
type Runner struct {
	cfg    Config
	byName map[string][]entry // by event, disabled ones too (/hooks lists them)

	mu       sync.RWMutex
	disabled map[string]bool // by entry.name
}

// entry is one hook as it runs for an event.
type entry struct {
	source     string
	matcher    string
	sequential bool
	hook       settings.HookCommand
}

// name identifies a hook to the user and to hooksConfig.disabled.
func (e entry) name() string {
	if e.hook.Name != "" {
		return e.hook.Name
	}
	return e.hook.Command
}

// timeout is the hook's own timeout (settings hold milliseconds); 0
// when it sets none.
func (e entry) timeout() time.Duration {
	return time.Duration(e.hook.Timeout * float64(time.Millisecond))
}

// New returns a Runner of cfg's hooks, and the problems of the hooks it
// left out (an unknown event, a hook without a command or of a type other
// than "command"), for the user.
func New(cfg Config) (*Runner, []error) {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Telemetry == nil {
		cfg.Telemetry = telemetry.Nop{}
	}
	r := &Runner{cfg: cfg, byName: map[string][]entry{}}
	r.SetDisabled(cfg.Disabled)
	var problems []error
	for _, src := range cfg.Sources {
		for _, event := range sortedEvents(src.Hooks) {
			if !slices.Contains(settings.HookEvents, event) {
				problems = append(problems, fmt.Errorf("hooks from %s: %q is not a hook event (%s); its hooks do not run", src.Name, event, strings.Join(settings.HookEvents, ", ")))
				continue
			}
			for _, def := range src.Hooks[event] {
				for _, h := range def.Hooks {
					if err := check(h); err != nil {
						problems = append(problems, fmt.Errorf("hooks from %s: a %s hook %w; it does not run", src.Name, event, err))
						continue
					}
					e := entry{source: src.Name, matcher: strings.TrimSpace(def.Matcher), sequential: def.Sequential, hook: h}
					r.byName[event] = append(r.byName[event], e)
				}
			}
		}
	}
	return r, problems
}

func check(h settings.HookCommand) error {
	switch {
	case h.Type != "command":
		return fmt.Errorf("has type %q, and only \"command\" hooks run", h.Type)
	case strings.TrimSpace(h.Command) == "":
		return fmt.Errorf("has no command")
	case h.Timeout < 0:
		return fmt.Errorf("%q has a negative timeout", h.Command)
	}
	return nil
}

// sortedEvents are the events of hooks in Gemini CLI's order, then any
// unknown ones by name, so that problems are reported the same each time.
func sortedEvents(hooks settings.Hooks) []string {
	var out []string
	for _, event := range settings.HookEvents {
		if _, ok := hooks[event]; ok {
			out = append(out, event)
		}
	}
	var unknown []string
	for event := range hooks {
		if !slices.Contains(settings.HookEvents, event) {
			unknown = append(unknown, event)
		}
	}
	slices.Sort(unknown)
	return append(out, unknown...)
}

// SetDisabled has the hooks named in names (by name, else command) not
// run, and every other run, from the next event on: hooksConfig.disabled
// as the settings say now (/hooks enable and disable).
func (r *Runner) SetDisabled(names []string) {
	disabled := make(map[string]bool, len(names))
	for _, n := range names {
		disabled[n] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.disabled = disabled
}

func (r *Runner) enabled(e entry) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return !r.disabled[e.name()]
}

// Handles reports whether any hook runs for event.
func (r *Runner) Handles(event string) bool {
	return slices.ContainsFunc(r.byName[event], r.enabled)
}

// Empty reports whether no hook is configured at all, enabled or not.
func (r *Runner) Empty() bool { return len(r.byName) == 0 }

// Hook is a configured hook as the user sees it (/hooks panel).
type Hook struct {
	Event string
	// Source is where it came from: "settings", or an extension's name.
	Source string
	// Name identifies it to the user and to hooksConfig.disabled: its
	// name, else its command.
	Name                          string
	Command, Description, Matcher string
	Sequential                    bool
	// Timeout is what the hook set; 0 when it runs under DefaultTimeout.
	Timeout time.Duration
	Enabled bool
}

// Hooks are the hooks configured, enabled or not, by event in Gemini
// CLI's order of events, each event's in the order they were configured.
func (r *Runner) Hooks() []Hook {
	var out []Hook
	for _, event := range settings.HookEvents {
		for _, e := range r.byName[event] {
			out = append(out, Hook{
				Event: event, Source: e.source, Name: e.name(),
				Command: e.hook.Command, Description: e.hook.Description, Matcher: e.matcher,
				Sequential: e.sequential, Timeout: e.timeout(),
				Enabled: r.enabled(e),
			})
		}
	}
	return out
}

// plan is the enabled hooks that run for ev: those whose matcher
// matches, each (by name and command) once; sequential when any of their
// definitions asks for it, as in Gemini CLI.
func (r *Runner) plan(ev agent.HookEvent) (hooks []entry, sequential bool) {
	seen := map[string]bool{}
	for _, e := range r.byName[ev.Name] {
		if !matches(ev.Name, e.matcher, ev.Target) || !r.enabled(e) {
			continue
		}
		key := e.hook.Name + ":" + e.hook.Command
		if seen[key] {
			continue
		}
		seen[key] = true
		hooks = append(hooks, e)
		sequential = sequential || e.sequential
	}
	return hooks, sequential
}

// matches reports whether matcher selects target, as Gemini CLI's planner
// does: "" and "*" match all; for the tool events a regular expression
// found anywhere in the tool's name (or, when it is none, the exact
// name); for the others the exact trigger.
func matches(event, matcher, target string) bool {
	if matcher == "" || matcher == "*" || target == "" {
		return true
	}
	if event != agent.HookBeforeTool && event != agent.HookAfterTool {
		return matcher == target
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return matcher == target
	}
	return re.MatchString(target)
}

// Fire runs the hooks of ev and merges what they decided.
func (r *Runner) Fire(ctx context.Context, ev agent.HookEvent) agent.HookOutcome {
	hooks, sequential := r.plan(ev)
	if len(hooks) == 0 {
		return agent.HookOutcome{}
	}
	input := r.input(ev)
	results := make([]result, len(hooks))
	if sequential {
		for i, e := range hooks {
			results[i] = r.run(ctx, e, ev, input)
			input = chain(ev.Name, input, results[i])
		}
	} else {
		var wg sync.WaitGroup
		for i, e := range hooks {
			wg.Go(func() { results[i] = r.run(ctx, e, ev, input) })
		}
		wg.Wait()
	}
	return merge(ev.Name, results)
}

// input is the JSON object a hook of ev reads on stdin: Gemini CLI's
// base fields, then the event's own.
func (r *Runner) input(ev agent.HookEvent) map[string]any {
	in := map[string]any{
		"session_id":      ev.SessionID,
		"transcript_path": ev.TranscriptPath,
		"cwd":             r.cfg.ProjectDir,
		"hook_event_name": ev.Name,
		"timestamp":       r.cfg.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
	}
	for k, v := range ev.Input {
		in[k] = v
	}
	return in
}

// chain is the input of the next hook of a sequential event: the tool
// arguments, the model request or the prompt as the hook before it
// changed them.
func chain(event string, input map[string]any, res result) map[string]any {
	if res.output == nil {
		return input
	}
	next := map[string]any{}
	for k, v := range input {
		next[k] = v
	}
	switch event {
	case agent.HookBeforeTool:
		if changed := res.output.toolInput(); changed != nil {
			args := map[string]any{}
			if old, ok := input["tool_input"].(map[string]any); ok {
				for k, v := range old {
					args[k] = v
				}
			}
			for k, v := range changed {
				args[k] = v
			}
			next["tool_input"] = args
		}
	case agent.HookBeforeModel:
		if changes := res.output.llmRequest(); changes != nil {
			old, _ := input["llm_request"].(map[string]any)
			next["llm_request"] = mergedRequest(old, changes)
		}
	case agent.HookBeforeAgent:
		if add := res.output.additionalContext(); add != "" {
			prompt, _ := input["prompt"].(string)
			next["prompt"] = prompt + "\n\n" + add
		}
	}
	return next
}
