package tools

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// validatePatterns checks glob patterns given in parameter param.
func validatePatterns(param string, patterns []string) error {
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("params/%s: invalid glob pattern %q", param, p)
		}
	}
	return nil
}

// matchesAny reports whether name (slash-separated) matches any pattern.
// The patterns must be valid.
func matchesAny(patterns []string, name string, caseSensitive bool) bool {
	if !caseSensitive {
		name = strings.ToLower(name)
	}
	for _, p := range patterns {
		if !caseSensitive {
			p = strings.ToLower(p)
		}
		if doublestar.MatchUnvalidated(p, name) {
			return true
		}
	}
	return false
}
