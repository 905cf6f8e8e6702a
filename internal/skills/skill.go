package skills

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/frontmatter"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// maxFileSize bounds the SKILL.md read: its body goes to the model whole.
const maxFileSize = 1 << 20

// Skill is one discovered skill, as Gemini CLI's SkillDefinition.
type Skill struct {
	// Name is the front matter's name, with the characters a file name
	// cannot hold replaced by -.
	Name        string
	Description string
	// Location is the SKILL.md's absolute path.
	Location string
	// Body is the instructions: the text after the front matter, trimmed.
	Body string
	// Disabled: skills.disabled names it.
	Disabled bool
	// Extension is the name of the extension that provides the skill; ""
	// for the user's and the workspace's.
	Extension string
}

// Dir is the skill's directory: its resources.
func (s Skill) Dir() string { return filepath.Dir(s.Location) }

// unsafeNameChars are what Gemini CLI replaces in a name, which it uses
// as a file name.
var unsafeNameChars = lazyregexp.New(`[:\\/<>*?"|]`)

// errNoFrontMatter and errNoFields say why a SKILL.md is not a skill.
var (
	errNoFrontMatter = errors.New("it does not begin with front matter: a --- line, the name: and description: lines, and a --- line")
	errNoFields      = errors.New("its front matter lacks a name or a description")
)

// Load reads the skill at path, a SKILL.md.
func Load(path string) (Skill, error) {
	content, err := readFile(path)
	if err != nil {
		return Skill{}, err
	}
	return Parse(path, content)
}

// Parse reads content, the text of the SKILL.md at path.
func Parse(path, content string) (Skill, error) {
	front, body, found := frontmatter.Split(content)
	if !found {
		return Skill{}, errNoFrontMatter
	}
	name, description, ok := parseFrontMatter(front)
	if !ok {
		return Skill{}, errNoFields
	}
	return Skill{
		Name:        unsafeNameChars.ReplaceAllString(name, "-"),
		Description: description,
		Location:    path,
		Body:        strings.TrimSpace(body),
	}, nil
}

func readFile(path string) (string, error) {
	data, err := safefile.Read(path, maxFileSize)
	if err != nil {
		return "", err
	}
	return string(data), nil
}
