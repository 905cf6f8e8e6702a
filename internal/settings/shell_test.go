package settings

import (
	"testing"
	"time"
)

// tools.shell.inactivityTimeout is seconds, 300 when unset, and no limit
// at 0 or below, as in Gemini CLI 0.61.
func TestShellInactivity(t *testing.T) {
	for _, c := range []struct {
		set  *float64
		want time.Duration
	}{
		{nil, 300 * time.Second},
		{new(1.5), 1500 * time.Millisecond},
		{new(0.0), -1},
		{new(-3.0), -1},
	} {
		if got := (Shell{InactivityTimeout: c.set}).Inactivity(); got != c.want {
			t.Errorf("inactivityTimeout %v is %v, want %v", c.set, got, c.want)
		}
	}
}
