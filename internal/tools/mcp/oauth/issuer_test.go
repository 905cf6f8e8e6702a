package oauth

import "testing"

// Issuers compare as Gemini CLI 0.61's areIssuersEqual compares them.
func TestSameIssuer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://as.example", "https://as.example", true},
		{"https://as.example/", "https://as.example", true},
		{"https://as.example/tenant//", "https://as.example/tenant", true},
		{"https://as.example/tenant", "https://as.example/other", false},
		{"https://as.example", "https://posing.example", false},
		{"https://as.example:8443", "https://as.example", false},
		{"https://user@as.example", "https://as.example", false},
		{"https://user@as.example", "https://user@as.example", false},
		{"as-example/", "as-example", true},
	} {
		if got := sameIssuer(c.a, c.b); got != c.same {
			t.Errorf("sameIssuer(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
