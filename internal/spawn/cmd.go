package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Cmd is a program the door will start for a reason: an exec.Cmd (set
// Dir, Env, Stdin, Stdout, Stderr, ExtraFiles and WaitDelay before it
// starts) whose Start, Run, Output and CombinedOutput apply the reason's
// rule first. Never start its exec.Cmd otherwise: Ready hands it over,
// admitted, to a library that starts it itself.
type Cmd struct {
	*exec.Cmd
	why  Reason
	door *Door
	// name is the program asked for, found again when it starts.
	name string
	// admitted: the reason's rule was applied (a confiner rewrites once).
	admitted bool
}

// Why is the reason c starts for.
func (c *Cmd) Why() Reason { return c.why }

// admit applies the door's rule for c's reason, once.
func (c *Cmd) admit() error {
	if c.admitted {
		return nil
	}
	if c.Process != nil {
		return fmt.Errorf("starting %s: already started", c.why)
	}
	if err := c.door.admit(c); err != nil {
		return err
	}
	c.admitted = true
	return nil
}

// Start starts c, once the door admitted it.
func (c *Cmd) Start() error {
	if err := c.admit(); err != nil {
		return err
	}
	return c.Cmd.Start()
}

// Run starts c, once admitted, and waits for it.
func (c *Cmd) Run() error {
	if err := c.admit(); err != nil {
		return err
	}
	return c.Cmd.Run()
}

// Output runs c, once admitted, and is its standard output (with the
// standard error in an *ExitError, as os/exec's).
func (c *Cmd) Output() ([]byte, error) {
	if err := c.admit(); err != nil {
		return nil, err
	}
	return c.Cmd.Output()
}

// CombinedOutput runs c, once admitted, and is its output and error
// output together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if err := c.admit(); err != nil {
		return nil, err
	}
	return c.Cmd.CombinedOutput()
}

// Ready is c's exec.Cmd, admitted and not started, for a library that
// starts it itself (the MCP SDK's CommandTransport).
func (c *Cmd) Ready() (*exec.Cmd, error) {
	if err := c.admit(); err != nil {
		return nil, err
	}
	return c.Cmd, nil
}

// Kill kills every process left in c's group: while c runs, c and all it
// started; once it exited, what it left running. A group with nothing
// left, or a c never started, is no error. A process that left the group
// (setsid) is beyond reach.
func (c *Cmd) Kill() error {
	if c.Process == nil {
		return nil
	}
	if err := killGroup(c.Process); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing the process group of %s: %w", c.Path, err)
	}
	return nil
}

// Members lists the processes still in c's group after c exited: what
// it left running in the background. Where /proc is missing it reports
// only that some remain; nil where groups are unknown.
func (c *Cmd) Members() []string {
	if c.Process == nil {
		return nil
	}
	return groupMembers(c.Process.Pid)
}

// ownGroup makes c, once started, the leader of a new process group, and
// has the end of its context kill that whole group.
func ownGroup(c *Cmd) {
	inNewGroup(c.Cmd)
	// An empty group is os.ErrProcessDone, which Cancel may return: the
	// command ended before its context did.
	c.Cancel = func() error { return killGroup(c.Process) }
}

// Adopt is cmd, built by a test with os/exec and not started, as a Cmd
// for why, so that the door's rule applies to it (a Confiner's rewriting
// reaches cmd itself). gemini-ls's own packages cannot call it: none
// imports os/exec to build an exec.Cmd (TestOneDoor).
func Adopt(why Reason, cmd *exec.Cmd) *Cmd { return &Cmd{Cmd: cmd, why: why} }
