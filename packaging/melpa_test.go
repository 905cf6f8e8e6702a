package packaging

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The rules below are melpa/melpa's at commit
// fa4a6c0d3e91acdf258317e325ad037a472887ec: package-build's
// package-recipe--validate (package-build/package-recipe.el) and the
// recipe format of its README.md (a forge fetcher takes :repo, not :url;
// :files globs copied into the package's root).

// sexp is a read Lisp object: a symbol, a string or a list.
type sexp struct {
	symbol string // a symbol's name (":files" for a keyword)
	str    *string
	list   []sexp
	isList bool
}

func (s sexp) keyword() bool { return strings.HasPrefix(s.symbol, ":") }

// readSexp reads one Lisp object from src, as Emacs's read does for the
// recipes' subset (lists, strings, symbols), and returns it and the rest.
func readSexp(src string) (sexp, string, error) {
	src = strings.TrimLeftFunc(src, unicode.IsSpace)
	for strings.HasPrefix(src, ";") {
		_, src, _ = strings.Cut(src, "\n")
		src = strings.TrimLeftFunc(src, unicode.IsSpace)
	}
	switch {
	case src == "":
		return sexp{}, "", errors.New("end of input")
	case src[0] == '(':
		var s sexp
		s.isList = true
		rest := src[1:]
		for {
			rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
			if strings.HasPrefix(rest, ")") {
				return s, rest[1:], nil
			}
			item, r, err := readSexp(rest)
			if err != nil {
				return sexp{}, "", err
			}
			s.list = append(s.list, item)
			rest = r
		}
	case src[0] == ')':
		return sexp{}, "", errors.New("unbalanced )")
	case src[0] == '"':
		var b strings.Builder
		for i := 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
				if i < len(src) {
					b.WriteByte(src[i])
				}
			case '"':
				str := b.String()
				return sexp{str: &str}, src[i+1:], nil
			default:
				b.WriteByte(src[i])
			}
		}
		return sexp{}, "", errors.New("unterminated string")
	default:
		end := strings.IndexFunc(src, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' })
		if end < 0 {
			end = len(src)
		}
		return sexp{symbol: src[:end]}, src[end:], nil
	}
}

// recipeErrors is package-recipe--validate on the recipe text, for the
// package name, plus what MELPA's README asks of a github recipe.
func recipeErrors(text, name string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	recipe, rest, err := readSexp(text)
	if err != nil {
		return []string{fmt.Sprintf("the recipe does not read: %v", err)}
	}
	if strings.TrimSpace(rest) != "" {
		fail("more than one form in the recipe: %q", rest)
	}
	if !recipe.isList || len(recipe.list) == 0 || recipe.list[0].symbol == "" || recipe.list[0].keyword() {
		return append(errs, "must begin with symbol, naming the package")
	}
	if recipe.list[0].symbol != name {
		fail("mismatched package name %s vs. %s", name, recipe.list[0].symbol)
	}
	plist := recipe.list[1:]
	if len(plist) == 0 {
		return append(errs, "recipe cannot be empty")
	}
	if len(plist)%2 != 0 {
		return append(errs, "the properties after the name must come in pairs")
	}
	symbolKeys := []string{":fetcher"}
	stringKeys := []string{":url", ":repo", ":branch", ":tag", ":commit", ":version-regexp", ":shell-command"}
	listKeys := []string{":files", ":make-targets", ":org-exports", ":old-names"}
	props := map[string]sexp{}
	for i := 0; i < len(plist); i += 2 {
		key, val := plist[i].symbol, plist[i+1]
		switch {
		case slices.Contains(symbolKeys, key):
			if val.symbol == "" {
				fail("%s must be a symbol", key)
			}
		case slices.Contains(stringKeys, key):
			if val.str == nil {
				fail("%s must be a string", key)
			}
		case slices.Contains(listKeys, key):
			if !val.isList && val.symbol != "nil" {
				fail("%s must be a list", key)
			}
		default:
			fail("unknown keyword %s", plist[i].symbol)
		}
		props[key] = val
	}
	forges := []string{"github", "gitlab", "codeberg", "sourcehut"}
	fetcher := props[":fetcher"].symbol
	switch {
	case fetcher == "":
		fail(":fetcher is missing")
	case slices.Contains(forges, fetcher):
		if props[":repo"].str == nil {
			fail(":repo is missing")
		}
		if _, ok := props[":url"]; ok {
			fail(":url is redundant")
		}
	case props[":url"].str == nil:
		fail(":url is missing")
	}
	if fetcher != "github" {
		fail(":fetcher is %s: gemini-ls is on GitHub", fetcher)
	}
	if repo := props[":repo"].str; repo != nil && "https://github.com/"+*repo != repository {
		fail(":repo %q is not %s", *repo, repository)
	}
	// :files: :defaults only first; strings other than "*"; lists of
	// globs led by a string or :exclude, :inputs or :rename.
	files := props[":files"].list
	if len(files) > 0 && files[0].symbol == ":defaults" {
		files = files[1:]
	}
	for _, entry := range files {
		ok := false
		switch {
		case entry.str != nil:
			ok = *entry.str != "*"
		case entry.isList && len(entry.list) > 1:
			head := entry.list[0]
			ok = head.str != nil || slices.Contains([]string{":exclude", ":inputs", ":rename"}, head.symbol)
			for _, glob := range entry.list[1:] {
				ok = ok && glob.str != nil && *glob.str != "*"
			}
		}
		if !ok {
			fail("invalid files spec entry %v", entry)
		}
	}
	return errs
}

// recipeFiles is what the recipe's :files (plain globs only, as ours
// are) copies into the package, from the checkout at root.
func recipeFiles(text, root string) ([]string, error) {
	recipe, _, err := readSexp(text)
	if err != nil {
		return nil, err
	}
	var files []string
	for i := 1; i+1 < len(recipe.list); i += 2 {
		if recipe.list[i].symbol != ":files" {
			continue
		}
		for _, glob := range recipe.list[i+1].list {
			if glob.str == nil {
				return nil, fmt.Errorf("only plain globs are checked here, not %v", glob)
			}
			matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(*glob.str)))
			if err != nil || len(matches) == 0 {
				return nil, fmt.Errorf("%q matches no file in the checkout", *glob.str)
			}
			files = append(files, matches...)
		}
	}
	return files, nil
}

// packageModules are the files of the package's modules that the main
// library at root requires: "gemini-ls-chat.el", ...
func packageModules(root string) ([]string, error) {
	main, err := os.ReadFile(filepath.Join(root, "editors", "emacs", "gemini-ls.el"))
	if err != nil {
		return nil, fmt.Errorf("reading the main library for its modules: %w", err)
	}
	var modules []string
	for _, m := range requireRE.FindAllStringSubmatch(string(main), -1) {
		modules = append(modules, m[1]+".el")
	}
	return modules, nil
}

// requireRE matches a top-level require of one of the package's modules.
var requireRE = regexp.MustCompile(`(?m)^\(require '(gemini-ls-[a-z-]+)\)`)

// recipeFilesErrors holds the recipe's :files, expanded in the checkout
// at root, to the package MELPA must build: the main library,
// gemini-ls.el, which package-build reads the package's metadata from,
// every module it requires, and no test file nor -pkg.el.
func recipeFilesErrors(text, root string) []string {
	files, err := recipeFiles(text, root)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if !slices.Contains(names, "gemini-ls.el") {
		errs = append(errs, fmt.Sprintf(":files copies %v, without the main library gemini-ls.el", names))
	}
	modules, err := packageModules(root)
	if err != nil {
		return append(errs, err.Error())
	}
	for _, m := range modules {
		if !slices.Contains(names, m) {
			errs = append(errs, fmt.Sprintf(":files copies %v, without the module %s that gemini-ls.el requires", names, m))
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, "-test.el") || strings.HasSuffix(f, "-tests.el") || strings.HasSuffix(f, "-pkg.el") {
			errs = append(errs, fmt.Sprintf(":files copies %s, which MELPA's package must not carry", f))
		}
	}
	return errs
}

// TestMelpaRecipe holds the recipe to package-build's validation, and
// its :files to the package MELPA must build.
func TestMelpaRecipe(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("melpa", "gemini-ls"))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range recipeErrors(string(data), "gemini-ls") {
		t.Error(err)
	}
	for _, err := range recipeFilesErrors(string(data), repoRoot) {
		t.Error(err)
	}
}

// TestMelpaRecipeMutations feeds recipeErrors and recipeFilesErrors
// faulty copies of the recipe.
func TestMelpaRecipeMutations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("melpa", "gemini-ls"))
	if err != nil {
		t.Fatal(err)
	}
	good := func() string { return string(data) }
	validate := func(s string) []string {
		return append(recipeErrors(s, "gemini-ls"), recipeFilesErrors(s, repoRoot)...)
	}
	lib := `"editors/emacs/gemini-ls*.el"`
	test := `"editors/emacs/test/gemini-ls-test.el"`
	testMutations(t, good, validate, []mutation[string]{
		{"gitlab fetcher", replace(":fetcher github", ":fetcher gitlab"), ":fetcher is gitlab: gemini-ls is on GitHub"},
		{"git fetcher", replace(":fetcher github", ":fetcher git"), ":url is missing"},
		{":url beside :repo", replace(":repo ", `:url "`+repository+`" :repo `), ":url is redundant"},
		{"another repository", replace(`:repo "gemini-ls/gemini-ls"`, `:repo "someone/gemini-ls"`), `:repo "someone/gemini-ls" is not`},
		{"another package", replace("(gemini-ls ", "(gemini "), "mismatched package name gemini-ls vs. gemini"},
		{"unknown keyword", replace(":files", ":file"), "unknown keyword :file"},
		{":files with a test file", replace(lib, lib+" "+test), "gemini-ls-test.el, which MELPA's package must not carry"},
		{":files without the main library", replace(lib, test), "without the main library gemini-ls.el"},
		{":files of the main library alone", replace(lib, `"editors/emacs/gemini-ls.el"`), "without the module gemini-ls-chat.el that gemini-ls.el requires"},
		{":files of *", replace(lib, `"*"`), `invalid files spec entry`},
		{":files of nothing", replace(lib, `"editors/emacs/nothing.el"`), `"editors/emacs/nothing.el" matches no file in the checkout`},
	})
}
