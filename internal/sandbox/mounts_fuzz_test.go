package sandbox

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// SANDBOX_MOUNTS and SANDBOX_ENV come from the environment, which a
// trusted project's .env may set: whatever they hold, parsing ends
// without a panic, and what it accepts is what the sandbox relies on: an
// absolute, cleaned host path, a container path that is its own or an
// absolute POSIX one, options; KEY=VALUE entries with a key.
func FuzzParseMounts(f *testing.F) {
	for _, seed := range []string{"/a", " /a , /b:/in/b , /c::rw,/d:/d/:z,", `C:\data:/in`, "/a:/b:ro:x", "a", "/a:b", "::", ",,", "/a/../..:/x/../y:", "A=1,B=x=y", "=x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		mounts, err := parseMounts(v)
		if err == nil {
			for _, m := range mounts {
				if !filepath.IsAbs(m.From) || filepath.Clean(m.From) != m.From {
					t.Errorf("%q: From %q is not an absolute, cleaned path", v, m.From)
				}
				if m.To != m.From && (!path.IsAbs(m.To) || path.Clean(m.To) != m.To) {
					t.Errorf("%q: To %q is neither From nor an absolute, cleaned POSIX path", v, m.To)
				}
				if m.Opts == "" || strings.ContainsAny(m.Opts, ":,") {
					t.Errorf("%q: options %q", v, m.Opts)
				}
			}
		}
		env, err := parseEnvList(v)
		if err == nil {
			for _, kv := range env {
				if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.Contains(kv, ",") {
					t.Errorf("%q: SANDBOX_ENV entry %q", v, kv)
				}
			}
		}
	})
}
