package auth

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	for _, tc := range []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"12", 12 * time.Second, true},
		{" 0 ", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true}, // already past: retry now
		{"Monday, 04-May-26 03:03:01 GMT", time.Minute, true},    // RFC 850, which HTTP still allows
		{"", 0, false},
		{"-3", 0, false},
		{"soon", 0, false},
		{"999999999", 0, false}, // beyond a day: not a delay to obey
	} {
		got, ok := parseRetryAfter(tc.value, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.value, got, ok, tc.want, tc.ok)
		}
	}
}
