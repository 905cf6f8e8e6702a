package settings

import (
	"path/filepath"
	"testing"
)

func mapEnv(vars map[string]string) Getenv {
	return func(name string) string { return vars[name] }
}

func TestSystemHome(t *testing.T) {
	for _, tc := range []struct {
		name, goos string
		env        map[string]string
		want       string
	}{
		{"unix HOME", "linux", map[string]string{"HOME": "/home/ann", "USERPROFILE": `C:\Users\bob`}, "/home/ann"},
		{"darwin HOME", "darwin", map[string]string{"HOME": "/Users/ann"}, "/Users/ann"},
		{"unix without HOME", "linux", map[string]string{"USERPROFILE": `C:\Users\bob`}, ""},
		// Node's os.homedir() on Windows: USERPROFILE, never HOME (MSYS
		// and Cygwin set HOME to a Unix path).
		{"windows USERPROFILE", "windows", map[string]string{"USERPROFILE": `C:\Users\ann`, "HOME": "/c/Users/ann"}, `C:\Users\ann`},
		{"windows HOMEDRIVE and HOMEPATH", "windows", map[string]string{"HOMEDRIVE": "D:", "HOMEPATH": `\Users\ann`, "HOME": "/d/Users/ann"}, `D:\Users\ann`},
		{"windows HOMEDRIVE alone", "windows", map[string]string{"HOMEDRIVE": "D:"}, ""},
		{"windows HOME alone", "windows", map[string]string{"HOME": `C:\Users\ann`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := systemHome(tc.goos, mapEnv(tc.env)); got != tc.want {
				t.Errorf("systemHome(%s) = %q, want %q", tc.goos, got, tc.want)
			}
		})
	}
}

func TestHomePrefersGeminiCLIHome(t *testing.T) {
	getenv := mapEnv(map[string]string{"GEMINI_CLI_HOME": "/srv/gemini", "HOME": "/home/ann", "USERPROFILE": `C:\Users\ann`})
	if got := Home(getenv); got != "/srv/gemini" {
		t.Errorf("Home = %q, want GEMINI_CLI_HOME's /srv/gemini", got)
	}
	if got, want := UserDir(getenv), filepath.Join("/srv/gemini", ".gemini"); got != want {
		t.Errorf("UserDir = %q, want %q", got, want)
	}
	if got := UserDir(mapEnv(nil)); got != "" {
		t.Errorf("UserDir without a home = %q, want \"\"", got)
	}
}

func TestExpandHome(t *testing.T) {
	for _, tc := range []struct {
		goos, home, p, want string
		ok                  bool
	}{
		{"linux", "/home/ann", "~", "/home/ann", true},
		{"linux", "/home/ann", "~/notes", "/home/ann/notes", true},
		// On Unix a backslash is a file name's character, as in 0.61.
		{"linux", "/home/ann", `~\notes`, `~\notes`, true},
		{"linux", "/home/ann", "~bob/notes", "~bob/notes", true},
		{"linux", "/home/ann", "notes/~", "notes/~", true},
		{"linux", "/home/ann", "%USERPROFILE%/notes", "/home/ann/notes", true},
		{"windows", `C:\Users\ann`, `~\notes`, `C:\Users\ann\notes`, true},
		{"windows", `C:\Users\ann`, "~/notes", `C:\Users\ann/notes`, true},
		{"windows", `C:\Users\ann`, `%UserProfile%\notes`, `C:\Users\ann\notes`, true},
		{"windows", `C:\Users\ann`, `~bob\notes`, `~bob\notes`, true},
		{"windows", `C:\Users\ann`, `C:\notes`, `C:\notes`, true},
		{"linux", "", "~/notes", "~/notes", false},
		{"windows", "", `~\notes`, `~\notes`, false},
		{"linux", "", "/etc/notes", "/etc/notes", true},
	} {
		got, ok := expandHome(tc.goos, tc.home, tc.p)
		if got != tc.want || ok != tc.ok {
			t.Errorf("expandHome(%s, %q, %q) = %q, %v; want %q, %v", tc.goos, tc.home, tc.p, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSystemConfigDir(t *testing.T) {
	// As 0.61's Storage.getSystemConfigDir.
	for goos, want := range map[string]string{
		"linux":   "/etc/gemini-cli",
		"freebsd": "/etc/gemini-cli",
		"darwin":  "/Library/Application Support/GeminiCli",
		"windows": `C:\ProgramData\gemini-cli`,
	} {
		if got := systemConfigDir(goos); got != want {
			t.Errorf("systemConfigDir(%s) = %q, want %q", goos, got, want)
		}
	}
	if got := SystemSettingsPath(mapEnv(map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "/opt/admin.json"})); got != "/opt/admin.json" {
		t.Errorf("SystemSettingsPath = %q, want GEMINI_CLI_SYSTEM_SETTINGS_PATH's /opt/admin.json", got)
	}
	if got, want := SystemSettingsPath(mapEnv(nil)), filepath.Join(SystemConfigDir(), "settings.json"); got != want {
		t.Errorf("SystemSettingsPath = %q, want %q", got, want)
	}
}
