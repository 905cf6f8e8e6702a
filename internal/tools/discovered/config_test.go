package discovered

import (
	"context"
	"strings"
	"testing"
)

// The settings' mistakes are told before anything runs, on every system
// (the tests that run commands, discover_test.go, speak sh).

func TestDiscoveryWithoutCallCommand(t *testing.T) {
	found, err := Discover(context.Background(), Config{DiscoveryCommand: "discover-tools", Dir: t.TempDir()})
	if len(found) != 0 || err == nil || !strings.Contains(err.Error(), "tools.callCommand is not set") {
		t.Errorf("Discover = %v, %v", found, err)
	}
}

func TestCallCommandThatCannotBeSplit(t *testing.T) {
	found, err := Discover(context.Background(), Config{DiscoveryCommand: "discover-tools", CallCommand: `call "unclosed`, Dir: t.TempDir()})
	if len(found) != 0 || err == nil || !strings.Contains(err.Error(), "tools.callCommand: ") || !strings.Contains(err.Error(), "discover-tools") {
		t.Errorf("Discover = %v, %v; want an error naming the command and the setting", found, err)
	}
}

func TestNoDiscoveryCommand(t *testing.T) {
	found, err := Discover(context.Background(), Config{CallCommand: "x"})
	if found != nil || err != nil {
		t.Errorf("Discover = %v, %v; want nothing", found, err)
	}
}
