// Package lazyregexp is a regular expression compiled on its first use
// rather than at package initialisation. gemini-ls has dozens of
// expressions, each for one feature (front matter, extension consent,
// dotenv files, slash commands…), and a run uses few of them: compiled by
// regexp.MustCompile in package variables, every start-up paid for all of
// them (docs/benchmarks.md, issue 44).
//
// New called in a package variable's declaration is initialised by the
// linker, with no code run at start-up.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled (regexp.MustCompile) when one of
// its methods is first called; an invalid expression panics then.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns expr as a Regexp, not yet compiled.
func New(expr string) *Regexp {
	return &Regexp{expr: expr}
}

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// The methods below are regexp.Regexp's of the same names.

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}

func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }

func (r *Regexp) String() string { return r.expr }
