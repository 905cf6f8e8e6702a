package screens

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// rule masks what matches re: each rune of the match (or of each of its
// groups, when re has some) but its separators becomes 'x', or with when
// the rule says.
type rule struct {
	name string
	re   *regexp.Regexp
	with rune
}

// rules are what changes from run to run in the pictures, as the tests
// take them.
var rules = []rule{
	// An id: a UUID (sessions shared with Gemini CLI), or 16 random
	// bytes in base32 (older sessions' ids).
	{"uuid", regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), 0},
	{"base32", regexp.MustCompile(`\b[0-9A-Z]{26}\b`), 0},
	// A clock time in a file's name: agent-shell's transcripts,
	// 2026-11-24-01-03-18.md.
	{"timestamp", regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\b`), 0},
	// mktemp's directories: /tmp/tmp.Ab3dE6gH9j, maybe wrapped: after
	// its first slash by a chat's window, or in Emacs's echo area by a
	// backslash and a newline at the window's edge.
	{"mktemp", regexp.MustCompile(`\btmp/tmp\.((?:[A-Za-z0-9](?:\\\n)?){9}[A-Za-z0-9])`), 0},
	// Neovim's temporary directory (tempname()): /tmp/nvimfcId9f/1, and
	// from 0.11 on /tmp/nvim.USER/sRz4Jw/0.
	{"nvim tempdir", regexp.MustCompile(`/tmp/nvim(?:\.[a-z_][a-z0-9_-]*/)?([A-Za-z0-9]{6})/`), 0},
	// A gemini.prompt transcript's day and session id:
	// transcripts/2026-11-24-make-greet-say-hi-1a2b3c4d.md.
	{"transcript", regexp.MustCompile(`transcripts/(\d{4}-\d{2}-\d{2})-(?:[^/\s]*-)?([0-9a-z]{8})\.md`), 0},
	// Helix's spinner in its status line, after the mode, at whatever
	// frame the picture caught it: its first frame.
	{"helix spinner", regexp.MustCompile(`(?m)^ (?:NOR|INS|SEL) ([⣾⣽⣻⢿⡿⣟⣯⣷]) `), '⣾'},
	// An agent's elapsed time in Neovim's agents view, by the second
	// the picture caught it: after its row's state, "4s", "1m 05s" or
	// "1h 02m", its digits (a time of more digits moves the column's
	// right-aligned text, which no mask of the same length hides).
	{"nvim agents elapsed", regexp.MustCompile(`(?m)^[◌●?✓✗■] .+?  (?:queued|working|waiting for you|done|failed|stopped) +(?:(\d+)h (\d{2})m|(\d+)m (\d{2})s|(\d+)s)  `), 0},
	// A background agent's task name: its prompt's slug and four random
	// hex digits, in its worktree (.gemini/worktrees/add-a-flag-3f9a), its
	// branch, its id, quoted, or where a line was cut before it
	// (<-a-flag-3f9a": a review's tab line).
	{"background task", regexp.MustCompile(`(?:worktrees/|gemini/|bg-|"|<)[a-z0-9-]*?[a-z0-9]-([0-9a-f]{4})\b`), 0},
}

// Mask is text with what changes from run to run replaced, rune for
// rune, by 'x' (or the rule's placeholder).
func Mask(text string) string {
	for _, r := range rules {
		text = r.re.ReplaceAllStringFunc(text, func(m string) string {
			sub := r.re.FindStringSubmatchIndex(m)
			if len(sub) < 4 {
				return blank(m, r.with)
			}
			var b strings.Builder
			at := 0
			for g := 2; g+1 < len(sub); g += 2 {
				if sub[g] < 0 {
					continue
				}
				b.WriteString(m[at:sub[g]])
				b.WriteString(blank(m[sub[g]:sub[g+1]], r.with))
				at = sub[g+1]
			}
			return b.String() + m[at:]
		})
	}
	return text
}

// blank is s with each rune with (else 'x') but the separators '-', '.',
// '/' and ':', and a wrap's backslash and newline: the same for every
// run's id, time or directory.
func blank(s string, with rune) string {
	if with == 0 {
		with = 'x'
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("-./:\\\n", r) {
			return r
		}
		return with
	}, s)
}

// Result is what Copy did.
type Result struct {
	// Changed are the pictures copied because they differ; Same, those
	// equal to the committed ones once masked.
	Changed, Same []string
	// Stale are committed pictures no test wrote this time.
	Stale []string
}

// Copy masks the pictures in from and copies those that differ into to.
func Copy(from, to string) (Result, error) {
	var res Result
	entries, err := os.ReadDir(from)
	if err != nil {
		return res, fmt.Errorf("reading the pictures taken: %w", err)
	}
	taken := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !picture(e.Name()) {
			continue
		}
		taken[e.Name()] = true
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return res, fmt.Errorf("reading %s: %w", e.Name(), err)
		}
		if strings.HasSuffix(e.Name(), ".txt") {
			data = []byte(Mask(string(data)))
		}
		dst := filepath.Join(to, e.Name())
		if old, err := os.ReadFile(dst); err == nil && (bytes.Equal(old, data) || samePNG(old, data)) {
			res.Same = append(res.Same, e.Name())
			continue
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return res, fmt.Errorf("writing %s: %w", dst, err)
		}
		res.Changed = append(res.Changed, e.Name())
	}
	committed, err := os.ReadDir(to)
	if err != nil {
		return res, fmt.Errorf("reading the committed pictures: %w", err)
	}
	for _, e := range committed {
		if picture(e.Name()) && !taken[e.Name()] {
			res.Stale = append(res.Stale, e.Name())
		}
	}
	slices.Sort(res.Stale)
	return res, nil
}

func picture(name string) bool {
	return strings.HasSuffix(name, ".txt") || strings.HasSuffix(name, ".png")
}

// pngTolerance is how far (of 255) a colour channel of a browser picture
// may differ and the picture still be the same: Chromium anti-aliases a
// few glyph edges one or two levels differently run to run, where any
// change a user could see (a mark, a letter) moves channels by tens.
const pngTolerance = 8

// samePNG reports whether a and b are PNG pictures of one size whose
// pixels differ by at most pngTolerance in any channel.
func samePNG(a, b []byte) bool {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return false
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil || ia.Bounds() != ib.Bounds() {
		return false
	}
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !near(ia.At(x, y), ib.At(x, y)) {
				return false
			}
		}
	}
	return true
}

func near(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	for _, c := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
		d := int(c[0]>>8) - int(c[1]>>8)
		if d > pngTolerance || d < -pngTolerance {
			return false
		}
	}
	return true
}
