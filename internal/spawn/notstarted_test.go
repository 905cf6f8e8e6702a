package spawn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A program that cannot be started is named as written, a Windows path's
// backslashes single, however deep the error that says so is wrapped; an
// error of another kind is not taken for one.
func TestNotStartedNamesTheProgramAsWritten(t *testing.T) {
	name := `C:\Users\ada\tools\mcp-docs.exe`
	err := Command(context.Background(), Helper{Name: "test"}, name).Start()
	if err == nil {
		t.Fatalf("%s started", name)
	}
	got, cause, ok := NotStarted(fmt.Errorf("calling initialize: %w", err))
	if !ok || got != name {
		t.Fatalf("NotStarted(%v) = %q, %v, %v; want %q", err, got, cause, ok, name)
	}
	if cause == nil || strings.Contains(cause.Error(), name) {
		t.Errorf("cause %v: want why alone, the name apart", cause)
	}
	if msg := "cannot start " + got + ": " + cause.Error(); strings.Contains(msg, `\\`) {
		t.Errorf("the message doubles backslashes: %s", msg)
	}
	if _, _, ok := NotStarted(errors.New("EOF")); ok {
		t.Error("an error that is no failed start was taken for one")
	}
}
