package setup

import (
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// general.sessionRetention as 0.61 reads it: on with maxAge 30d by
// default, its period syntax, and the values it refuses turning cleanup
// off with its words.
func TestSessionRetention(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	off := false
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name      string
		in        settings.SessionRetention
		maxAge    time.Duration
		maxCount  int
		off       bool
		errSubstr string
	}{
		{name: "defaults", maxAge: 30 * day},
		{name: "disabled", in: settings.SessionRetention{Enabled: &off}, off: true},
		{name: "hours", in: settings.SessionRetention{MaxAge: str("36h")}, maxAge: 36 * time.Hour},
		{name: "weeks and count", in: settings.SessionRetention{MaxAge: str("2w"), MaxCount: num(5)}, maxAge: 14 * day, maxCount: 5},
		{name: "months", in: settings.SessionRetention{MaxAge: str("3m")}, maxAge: 90 * day},
		{name: "count alone", in: settings.SessionRetention{MaxAge: str(""), MaxCount: num(3)}, maxCount: 3},
		{name: "bad period", in: settings.SessionRetention{MaxAge: str("30 days")}, off: true, errSubstr: "Invalid retention period format: 30 days"},
		{name: "zero", in: settings.SessionRetention{MaxAge: str("0d")}, off: true, errSubstr: "Value must be greater than 0"},
		{name: "under minRetention", in: settings.SessionRetention{MaxAge: str("12h")}, off: true, errSubstr: "maxAge cannot be less than minRetention (1d)"},
		{name: "minRetention lowered", in: settings.SessionRetention{MaxAge: str("12h"), MinRetention: "1h"}, maxAge: 12 * time.Hour},
		{name: "count zero", in: settings.SessionRetention{MaxCount: num(0)}, off: true, errSubstr: "maxCount must be at least 1"},
		{name: "nothing", in: settings.SessionRetention{MaxAge: str("")}, off: true, errSubstr: "Either maxAge or maxCount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sessionRetention(tc.in)
			if tc.errSubstr != "" && (err == nil || !strings.Contains(err.Error(), tc.errSubstr)) {
				t.Errorf("err = %v, want %q", err, tc.errSubstr)
			}
			if tc.off {
				if got != nil {
					t.Errorf("cleanup on: %+v", got)
				}
				return
			}
			if err != nil || got == nil || got.MaxAge != tc.maxAge || got.MaxCount != tc.maxCount {
				t.Errorf("got %+v, %v; want maxAge %v maxCount %d", got, err, tc.maxAge, tc.maxCount)
			}
		})
	}
}
