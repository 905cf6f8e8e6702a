package spawn

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

// Door starts a session's programs by the session's rules. Its methods
// are safe for concurrent use; a nil *Door has no rules (package doc).
type Door struct {
	rules Rules

	// asking is held while the user is asked, so that one question is
	// put at a time.
	asking sync.Mutex
	mu     sync.Mutex
	// answers are the user's answers about language servers this
	// session, by name: true to start, false not to.
	answers map[string]bool
}

// Rules are what a session's door applies.
type Rules struct {
	// Sandbox confines what runs for the model; nil for none.
	Sandbox Confiner
	// SandboxServers has hooks and stdio MCP servers run in Sandbox too
	// (tools.sandboxHooksAndMCPServers).
	SandboxServers bool
	// Roots are the workspace's roots: a helper found there is refused,
	// a language server found there is not confined. nil: none.
	Roots func() []string
}

// Confiner rewrites a command, not started, to run confined: the
// sandbox (package sandbox).
type Confiner interface {
	// Enabled reports whether it confines anything at all.
	Enabled() bool
	// Confine rewrites c (its Path, Args, Env, ExtraFiles) to run
	// confined.
	Confine(c *Cmd) error
}

// Sandbox is the rules' sandbox: what confines the programs whose reason
// runs sandboxed; nil for none.
func (d *Door) Sandbox() Confiner {
	if d == nil {
		return nil
	}
	return d.rules.Sandbox
}

// NewDoor is a door that applies rules.
func NewDoor(rules Rules) *Door {
	return &Door{rules: rules, answers: make(map[string]bool)}
}

// Question is what the door asks the user before it starts a language
// server that may run the workspace's code.
type Question struct {
	Title   string // "Start typescript-language-server?"
	Details string // what it may run, and that the answer holds for the session
}

// Ask puts a yes-or-no question to the user, through whatever front end
// the call came from; nil where nobody can be asked.
type Ask func(ctx context.Context, q Question) (yes bool, err error)

// ErrNobodyToAsk is an Ask's answer where the front end has nobody to
// put the question to (a headless run).
var ErrNobodyToAsk = errors.New("nobody can be asked")

// RefusedError is a program the door would not start, and why.
type RefusedError struct {
	Why    Reason
	Reason string
}

func (e *RefusedError) Error() string { return e.Why.String() + " was not started: " + e.Reason }

// Allow decides, before a Command for why is made, whether it may start,
// asking through ask when the rules say the user decides: only a
// LanguageServer that is not confined needs a yes, given once a session
// (a no holds for the session too). ask applies the session's approval
// mode (the yolo mode answers yes); nil, nobody can be asked (headless):
// a refusal. A refusal is a *RefusedError saying why, for the model.
func (d *Door) Allow(ctx context.Context, why Reason, ask Ask) error {
	ls, ok := why.(LanguageServer)
	if !ok || ls.Confined {
		return nil
	}
	if d == nil {
		return &RefusedError{why, "it may run " + ls.Risk + ", and nobody can be asked here"}
	}
	// One question at a time: two calls wanting the same server ask once.
	d.asking.Lock()
	defer d.asking.Unlock()
	if yes, asked := d.answer(ls.Name); asked {
		if yes {
			return nil
		}
		return &RefusedError{why, "the user declined it this session (it may run " + ls.Risk + ")"}
	}
	nobody := &RefusedError{why, "it may run " + ls.Risk + ", and nobody can be asked here " +
		"(a headless run starts it only in the yolo approval mode)"}
	if ask == nil {
		return nobody
	}
	yes, err := ask(ctx, Question{
		Title: "Start " + ls.Name + "?",
		Details: ls.Name + " may run " + ls.Risk + ". It runs on this machine" + d.where(why) +
			" for as long as the session lasts. Your answer holds for this session.",
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrNobodyToAsk):
		return nobody
	case err != nil:
		return &RefusedError{why, "it may run " + ls.Risk + ", and the user could not be asked: " + err.Error()}
	}
	d.mu.Lock()
	d.answers[ls.Name] = yes
	d.mu.Unlock()
	if !yes {
		return &RefusedError{why, "the user declined it (it may run " + ls.Risk + ")"}
	}
	return nil
}

func (d *Door) answer(name string) (yes, asked bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	yes, asked = d.answers[name]
	return yes, asked
}

// where says where why runs: in the sandbox or not, for a question.
func (d *Door) where(why Reason) string {
	if d.confiner(why) != nil {
		return ", in the sandbox,"
	}
	return ""
}

// Confines reports whether a program started for why runs confined.
func (d *Door) Confines(why Reason) bool { return d.confiner(why) != nil }

// confiner is what confines a program started for why; nil for none.
func (d *Door) confiner(why Reason) Confiner {
	if d == nil || d.rules.Sandbox == nil || !d.rules.Sandbox.Enabled() {
		return nil
	}
	switch r := why.(type) {
	case UserCommand, LanguageServer:
		return d.rules.Sandbox
	case Configured:
		switch {
		case r.Kind == Credential:
			return nil
		case r.Kind == DiscoveredTool || d.rules.SandboxServers:
			return d.rules.Sandbox
		}
		return nil
	case Helper:
		return nil
	}
	panic(fmt.Sprintf("spawn: a reason of no known kind: %T", why))
}

// Command is the program name, with args, to start for why, ended with
// its process group when ctx ends. Nothing starts before its Start (or
// Run, Output, CombinedOutput, Ready), which applies why's rule.
func (d *Door) Command(ctx context.Context, why Reason, name string, args ...string) *Cmd {
	c := &Cmd{Cmd: exec.CommandContext(ctx, name, args...), why: why, door: d, name: name}
	switch why.(type) {
	case Helper, LanguageServer:
		// Found where the door looks: not in the workspace.
		if path, err := d.LookPath(name); err == nil {
			c.Path, c.Err = path, nil
		}
	}
	ownGroup(c)
	return c
}

// Command is a program started with no session's rules: a nil Door's.
func Command(ctx context.Context, why Reason, name string, args ...string) *Cmd {
	return (*Door)(nil).Command(ctx, why, name, args...)
}

// admit applies why's rule to c, not yet started: whether it may start
// at all, then its confinement.
func (d *Door) admit(c *Cmd) error {
	roots := d.roots("")
	switch c.why.(type) {
	case Helper, LanguageServer:
		// Their directory is the workspace's too: found again now that
		// it is known, so the workspace's bin/ on PATH is passed over.
		roots = d.roots(c.Dir)
		if !strings.ContainsAny(c.name, `/\`) {
			if path, err := lookPath(roots, c.name); err == nil {
				c.Path, c.Err = path, nil
			}
		}
		// What they start in turn (node, python3, go) is found on a
		// PATH without the workspace's directories.
		c.Env = withPath(roots, c.Env)
	}
	switch r := c.why.(type) {
	case Helper:
		if inRoots(roots, c.Path) {
			return &RefusedError{r, c.Path + " is in the workspace: gemini-ls runs its helpers only from outside it"}
		}
	case LanguageServer:
		if err := d.admitServer(r, roots, c.Path); err != nil {
			return err
		}
	}
	if cf := d.confiner(c.why); cf != nil {
		if err := cf.Confine(c); err != nil {
			return fmt.Errorf("confining %s: %w", c.why, err)
		}
	}
	// Last, over whatever built the environment, the confiner included.
	c.Env = withoutEditorKey(c.Env)
	return nil
}

// admitServer lets a language server found at path start: confined and
// not the workspace's own, or with the user's yes.
func (d *Door) admitServer(r LanguageServer, roots []string, path string) error {
	if r.Confined && !inRoots(roots, path) {
		return nil
	}
	if d != nil {
		if yes, _ := d.answer(r.Name); yes {
			return nil
		}
	}
	if r.Confined {
		return &RefusedError{r, path + " is in the workspace, so it is the workspace's own code, and nobody allowed it this session"}
	}
	return &RefusedError{r, "it may run " + r.Risk + ", and nobody allowed it this session"}
}
