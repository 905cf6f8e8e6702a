package fetchsource

import (
	"strings"
	"testing"
)

func TestWithGitConfigCountsOnFromTheSafeSettings(t *testing.T) {
	env := WithGitConfig(SafeGitEnv([]string{"PATH=/bin"}), "http.https://github.com/.extraheader", "AUTHORIZATION: basic eDp5")
	var count string
	keys := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "GIT_CONFIG_COUNT" {
			if count != "" {
				t.Fatalf("GIT_CONFIG_COUNT twice in %q", env)
			}
			count = v
		}
		keys[k] = v
	}
	if count != "9" || keys["GIT_CONFIG_KEY_8"] != "http.https://github.com/.extraheader" || keys["GIT_CONFIG_VALUE_8"] != "AUTHORIZATION: basic eDp5" || keys["GIT_CONFIG_KEY_0"] != "credential.helper" {
		t.Errorf("the environment: %q", env)
	}
}

func TestTokenHeaderOnlyForAnHTTPSOrigin(t *testing.T) {
	h := TokenHeader("https://github.example.com/ada/proj.git", "tok")
	if len(h) != 2 || h[0] != "http.https://github.example.com/.extraheader" || h[1] != "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46dG9r" {
		t.Errorf("the header of an https origin: %q", h)
	}
	for _, origin := range []string{"git@github.com:ada/proj.git", "ssh://git@github.com/ada/proj", "/srv/origin.git", "http://github.com/ada/proj"} {
		if h := TokenHeader(origin, "tok"); h != nil {
			t.Errorf("TokenHeader(%q) = %q, want none: the token goes only to an https server", origin, h)
		}
	}
	if h := TokenHeader("https://github.com/ada/proj", ""); h != nil {
		t.Errorf("a header without a token: %q", h)
	}
}
