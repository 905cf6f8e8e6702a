package packaging

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// readmeLink is a link or an image of a Markdown text: its target as
// written and whether it is an image.
type readmeLink struct {
	target string
	image  bool
}

// readmeLinks are markdown's inline links and images ([t](u), ![a](u),
// [![a](img)](u)), its reference definitions ([t]: u) and its HTML src and
// href attributes, found more loosely than the packaging rewrites them, so
// that a link the rewriting misses is still checked.
func readmeLinks(markdown string) []readmeLink {
	var links []readmeLink
	inline := regexp.MustCompile(`(!?)\[[^\[\]]*\]\(\s*<?([^()\s>]+)`)
	for _, m := range inline.FindAllStringSubmatch(markdown, -1) {
		links = append(links, readmeLink{target: m[2], image: m[1] == "!"})
	}
	nested := regexp.MustCompile(`\[!\[[^\[\]]*\]\([^()\s]+\)\]\(\s*<?([^()\s>]+)`)
	for _, m := range nested.FindAllStringSubmatch(markdown, -1) {
		links = append(links, readmeLink{target: m[1]})
	}
	reference := regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)`)
	for _, m := range reference.FindAllStringSubmatch(markdown, -1) {
		links = append(links, readmeLink{target: m[1]})
	}
	attribute := regexp.MustCompile(`(?i)<(img|a)\s[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)`)
	for _, m := range attribute.FindAllStringSubmatch(markdown, -1) {
		links = append(links, readmeLink{target: m[2], image: strings.EqualFold(m[1], "img")})
	}
	return links
}

// headingAnchors are the fragments the headings of markdown get on a
// rendered page: lower case, spaces made hyphens, punctuation dropped.
func headingAnchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	heading := regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	for _, m := range heading.FindAllStringSubmatch(markdown, -1) {
		slug := drop.ReplaceAllString(strings.ToLower(m[1]), "")
		anchors[strings.ReplaceAll(slug, " ", "-")] = true
	}
	return anchors
}

// packagedReadmeErrors holds the README inside a .vsix, the page the
// Marketplace and Open VSX show, to links that lead somewhere from there:
// a fragment names a heading of it; a link into this repository is an
// absolute URL of the packaged commit, raw for an image (GitHub's page of
// a picture is no picture), whose clean path names a file or folder
// there (kind says what commit:path is: "blob", "tree" or "" when
// missing); nothing is relative, since the page has no folder to be
// relative to.
func packagedReadmeErrors(readme, commit string, kind func(path string) string) []string {
	var errs []string
	anchors := headingAnchors(readme)
	for _, l := range readmeLinks(readme) {
		if err := packagedLinkError(l, commit, anchors, kind); err != "" {
			errs = append(errs, fmt.Sprintf("%s: %s", l.target, err))
		}
	}
	return errs
}

// packagedLinkError is what is wrong with one link of the packaged README,
// or "".
func packagedLinkError(l readmeLink, commit string, anchors map[string]bool, kind func(string) string) string {
	target, fragment, _ := strings.Cut(l.target, "#")
	switch {
	case target == "":
		if !anchors[fragment] {
			return "no heading of the README has this anchor"
		}
		return ""
	case strings.HasPrefix(target, repository+"/"):
		return repositoryLinkError(strings.TrimPrefix(target, repository+"/"), l.image, commit, kind)
	case strings.HasPrefix(target, "https://"), strings.HasPrefix(target, "mailto:"):
		return "" // another site: nothing here reaches it
	case strings.HasPrefix(target, "http://"):
		return "plain http: the Marketplace shows only https"
	default:
		return "a relative link: on the Marketplace's page it resolves to nothing"
	}
}

// repositoryLinkError checks rest, a link's path after the repository's
// URL: "raw/COMMIT/PATH" for an image, "blob/COMMIT/PATH" or
// "tree/COMMIT/PATH" for a page.
func repositoryLinkError(rest string, image bool, commit string, kind func(string) string) string {
	view, rest, _ := strings.Cut(rest, "/")
	ref, file, _ := strings.Cut(rest, "/")
	switch {
	case image && view != "raw":
		return fmt.Sprintf("an image at GitHub's %s/ view, a page rather than the picture: raw/", view)
	case !image && view != "blob" && view != "tree" && view != "raw":
		return fmt.Sprintf("GitHub's %s/ view of the repository, not a file's", view)
	case ref != commit:
		return fmt.Sprintf("at %s, not the packaged commit %s: a branch moves under a published page", ref, commit)
	case file == "" || path.Clean(file) != file || strings.HasPrefix(file, "../"):
		return fmt.Sprintf("the path %q is not clean: a URL's .. segments are not resolved for it", file)
	}
	switch k := kind(file); {
	case k == "":
		return fmt.Sprintf("%s is not in the repository at %s", file, commit)
	case k != "blob" && (image || view == "raw"):
		return fmt.Sprintf("%s is a %s, not a file", file, k)
	}
	return ""
}

// TestVSCodePackagedReadme packages the extension as `make vsix` does
// (editors/vscode/scripts/package.sh, into a temporary folder) and holds
// the README inside the .vsix to packagedReadmeErrors, against this
// checkout's HEAD as git has it, and to carrying every link of
// editors/vscode/README.md.
func TestVSCodePackagedReadme(t *testing.T) {
	platformtest.UnixShell(t) // package.sh is bash, which make dist and the release run on Linux
	for _, tool := range []string{"bash", "git", "node", "npm"} {
		platformtest.Tool(t, tool)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // npm ci and vsce on a loaded machine
	defer cancel()
	commit := strings.TrimSpace(gitOutput(t, ctx, "rev-parse", "HEAD"))
	out := t.TempDir()
	pack := exec.CommandContext(ctx, "bash", filepath.Join(repoRoot, "editors", "vscode", "scripts", "package.sh"), "-o", out)
	if output, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("package.sh: %v\n%s", err, output)
	}
	packaged := vsixFile(t, filepath.Join(out, "gemini-ls.vsix"), "extension/readme.md")
	kind := func(file string) string {
		k, err := exec.CommandContext(ctx, "git", "-C", repoRoot, "cat-file", "-t", commit+":"+file).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(k))
	}
	for _, err := range packagedReadmeErrors(packaged, commit, kind) {
		t.Error(err)
	}
	source, err := os.ReadFile(filepath.Join(repoRoot, "editors", "vscode", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(readmeLinks(packaged)), len(readmeLinks(string(source))); got != want || want == 0 {
		t.Errorf("the packaged README has %d links, README.md %d", got, want)
	}
}

// gitOutput is git's standard output for args in the checkout.
func gitOutput(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", repoRoot}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// vsixFile is the text of name inside the .vsix (a zip) at vsix.
func vsixFile(t *testing.T, vsix, name string) string {
	t.Helper()
	r, err := zip.OpenReader(vsix)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", vsix, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("%s: reading %s: %v", vsix, name, err)
	}
	return string(data)
}

// TestVSCodePackagedReadmeMutations feeds packagedReadmeErrors READMEs
// with each kind of broken link.
func TestVSCodePackagedReadmeMutations(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	files := map[string]string{"docs/shot.png": "blob", "docs/configuration.md": "blob", "docs": "tree"}
	kind := func(file string) string { return files[file] }
	at := func(view, file string) string { return repository + "/" + view + "/" + commit + "/" + file }
	good := func() string {
		return "# Title\n\n## Code intelligence\n\n" +
			"![A shot](" + at("raw", "docs/shot.png") + ")\n" +
			"[Settings](" + at("blob", "docs/configuration.md") + "#completion), [docs](" + at("tree", "docs") + "),\n" +
			"[below](#code-intelligence), [a key](https://aistudio.google.com/apikey), [mail](mailto:a@example.com)\n" +
			"[![A shot](" + at("raw", "docs/shot.png") + ")](" + at("blob", "docs/shot.png") + ")\n"
	}
	validate := func(readme string) []string { return packagedReadmeErrors(readme, commit, kind) }
	testMutations(t, good, validate, []mutation[string]{
		{"relative image", replace(at("raw", "docs/shot.png"), "../../docs/shot.png"), "a relative link"},
		{"relative link", replace(at("blob", "docs/configuration.md"), "../../docs/configuration.md"), "a relative link"},
		{"unresolved ..", replace(at("raw", "docs/shot.png"), at("raw", "editors/vscode/../../docs/shot.png")), "is not clean"},
		{"vsce's HEAD join", replace(at("raw", "docs/shot.png"), repository+"/raw/HEAD/../../docs/shot.png"), "not the packaged commit"},
		{"a branch", replace(at("blob", "docs/configuration.md"), repository+"/blob/main/docs/configuration.md"), "not the packaged commit"},
		{"missing file", replace(at("raw", "docs/shot.png"), at("raw", "docs/gone.png")), "docs/gone.png is not in the repository"},
		{"image as a page", replace(at("raw", "docs/shot.png"), at("blob", "docs/shot.png")), "an image at GitHub's blob/ view"},
		{"missing anchor", replace("(#code-intelligence)", "(#code-intel)"), "no heading of the README has this anchor"},
		{"plain http", replace("https://aistudio", "http://aistudio"), "plain http"},
		{"reference definition", func(s string) string { return s + "\n[ref]: docs/other.md\n" }, "a relative link"},
		{"html image", func(s string) string { return s + `<img src="media/icon.png">` }, "a relative link"},
		{"nested link", replace(")]("+at("blob", "docs/shot.png"), ")](docs/shot.png"), "a relative link"},
		{"raw folder", replace(at("tree", "docs"), at("raw", "docs")), "docs is a tree, not a file"},
	})
}
