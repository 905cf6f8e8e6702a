package auth

import (
	"strings"
	"testing"
)

// A location is one region name, which keeps the Vertex AI host genai
// makes of it ({location}-aiplatform.googleapis.com) under googleapis.com.
func TestCheckLocation(t *testing.T) {
	for value, ok := range map[string]bool{
		"":                        true, // unset: genai's default, as before
		"us-central1":             true,
		"europe-west4":            true,
		"northamerica-northeast1": true,
		"global":                  true,
		"us":                      true, // multi-regions
		"eu":                      true,
		"attacker.example/x":      false,
		"us-central1.evil.com":    false,
		"a/b":                     false,
		"x@y":                     false,
		"evil.com#":               false,
		"evil.com?":               false,
		"127.0.0.1:8080/x":        false,
		"US-CENTRAL1":             false,
		"us-central1-":            false,
		"-us":                     false,
		"1us":                     false,
		"us central1":             false,
		"us-central1\n":           false,
		strings.Repeat("a", 41):   false,
		strings.Repeat("a", 40):   true,
	} {
		err := checkLocation("GOOGLE_CLOUD_LOCATION", value)
		if (err == nil) != ok {
			t.Errorf("checkLocation(%q) = %v, want ok=%v", value, err, ok)
		}
		if err != nil && (!strings.HasPrefix(err.Error(), "GOOGLE_CLOUD_LOCATION is not a Google Cloud region name.") || strings.Contains(err.Error(), value)) {
			t.Errorf("checkLocation(%q) = %q: want the variable named and the value not echoed", value, err)
		}
	}
}

// A project is a project ID as Google allows it (or a legacy
// domain-scoped one, or a project number), nothing that leaves its path
// segment of projects/{project}/locations/....
func TestCheckProject(t *testing.T) {
	for value, ok := range map[string]bool{
		"":                        true,
		"my-project-123":          true,
		"abcdef":                  true, // 6, the shortest
		strings.Repeat("a", 30):   true, // the longest
		"example.com:my-project":  true, // legacy domain-scoped
		"google.com:a-b-c-d":      true,
		"123456789012":            true, // a project number (Vertex AI paths take it)
		"abcde":                   false,
		strings.Repeat("a", 31):   false,
		"1project":                false,
		"abcdef-":                 false,
		"My-Project":              false,
		"my_project":              false,
		"../../v1/x":              false,
		"my-project/locations/x":  false,
		"my-project?x":            false,
		"attacker.example/x":      false,
		"example.com:":            false,
		":my-project":             false,
		"example..com:my-project": false,
		"0123":                    false,
		strings.Repeat("1", 21):   false,
	} {
		err := checkProject("GOOGLE_CLOUD_PROJECT", value)
		if (err == nil) != ok {
			t.Errorf("checkProject(%q) = %v, want ok=%v", value, err, ok)
		}
		if err != nil && (!strings.HasPrefix(err.Error(), "GOOGLE_CLOUD_PROJECT is not a Google Cloud project ID.") || strings.Contains(err.Error(), value)) {
			t.Errorf("checkProject(%q) = %q: want the variable named and the value not echoed", value, err)
		}
	}
}

func TestCheckBaseURL(t *testing.T) {
	for value, ok := range map[string]bool{
		"":                       true,
		"https://example.com/v1": true,
		"http://127.0.0.1:9":     true,
		"http://example.com/v1":  false, // the key in the clear
		"http://localhost:8080":  true,
		"localhost:8080":         false, // parsed as scheme "localhost"
		"example.com/gemini":     false,
		"ftp://example.com":      false,
		"https://":               false,
		"https://%zz":            false,
	} {
		if err := checkBaseURL("GOOGLE_GEMINI_BASE_URL", value); (err == nil) != ok {
			t.Errorf("checkBaseURL(%q) = %v, want ok=%v", value, err, ok)
		}
	}
}
