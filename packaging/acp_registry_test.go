package packaging

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The rules below are agentclientprotocol/registry's at commit
// 3de1678346d1b37b6c3f07de503043ebcbb9cbdb: agent.schema.json, and
// .github/workflows/build_registry.py's validate_agent,
// validate_distribution_versions and validate_icon.

// acpPlatform is the registry's name for a Go GOOS/GOARCH.
func acpPlatform(p platform) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[p.goarch]
	return p.goos + "-" + arch
}

// acpEntry is the one entry folder under acp-registry/.
func acpEntry(t *testing.T) (dir string, entry map[string]any) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("acp-registry", "*", "agent.json"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("want one acp-registry/<id>/agent.json, found %v (%v)", dirs, err)
	}
	data, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &entry); err != nil {
		t.Fatalf("%s is not JSON: %v", dirs[0], err)
	}
	return filepath.Dir(dirs[0]), entry
}

// acpEntryErrors applies the registry's rules to entry, found in folder
// dir, for the archives make dist builds (ps) of the release version.
func acpEntryErrors(dir string, entry map[string]any, ps []platform, version string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	str := func(key string) string { s, _ := entry[key].(string); return s }

	// The schema: required fields, their types and patterns.
	for _, key := range []string{"id", "name", "version", "description", "distribution"} {
		if _, ok := entry[key]; !ok {
			fail("missing required field %q", key)
		}
	}
	for _, key := range []string{"id", "name", "version", "description", "repository", "license", "icon"} {
		if v, ok := entry[key]; ok {
			if _, isString := v.(string); !isString {
				fail("%q must be a string, is %T", key, v)
			}
		}
	}
	if !regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(str("id")) {
		fail("id %q must match ^[a-z][a-z0-9-]*$", str("id"))
	}
	if str("id") != filepath.Base(dir) {
		fail("id %q must match its folder's name %q", str("id"), filepath.Base(dir))
	}
	if str("name") == "" || str("description") == "" {
		fail("name and description must not be empty")
	}
	// build_registry.py is stricter than the schema's pattern: three
	// numeric parts first.
	parts := strings.Split(str("version"), ".")
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+`).MatchString(str("version")) || len(parts) < 3 ||
		!allDigits(parts[:3]) {
		fail("version %q must be a semantic version, X.Y.Z", str("version"))
	}
	if str("version") != version {
		fail("version %q is not the server's release version %q", str("version"), version)
	}
	if u, err := url.Parse(str("repository")); err != nil || u.Scheme == "" || str("repository") != repository {
		fail("repository %q must be %s", str("repository"), repository)
	}
	if v, ok := entry["authors"]; ok {
		authors, isArray := v.([]any)
		if !isArray {
			fail("authors must be an array of strings, is %T", v)
		}
		for _, a := range authors {
			if _, ok := a.(string); !ok {
				fail("authors must be strings")
			}
		}
	}

	dist, _ := entry["distribution"].(map[string]any)
	if len(dist) == 0 {
		fail("distribution must be a non-empty object")
	}
	for kind := range dist {
		if kind != "binary" && kind != "npx" && kind != "uvx" {
			fail("unknown distribution type %q", kind)
		}
	}
	binary, _ := dist["binary"].(map[string]any)
	if len(binary) == 0 {
		fail("distribution.binary must be a non-empty object: gemini-ls ships binaries")
	}
	valid := []string{"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"}
	families := map[string]bool{}
	for name, v := range binary {
		if !slices.Contains(valid, name) {
			fail("unknown platform %q", name)
			continue
		}
		families[strings.SplitN(name, "-", 2)[0]] = true
		target, _ := v.(map[string]any)
		for key := range target {
			if key != "archive" && key != "cmd" && key != "args" && key != "env" {
				fail("%s: unknown field %q (the schema allows archive, cmd, args, env)", name, key)
			}
		}
		if v, ok := target["env"]; ok {
			env, isObject := v.(map[string]any)
			if !isObject {
				fail("%s: env must be an object, is %T", name, v)
			}
			for key, value := range env {
				if _, ok := value.(string); !ok {
					fail("%s: env %s must be a string, is %T", name, key, value)
				}
			}
		}
		archive, _ := target["archive"].(string)
		cmd, _ := target["cmd"].(string)
		if archive == "" || cmd == "" {
			fail("%s: archive and cmd are required", name)
		}
		if u, err := url.Parse(archive); err != nil || u.Scheme != "https" || u.Host == "" {
			fail("%s: archive %q must be an https URL", name, archive)
		}
		if strings.Contains(archive, "/latest/") {
			fail("%s: archive %q uses /latest/: name the version", name, archive)
		}
		// validate_distribution_versions: the version in a release URL.
		if m := regexp.MustCompile(`/(?:download|releases)/v?([\d.]+)/`).FindStringSubmatch(archive); m != nil &&
			normalizeVersion(m[1]) != str("version") {
			fail("%s: archive URL has version %s, expected %s", name, normalizeVersion(m[1]), str("version"))
		}
		args, _ := target["args"].([]any)
		if len(args) != 1 || args[0] != "acp" {
			fail("%s: args %v must be [\"acp\"], the command that speaks ACP on stdio", name, target["args"])
		}
	}
	for _, family := range []string{"darwin", "linux", "windows"} {
		if !families[family] {
			fail("binary distribution must include %s", family)
		}
	}
	// Every archive make dist builds, and only those, where the registry
	// expects it: the release's asset of that name, cmd at its top.
	for _, p := range ps {
		name := acpPlatform(p)
		target, ok := binary[name].(map[string]any)
		if !ok {
			fail("make dist builds %s/%s, but the entry has no %s", p.goos, p.goarch, name)
			continue
		}
		if target["archive"] != p.releaseURL(version) {
			fail("%s: archive %v, but make dist's release asset is %s", name, target["archive"], p.releaseURL(version))
		}
		if target["cmd"] != "./"+p.exe() {
			fail("%s: cmd %v, but the archive holds ./%s", name, target["cmd"], p.exe())
		}
	}
	if len(binary) > len(ps) {
		fail("the entry names %d platforms, make dist builds %d", len(binary), len(ps))
	}
	return errs
}

func allDigits(parts []string) bool {
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil {
			return false
		}
	}
	return true
}

// normalizeVersion is build_registry.py's: X.Y.Z from one to many parts.
func normalizeVersion(v string) string {
	parts := strings.Split(v, ".")
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	return strings.Join(parts[:3], ".")
}

// iconErrors is build_registry.py's validate_icon.
func iconErrors(svg string) []string {
	var errs []string
	width := regexp.MustCompile(`<svg[^>]*\swidth=["'](\d+)`).FindStringSubmatch(svg)
	height := regexp.MustCompile(`<svg[^>]*\sheight=["'](\d+)`).FindStringSubmatch(svg)
	var w, h float64
	if width == nil || height == nil {
		vb := regexp.MustCompile(`viewBox=["'][\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)`).FindStringSubmatch(svg)
		if vb == nil {
			return []string{"icon has no width/height attributes and no viewBox"}
		}
		w, _ = strconv.ParseFloat(vb[1], 64)
		h, _ = strconv.ParseFloat(vb[2], 64)
	} else {
		w, _ = strconv.ParseFloat(width[1], 64)
		h, _ = strconv.ParseFloat(height[1], 64)
	}
	if w != h {
		errs = append(errs, fmt.Sprintf("icon must be square (got %gx%g)", w, h))
	}
	if w != 16 || h != 16 {
		errs = append(errs, fmt.Sprintf("icon must be 16x16 (got %gx%g)", w, h))
	}
	allowed := []string{"currentcolor", "none", "inherit"}
	for _, attr := range []string{"fill", "stroke"} {
		for _, m := range regexp.MustCompile(`(?i)\b`+attr+`\s*=\s*["']([^"']+)["']`).FindAllStringSubmatch(svg, -1) {
			if !slices.Contains(allowed, strings.ToLower(strings.TrimSpace(m[1]))) {
				errs = append(errs, fmt.Sprintf("icon has hardcoded %s=%q (use currentColor or none)", attr, m[1]))
			}
		}
	}
	for _, style := range regexp.MustCompile(`(?i)\bstyle\s*=\s*["']([^"']+)["']`).FindAllStringSubmatch(svg, -1) {
		for _, attr := range []string{"fill", "stroke"} {
			if m := regexp.MustCompile(`(?i)\b` + attr + `\s*:\s*([^;]+)`).FindStringSubmatch(style[1]); m != nil &&
				!slices.Contains(allowed, strings.ToLower(strings.TrimSpace(m[1]))) {
				errs = append(errs, fmt.Sprintf("icon has hardcoded style %s: %s", attr, strings.TrimSpace(m[1])))
			}
		}
	}
	if !regexp.MustCompile(`(?i)currentColor`).MatchString(svg) {
		errs = append(errs, "icon must use currentColor for fills/strokes to support theming")
	}
	return errs
}

// TestACPRegistryIcon holds icon.svg to validate_icon's rules.
func TestACPRegistryIcon(t *testing.T) {
	dir, _ := acpEntry(t)
	svg, err := os.ReadFile(filepath.Join(dir, "icon.svg"))
	if err != nil {
		t.Fatalf("the entry has no icon: %v", err)
	}
	for _, err := range iconErrors(string(svg)) {
		t.Error(err)
	}
}

// TestACPEntryMutations feeds acpEntryErrors faulty copies of agent.json.
func TestACPEntryMutations(t *testing.T) {
	dir, _ := acpEntry(t)
	data, err := os.ReadFile(filepath.Join(dir, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	ps, version := distPlatforms(t), sourceVersion(t)
	good := func() map[string]any {
		var entry map[string]any
		_ = json.Unmarshal(data, &entry) // acpEntry decoded it
		return entry
	}
	binary := func(e map[string]any) map[string]any {
		dist, _ := e["distribution"].(map[string]any)
		b, _ := dist["binary"].(map[string]any)
		return b
	}
	set := func(key string, v any) func(map[string]any) map[string]any {
		return func(e map[string]any) map[string]any { e[key] = v; return e }
	}
	// linux edits linux-x86_64's target.
	linux := func(edit func(target map[string]any)) func(map[string]any) map[string]any {
		return func(e map[string]any) map[string]any {
			target, _ := binary(e)["linux-x86_64"].(map[string]any)
			edit(target)
			return e
		}
	}
	archive := func(edit func(string) string) func(map[string]any) map[string]any {
		return linux(func(target map[string]any) {
			a, _ := target["archive"].(string)
			target["archive"] = edit(a)
		})
	}
	cases := []mutation[map[string]any]{
		{"id not its folder's", set("id", "gemini"), `id "gemini" must match its folder's name "gemini-ls"`},
		{"version not X.Y.Z", set("version", "0.1"), `version "0.1" must be a semantic version`},
		{"unknown platform", func(e map[string]any) map[string]any {
			b := binary(e)
			b["linux-amd64"] = b["linux-x86_64"]
			delete(b, "linux-x86_64")
			return e
		}, `unknown platform "linux-amd64"`},
		{"http archive", archive(replace("https://", "http://")), "must be an https URL"},
		{"archive of another version", archive(replace("/v"+version+"/", "/v9.9.9/")),
			"archive URL has version 9.9.9, expected " + version},
		{"latest archive", archive(replace("/download/v"+version+"/", "/latest/download/")), "uses /latest/"},
		{"no windows", func(e map[string]any) map[string]any {
			delete(binary(e), "windows-aarch64")
			delete(binary(e), "windows-x86_64")
			return e
		}, "binary distribution must include windows"},
		{"unknown target field", linux(func(target map[string]any) { target["sha256"] = "0" }), `unknown field "sha256"`},
		{"authors not an array", set("authors", "The gemini-ls authors"), "authors must be an array of strings, is string"},
		{"env value not a string", linux(func(target map[string]any) { target["env"] = map[string]any{"DEBUG": 1.0} }),
			"linux-x86_64: env DEBUG must be a string"},
		{"no cmd", linux(func(target map[string]any) { delete(target, "cmd") }), "linux-x86_64: archive and cmd are required"},
	}
	for _, key := range []string{"id", "name", "version", "description", "distribution"} {
		cases = append(cases, mutation[map[string]any]{"no " + key, func(e map[string]any) map[string]any {
			delete(e, key)
			return e
		}, fmt.Sprintf("missing required field %q", key)})
	}
	testMutations(t, good, func(e map[string]any) []string { return acpEntryErrors(dir, e, ps, version) }, cases)
}

// TestACPIconMutations feeds iconErrors faulty copies of icon.svg.
func TestACPIconMutations(t *testing.T) {
	dir, _ := acpEntry(t)
	svg, err := os.ReadFile(filepath.Join(dir, "icon.svg"))
	if err != nil {
		t.Fatal(err)
	}
	good := func() string { return string(svg) }
	testMutations(t, good, iconErrors, []mutation[string]{
		{"32x32", replace(`width="16" height="16"`, `width="32" height="32"`), "icon must be 16x16 (got 32x32)"},
		{"not square", replace(`height="16"`, `height="12"`), "icon must be square (got 16x12)"},
		{"24x24 by its viewBox", replace(`width="16" height="16" viewBox="0 0 16 16"`, `viewBox="0 0 24 24"`),
			"icon must be 16x16 (got 24x24)"},
		{"no size", replace(` width="16" height="16" viewBox="0 0 16 16"`, ""), "no width/height attributes and no viewBox"},
		{"hard-coded fill", replace(`fill="currentColor"`, `fill="#1a73e8"`), `icon has hardcoded fill="#1a73e8"`},
		{"hard-coded stroke", replace(`<path `, `<path stroke="black" `), `icon has hardcoded stroke="black"`},
		{"hard-coded style", replace(`<path `, `<path style="fill: #000" `), "icon has hardcoded style fill: #000"},
		{"no currentColor", replace(`fill="currentColor"`, `fill="inherit"`), "icon must use currentColor"},
	})
}

// TestRegistries builds the server once (a minute on a loaded machine)
// and checks what needs it: the ACP registry's handshake run on the
// entry's command line, and the ACP entry and the mason package against
// make dist's archives of the version the server reports.
func TestRegistries(t *testing.T) {
	dir, entry := acpEntry(t)
	ps := distPlatforms(t)
	exe := buildServer(t)

	// The entry's command line (every platform's is the same but for
	// .exe) through client.py's handshake: a result, and an auth method
	// of a type the registry takes.
	response := initializeAsRegistry(t, exe, entryArgs(t, entry))
	if e, ok := response["error"]; ok {
		t.Fatalf("initialize answered an error: %v", e)
	}
	result, _ := response["result"].(map[string]any)
	methods, _ := result["authMethods"].([]any)
	types, err := authTypes(methods)
	if err != nil {
		t.Fatal(err)
	}
	if err := registryAcceptsAuth(types); err != nil {
		t.Errorf("the ACP registry refuses gemini-ls: %v (authMethods %v)", err, methods)
	}
	reported := agentVersion(t, result)
	version := releaseVersion(t, reported)

	t.Run("OneVersion", func(t *testing.T) {
		for _, err := range serverVersionErrors(t, exe, reported) {
			t.Error(err)
		}
	})

	t.Run("ACPEntry", func(t *testing.T) {
		for _, err := range acpEntryErrors(dir, entry, ps, version) {
			t.Error(err)
		}
	})
	t.Run("MasonPackage", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join("mason", "package.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range masonErrors(data, ps, version) {
			t.Error(err)
		}
	})
}

// entryArgs is the linux-x86_64 target's args.
func entryArgs(t *testing.T, entry map[string]any) []string {
	t.Helper()
	dist, _ := entry["distribution"].(map[string]any)
	binary, _ := dist["binary"].(map[string]any)
	target, _ := binary["linux-x86_64"].(map[string]any)
	raw, _ := target["args"].([]any)
	var args []string
	for _, a := range raw {
		s, ok := a.(string)
		if !ok {
			t.Fatalf("linux-x86_64's args hold %T, not strings", a)
		}
		args = append(args, s)
	}
	return args
}

// agentVersion is initialize's agentInfo.version.
func agentVersion(t *testing.T, result map[string]any) string {
	t.Helper()
	info, _ := result["agentInfo"].(map[string]any)
	v, _ := info["version"].(string)
	if v == "" {
		t.Fatalf("initialize's answer has no agentInfo.version: %v", result)
	}
	return v
}
