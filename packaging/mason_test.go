package packaging

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The rules below are mason-org/registry-schema's at commit
// a27bd8ccf6334e04f75992bb9eb507d166604b7a (package.schema.json, the
// github/release source, the platform, category and license enums, bin,
// neovim) and mason-org/actions' registry-lint (no CRLF, the name its
// folder's) with mason-org/mason-registry's CONTRIBUTING.md (the YAML
// header, purl ids with a version).

// masonPackage is package.yaml as the schema describes it.
type masonPackage struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Homepage    string            `yaml:"homepage"`
	Licenses    []string          `yaml:"licenses"`
	Languages   []string          `yaml:"languages"`
	Categories  []string          `yaml:"categories"`
	Source      masonSource       `yaml:"source"`
	Bin         map[string]string `yaml:"bin"`
	Neovim      struct {
		Lspconfig string `yaml:"lspconfig"`
	} `yaml:"neovim"`
}

type masonSource struct {
	ID    string       `yaml:"id"`
	Asset []masonAsset `yaml:"asset"`
}

type masonAsset struct {
	Target string `yaml:"target"`
	File   string `yaml:"file"`
	Bin    string `yaml:"bin"`
}

// masonTarget is mason's platform name for a Go GOOS/GOARCH.
func masonTarget(p platform) string {
	goos := map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win"}[p.goos]
	return goos + "_" + map[string]string{"amd64": "x64", "arm64": "arm64"}[p.goarch]
}

// masonErrors applies the registry's rules to package.yaml's bytes, for
// make dist's archives (ps) of the release version.
func masonErrors(data []byte, ps []platform, version string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if !bytes.HasPrefix(data, []byte("---\n")) {
		fail("the document must start with the YAML header ---")
	}
	if bytes.ContainsRune(data, '\r') {
		fail("CRLF characters in the file")
	}
	// The schema's additionalProperties: false at the top, and required.
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		return append(errs, fmt.Sprintf("not YAML: %v", err))
	}
	known := []string{"name", "description", "homepage", "licenses", "languages", "categories", "deprecation", "source", "schemas", "bin", "share", "opt", "neovim", "ci_skip"}
	for key := range top {
		if !slices.Contains(known, key) {
			fail("unknown top-level field %q", key)
		}
	}
	for _, key := range []string{"name", "description", "homepage", "licenses", "languages", "categories", "source"} {
		if _, ok := top[key]; !ok {
			fail("missing required field %q", key)
		}
	}
	// bin.json: an object of names to strings; said here, where the
	// decoding below would only name a line.
	if v, ok := top["bin"]; ok {
		bin, isObject := v.(map[string]any)
		if !isObject {
			fail("bin must be an object of names to paths, is %T", v)
		}
		for name, path := range bin {
			if _, ok := path.(string); !ok {
				fail("bin %q must be a string, is %T", name, path)
			}
		}
	}
	var pkg masonPackage
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&pkg); err != nil {
		return append(errs, fmt.Sprintf("does not decode as a package: %v", err))
	}
	if pkg.Name != "gemini-ls" {
		fail("name %q: the registry's folder is packages/gemini-ls, and registry-lint wants the name its folder's", pkg.Name)
	}
	// registry-lint does not read the name as YAML but with sed -nE
	// 's/name: (.+)$/\1/p': from every line holding "name: ", that text
	// cut out; what it prints must be the folder's name, so a quoted name
	// or another "name: " anywhere is refused.
	var sedName []string
	for _, line := range strings.Split(string(data), "\n") {
		if before, after, ok := strings.Cut(line, "name: "); ok && after != "" {
			sedName = append(sedName, before+after)
		}
	}
	if got := strings.Join(sedName, "\n"); got != "gemini-ls" {
		fail("registry-lint's sed reads the name as %q, not the folder's gemini-ls", got)
	}
	if pkg.Description == "" {
		fail("description is empty")
	}
	for _, line := range strings.Split(pkg.Description, "\n") {
		if len(line) > 120 {
			fail("description line over 120 characters: %q", line)
		}
	}
	if !regexp.MustCompile(`^https?://`).MatchString(pkg.Homepage) || pkg.Homepage != repository {
		fail("homepage %q must be %s", pkg.Homepage, repository)
	}
	if len(pkg.Licenses) == 0 {
		fail("licenses must name at least one")
	}
	for _, l := range pkg.Licenses {
		if !regexp.MustCompile(`^[a-zA-Z0-9-.:]+\+?(?: +(?:WITH|AND|OR) +[a-zA-Z0-9-.:]+\+?)*$`).MatchString(l) {
			fail("license %q is no SPDX expression", l)
		}
	}
	for _, c := range pkg.Categories {
		if !slices.Contains([]string{"Compiler", "DAP", "Formatter", "LSP", "Linter", "Runtime"}, c) {
			fail("unknown category %q", c)
		}
	}
	if !slices.Contains(pkg.Categories, "LSP") {
		fail("categories must hold LSP: gemini-ls is a language server")
	}

	// The github release source: a purl with the release's tag.
	if !regexp.MustCompile(`^pkg:github/.+/.+@.+`).MatchString(pkg.Source.ID) {
		fail("source.id %q is not pkg:github/OWNER/REPO@VERSION", pkg.Source.ID)
	}
	if want := "pkg:github/gemini-ls/gemini-ls@v" + version; pkg.Source.ID != want {
		fail("source.id %q, want %q: the release of the version the server reports", pkg.Source.ID, want)
	}
	platforms := []string{"unix", "darwin", "darwin_arm64", "darwin_x64", "linux", "linux_arm", "linux_arm64", "linux_arm64_gnu", "linux_arm64_musl", "linux_arm64_openbsd", "linux_arm_gnu", "linux_armv6_gnu", "linux_armv6l", "linux_armv7_gnu", "linux_armv7l", "linux_x64", "linux_x64_gnu", "linux_x64_musl", "linux_x64_openbsd", "linux_x86", "linux_x86_gnu", "linux_x86_musl", "linux_x86_openbsd", "win", "win_arm", "win_arm64", "win_armv6l", "win_armv7l", "win_x64", "win_x86"}
	assets := map[string]masonAsset{}
	for _, a := range pkg.Source.Asset {
		if !slices.Contains(platforms, a.Target) {
			fail("asset target %q is no mason platform", a.Target)
		}
		if a.File == "" {
			fail("asset %q has no file", a.Target)
		}
		assets[a.Target] = a
	}
	for _, p := range ps {
		a, ok := assets[masonTarget(p)]
		if !ok {
			fail("make dist builds %s/%s, but no asset has target %s", p.goos, p.goarch, masonTarget(p))
			continue
		}
		if a.File != p.archive() {
			fail("%s: file %q, but make dist's archive is %s", a.Target, a.File, p.archive())
		}
		if a.Bin != p.exe() {
			fail("%s: bin %q, but the archive holds %s at its top", a.Target, a.Bin, p.exe())
		}
	}
	if len(assets) != len(pkg.Source.Asset) || len(assets) != len(ps) {
		fail("%d assets for %d targets; make dist builds %d", len(pkg.Source.Asset), len(assets), len(ps))
	}

	// bin: the executable, by the asset's own bin.
	if len(pkg.Bin) != 1 || pkg.Bin["gemini-ls"] != "{{source.asset.bin}}" {
		fail(`bin %v must be {gemini-ls: "{{source.asset.bin}}"}`, pkg.Bin)
	}
	for name := range pkg.Bin {
		if !regexp.MustCompile(`^[a-zA-Z0-9_\-\.]+$`).MatchString(name) {
			fail("bin name %q does not match the schema", name)
		}
	}
	// neovim.lspconfig: the config nvim-lspconfig would take, which
	// editors/nvim/lsp/ ships under the same name.
	if _, err := os.Stat(filepath.Join(repoRoot, "editors", "nvim", "lsp", pkg.Neovim.Lspconfig+".lua")); pkg.Neovim.Lspconfig == "" || err != nil {
		fail("neovim.lspconfig %q names no editors/nvim/lsp/<name>.lua", pkg.Neovim.Lspconfig)
	}
	return errs
}

// TestMasonMutations feeds masonErrors faulty copies of package.yaml.
func TestMasonMutations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("mason", "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ps, version := distPlatforms(t), sourceVersion(t)
	good := func() string { return string(data) }
	validate := func(s string) []string { return masonErrors([]byte(s), ps, version) }
	winX64 := "    - target: win_x64\n      file: gemini-ls-windows-amd64.zip\n      bin: gemini-ls.exe\n"
	testMutations(t, good, validate, []mutation[string]{
		{"no homepage", replace("\nhomepage: ", "\n# homepage: "), `missing required field "homepage"`},
		{"no languages", replace("\nlanguages: []\n", "\n"), `missing required field "languages"`},
		{"source.id of another version", replace("@v"+version+"\n", "@v9.9.9\n"),
			`source.id "pkg:github/gemini-ls/gemini-ls@v9.9.9", want`},
		{"no win_x64 target", replace(winX64, ""), "no asset has target win_x64"},
		{"unknown target", replace("target: win_x64", "target: windows_x64"), `asset target "windows_x64" is no mason platform`},
		{"unknown key", replace("\nhomepage: ", "\nversion: "+version+"\nhomepage: "), `unknown top-level field "version"`},
		{"bin a list", replace("\n  gemini-ls: \"{{source.asset.bin}}\"\n", "\n  - gemini-ls\n"), "bin must be an object of names to paths, is []interface {}"},
		{"bin path an object", replace(`"{{source.asset.bin}}"`, `{path: "{{source.asset.bin}}"}`), `bin "gemini-ls" must be a string`},
		{"bin of another path", replace("{{source.asset.bin}}", "{{source.asset.file}}"), `bin map[gemini-ls:{{source.asset.file}}] must be`},
		{"name quoted", replace("\nname: gemini-ls\n", "\nname: \"gemini-ls\"\n"), `registry-lint's sed reads the name as "\"gemini-ls\""`},
		{"another name: line", replace("\nhomepage: ", "\n# The package's name: gemini-ls\nhomepage: "), "registry-lint's sed reads the name as"},
		{"CRLF", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }, "CRLF characters in the file"},
		{"no YAML header", replace("---\n", ""), "must start with the YAML header ---"},
		{"license no SPDX expression", replace("- Apache-2.0", "- Apache 2.0"), `license "Apache 2.0" is no SPDX expression`},
	})
}
