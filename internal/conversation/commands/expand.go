package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// Invocation is how a command was called.
type Invocation struct {
	Name string // the command's name, without "/"
	Raw  string // the prompt as typed, trimmed: "/name args"
	Args string // what followed the name, its white space runs one space
}

// Parse splits a prompt that starts with "/" into the command it names
// and its arguments, as Gemini CLI's parseSlashCommand does; ok is false
// for a prompt that does not start with "/".
func Parse(prompt string) (inv Invocation, ok bool) {
	raw := strings.TrimSpace(prompt)
	rest, ok := strings.CutPrefix(raw, "/")
	if !ok {
		return Invocation{}, false
	}
	words := strings.FieldsFunc(rest, isSpace)
	if len(words) == 0 {
		return Invocation{Raw: raw}, true
	}
	return Invocation{Name: words[0], Raw: raw, Args: strings.Join(words[1:], " ")}, true
}

// Shell confirms and runs the commands of a prompt's !{…} injections, in
// the command's workspace, as run_shell_command would be.
type Shell interface {
	// Confirm asks whether every one of commands may run, and answers nil
	// only if all may; else an error saying which was declined or
	// refused and why (wrapping ErrDeclined when the user declined).
	Confirm(ctx context.Context, commands []string) error
	// Run runs a confirmed command. err is for a command that could not
	// be started; a command that ran and failed is told in the result.
	Run(ctx context.Context, command string) (ShellResult, error)
	// Quote is arg as one literal word of the shell's command lines.
	Quote(arg string) string
}

// ErrDeclined is the user's no to a command.
var ErrDeclined = errors.New("declined")

// ShellResult is what a !{…} command did.
type ShellResult struct {
	// Output is what it wrote, stdout and stderr as they came.
	Output   string
	ExitCode int
	Signal   string // the signal that ended it, "" for none
	Aborted  bool   // cancelled before it ended
}

// Files reads what a prompt's @{path} injections name.
type Files interface {
	// Read gives the parts the model is sent for path (a file or, below
	// it, a directory's files), none when ignore files ignore it, or an
	// error saying why it cannot be read.
	Read(ctx context.Context, path string) ([]*genai.Part, error)
}

// Expansion is a command's prompt made ready for the model.
type Expansion struct {
	Parts []*genai.Part
	// Notes are for the user, not the model: @{…} injections that read
	// nothing or failed (those stay in the prompt as written).
	Notes []string
}

// Text is the expansion's text parts, joined.
func (e Expansion) Text() string {
	var b strings.Builder
	for _, p := range e.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// segment is a piece of the prompt under expansion; injected pieces (a
// file's text) are data and are not expanded further.
type segment struct {
	part     *genai.Part
	injected bool
}

// Expand makes the prompt the model is sent for the command called as
// inv, running Gemini CLI's processors in its order: @{…}, then {{args}}
// with !{…}, then the default argument handling. An error leaves nothing
// run: a !{…} declined, refused or not started, or an unclosed injection.
func (c Custom) Expand(ctx context.Context, inv Invocation, sh Shell, files Files) (Expansion, error) {
	segs := []segment{{part: genai.NewPartFromText(c.Prompt)}}
	var notes []string
	if strings.Contains(c.Prompt, fileTrigger) {
		var err error
		if segs, notes, err = c.injectFiles(ctx, segs, files); err != nil {
			return Expansion{}, err
		}
	}
	usesArgs := strings.Contains(c.Prompt, argsPlaceholder)
	if usesArgs || strings.Contains(c.Prompt, shellTrigger) {
		var err error
		if segs, err = c.injectShell(ctx, segs, inv.Args, sh); err != nil {
			return Expansion{}, err
		}
	}
	parts := make([]*genai.Part, 0, len(segs))
	for _, s := range segs {
		parts = append(parts, s.part)
	}
	if !usesArgs && inv.Args != "" {
		parts = appendToLastText(parts, inv.Raw)
	}
	return Expansion{Parts: parts, Notes: notes}, nil
}

// appendToLastText adds text after a blank line to the last part, or as a
// part of its own when the last is not text, as Gemini CLI's
// appendToLastTextPart does.
func appendToLastText(parts []*genai.Part, text string) []*genai.Part {
	const sep = "\n\n"
	if len(parts) == 0 {
		return []*genai.Part{genai.NewPartFromText(text)}
	}
	last := parts[len(parts)-1]
	if last.InlineData != nil || last.FileData != nil {
		return append(parts, genai.NewPartFromText(sep+text))
	}
	parts[len(parts)-1] = genai.NewPartFromText(last.Text + sep + text)
	return parts
}

// injectFiles replaces each @{path} with what files reads for it. One that
// reads nothing (ignored) goes, with a note; one that fails stays as
// written, with a note, as in Gemini CLI.
func (c Custom) injectFiles(ctx context.Context, segs []segment, files Files) ([]segment, []string, error) {
	var out []segment
	var notes []string
	for _, s := range segs {
		if s.injected || !strings.Contains(s.part.Text, fileTrigger) {
			out = append(out, s)
			continue
		}
		text := s.part.Text
		found, err := extractInjections(text, fileTrigger, c.Name)
		if err != nil {
			return nil, nil, err
		}
		last := 0
		for _, in := range found {
			if prefix := text[last:in.start]; prefix != "" {
				out = append(out, segment{part: genai.NewPartFromText(prefix)})
			}
			last = in.end
			if files == nil {
				notes = append(notes, fmt.Sprintf("Failed to inject content for '@{%s}': no workspace to read it from", in.content))
				out = append(out, segment{part: genai.NewPartFromText(text[in.start:in.end])})
				continue
			}
			parts, err := files.Read(ctx, in.content)
			switch {
			case err != nil:
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				notes = append(notes, fmt.Sprintf("Failed to inject content for '@{%s}': %v", in.content, err))
				out = append(out, segment{part: genai.NewPartFromText(text[in.start:in.end])})
			case len(parts) == 0:
				notes = append(notes, fmt.Sprintf("File '@{%s}' was ignored by .gitignore or .geminiignore and was not included in the prompt.", in.content))
			}
			for _, p := range parts {
				out = append(out, segment{part: p, injected: true})
			}
		}
		if suffix := text[last:]; suffix != "" {
			out = append(out, segment{part: genai.NewPartFromText(suffix)})
		}
	}
	return out, notes, nil
}

// shellRun is one !{…} of a text segment, its {{args}} quoted in.
type shellRun struct {
	injection
	command string // "" for an empty !{}, which runs nothing
}

// injectShell substitutes {{args}} (as typed outside !{…}, shell-quoted
// inside) and replaces each !{…} with its command's output, once every
// command is confirmed.
func (c Custom) injectShell(ctx context.Context, segs []segment, args string, sh Shell) ([]segment, error) {
	runs := make([][]shellRun, len(segs))
	var toConfirm []string
	seen := map[string]bool{}
	for i, s := range segs {
		if s.injected || s.part.Text == "" || !strings.Contains(s.part.Text, shellTrigger) {
			continue
		}
		found, err := extractInjections(s.part.Text, shellTrigger, c.Name)
		if err != nil {
			return nil, err
		}
		quoted := ""
		if sh != nil {
			quoted = sh.Quote(args)
		}
		for _, in := range found {
			r := shellRun{injection: in}
			if in.content != "" {
				r.command = strings.ReplaceAll(in.content, argsPlaceholder, quoted)
				if !seen[r.command] {
					seen[r.command] = true
					toConfirm = append(toConfirm, r.command)
				}
			}
			runs[i] = append(runs[i], r)
		}
	}
	if len(toConfirm) > 0 {
		if sh == nil {
			return nil, fmt.Errorf("%s cannot run its shell commands here: %s", c.Name, strings.Join(toConfirm, "; "))
		}
		if err := sh.Confirm(ctx, toConfirm); err != nil {
			return nil, fmt.Errorf("its shell commands were not allowed: %w", err)
		}
	}
	out := make([]segment, len(segs))
	for i, s := range segs {
		if s.injected || s.part.InlineData != nil || s.part.FileData != nil {
			out[i] = s
			continue
		}
		text, err := c.runShell(ctx, s.part.Text, runs[i], args, sh)
		if err != nil {
			return nil, err
		}
		out[i] = segment{part: genai.NewPartFromText(text)}
	}
	return out, nil
}

// runShell writes text with each run's output in place of its !{…} and
// {{args}} as typed elsewhere.
func (c Custom) runShell(ctx context.Context, text string, runs []shellRun, args string, sh Shell) (string, error) {
	var b strings.Builder
	last := 0
	for _, r := range runs {
		b.WriteString(strings.ReplaceAll(text[last:r.start], argsPlaceholder, args))
		last = r.end
		if r.command == "" {
			continue
		}
		res, err := sh.Run(ctx, r.command)
		if err != nil {
			return "", fmt.Errorf("failed to start shell command in '%s': %w. Command: %s", c.Name, err, r.command)
		}
		b.WriteString(res.Output)
		switch {
		case res.Aborted:
			fmt.Fprintf(&b, "\n[Shell command '%s' aborted]", r.command)
		case res.Signal != "":
			fmt.Fprintf(&b, "\n[Shell command '%s' terminated by signal %s]", r.command, res.Signal)
		case res.ExitCode != 0:
			fmt.Fprintf(&b, "\n[Shell command '%s' exited with code %d]", r.command, res.ExitCode)
		}
	}
	b.WriteString(strings.ReplaceAll(text[last:], argsPlaceholder, args))
	return b.String(), nil
}
