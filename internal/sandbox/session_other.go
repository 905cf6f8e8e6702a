//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"io"
)

// Session is a persistent bubblewrap sandbox, which only Linux has.
type Session struct{}

var errNoSession = errors.New("a persistent sandbox needs bubblewrap, on Linux")

// NewSession fails: no bubblewrap here.
func (s *Sandbox) NewSession(...string) (*Session, error) { return nil, errNoSession }

// Run fails: no bubblewrap here.
func (se *Session) Run(context.Context, Command) (Exit, error) { return Exit{}, errNoSession }

// Close does nothing.
func (se *Session) Close() error { return nil }

// Supervise fails: the supervisor runs inside bubblewrap, on Linux.
func Supervise(context.Context, io.Reader, io.Writer) error {
	return errors.New("the sandbox supervisor runs inside bubblewrap, on Linux")
}
