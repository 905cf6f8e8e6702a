//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"io"
)

// Session is a persistent sandbox, which only Linux has.
type Session struct{}

// persistentSandboxes: off Linux there is no bubblewrap, and gemini-ls
// (a macOS or Windows binary) cannot be the supervisor in Docker
// Desktop's Linux containers, so each command keeps a container of its
// own.
const persistentSandboxes = false

var errNoSession = errors.New("a persistent sandbox needs Linux")

// NewSession fails: no persistent sandbox here.
func (s *Sandbox) NewSession(...string) (*Session, error) { return nil, errNoSession }

// Run fails: no persistent sandbox here.
func (se *Session) Run(context.Context, Command) (Exit, error) { return Exit{}, errNoSession }

// Note says nothing: no persistent sandbox here.
func (se *Session) Note() string { return "" }

// Close does nothing.
func (se *Session) Close() error { return nil }

// Supervise fails: the supervisor runs inside bubblewrap or a container,
// on Linux.
func Supervise(context.Context, io.Reader, io.Writer, ...string) error {
	return errors.New("the sandbox supervisor runs inside bubblewrap or a container, on Linux")
}
