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
