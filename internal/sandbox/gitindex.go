package sandbox

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/gitconfig"
)

// The index's layout, as git writes it (Documentation/gitformat-index.txt,
// read-cache.c).
const (
	indexSignature = "DIRC"
	// indexStatBytes are an entry's ctime, mtime, dev, ino, mode, uid,
	// gid and size, 32 bits each; mode is the seventh.
	indexStatBytes = 40
	indexModeAt    = 24
	gitlinkMode    = 0o160000
	// An entry's flags: the extended flag (a second word follows, from
	// version 3) and the name's length, 0xFFF when longer.
	indexExtended = 0x4000
	// maxIndexPath bounds a path kept: longer ones are skipped (git's
	// lstat of it fails: PATH_MAX), so that a planted index cannot make
	// gemini-ls hold its whole size as one path.
	maxIndexPath = 64 << 10
	// linkExtension is the split index's: the name of the shared index
	// whose entries this one changes.
	linkExtension = "link"
)

// readGitlinks are the paths the index file at p records as gitlinks
// (mode 160000: a submodule's checkout, which git status enters), read
// as git reads an index of version 2, 3 or 4, with hashSize-byte object
// names; a split index's are its own and its shared index's (a gitlink
// either names is kept: more is only read). A path is as the index
// holds it, relative to the work tree. What git would refuse (a damaged
// index) ends the reading with what was read and an error.
func readGitlinks(p string, hashSize int) ([]string, error) {
	links, shared, err := readIndexFile(p, hashSize)
	if err != nil || shared == "" {
		return links, err
	}
	more, _, err := readIndexFile(filepath.Join(filepath.Dir(p), "sharedindex."+shared), hashSize)
	return append(links, more...), err
}

// readIndexFile is readGitlinks of one file, and the shared index its
// link extension names ("" when none).
func readIndexFile(p string, hashSize int) (links []string, shared string, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, "", fmt.Errorf("reading the index %s: not a regular file", p)
	}
	links, shared, err = parseIndex(f, info.Size(), hashSize)
	if err != nil {
		return links, "", fmt.Errorf("reading the index %s: %w", p, err)
	}
	return links, shared, nil
}

// parseIndex is readIndexFile of an index of size bytes read from in.
func parseIndex(in io.Reader, size int64, hashSize int) (links []string, shared string, err error) {
	r := &indexReader{r: bufio.NewReaderSize(in, 64<<10), size: size, hashSize: hashSize}
	links, err = r.entries()
	if err == nil {
		shared, err = r.sharedIndex()
	}
	return links, shared, err
}

// indexReader reads an index in order, counting what it read.
type indexReader struct {
	r        *bufio.Reader
	size     int64 // the file's
	read     int64
	hashSize int
	version  uint32
	// prev is the start of the path before, which a version 4 path
	// starts from, and prevLen its length.
	prev    []byte
	prevLen int64
	// scratch and name are reused from entry to entry: only a
	// gitlink's path is kept.
	scratch, name []byte
}

var errIndexDamaged = errors.New("damaged")

// full reads n bytes, into a buffer the next read reuses.
func (r *indexReader) full(n int) ([]byte, error) {
	if cap(r.scratch) < n {
		r.scratch = make([]byte, n)
	}
	b := r.scratch[:n]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return nil, fmt.Errorf("%w: %w", errIndexDamaged, err)
	}
	r.read += int64(n)
	return b, nil
}

func (r *indexReader) skip(n int64) error {
	if _, err := r.r.Discard(int(n)); err != nil {
		return fmt.Errorf("%w: %w", errIndexDamaged, err)
	}
	r.read += n
	return nil
}

// entries reads the header and every entry: the gitlinks' paths.
func (r *indexReader) entries() ([]string, error) {
	head, err := r.full(12)
	if err != nil {
		return nil, err
	}
	r.version = binary.BigEndian.Uint32(head[4:8])
	count := int64(binary.BigEndian.Uint32(head[8:12]))
	fixed := int64(indexStatBytes + r.hashSize + 2)
	switch {
	case string(head[:4]) != indexSignature, r.version < 2 || r.version > 4:
		return nil, fmt.Errorf("%w: no index of version 2 to 4", errIndexDamaged)
	case count > r.size/fixed:
		return nil, fmt.Errorf("%w: %d entries in %d bytes", errIndexDamaged, count, r.size)
	}
	var links []string
	for range count {
		path, mode, err := r.entry()
		if err != nil {
			return links, err
		}
		if mode&0o170000 == gitlinkMode && len(path) > 0 {
			links = append(links, string(path))
		}
	}
	return links, nil
}

// entry reads one entry: its path (empty when too long to keep; valid
// until the next read) and mode.
func (r *indexReader) entry() (path []byte, mode uint32, err error) {
	start := r.read
	fixed, err := r.full(indexStatBytes + r.hashSize + 2)
	if err != nil {
		return nil, 0, err
	}
	mode = binary.BigEndian.Uint32(fixed[indexModeAt:])
	flags := binary.BigEndian.Uint16(fixed[len(fixed)-2:])
	if flags&indexExtended != 0 {
		if r.version < 3 {
			return nil, 0, fmt.Errorf("%w: an extended entry in a version 2 index", errIndexDamaged)
		}
		if err := r.skip(2); err != nil {
			return nil, 0, err
		}
	}
	if r.version == 4 {
		path, err = r.prefixedPath()
		return path, mode, err
	}
	name, n, err := r.nulTerminated()
	if err != nil {
		return nil, 0, err
	}
	// Padded with NULs to a multiple of 8 bytes, one at least (the
	// path's own, read).
	size := (r.read - 1 - start + 8) &^ 7
	if err := r.skip(start + size - r.read); err != nil {
		return nil, 0, err
	}
	if n > maxIndexPath {
		return nil, mode, nil
	}
	return name, mode, nil
}

// prefixedPath reads a version 4 path: how many bytes of the path
// before to drop, then what follows them. Of a path longer than
// maxIndexPath only the start is kept, which is all a later path short
// enough to keep can take of it.
func (r *indexReader) prefixedPath() ([]byte, error) {
	drop, err := r.varint()
	if err != nil {
		return nil, err
	}
	if drop > uint64(r.prevLen) {
		return nil, fmt.Errorf("%w: a path drops %d bytes of %d", errIndexDamaged, drop, r.prevLen)
	}
	rest, n, err := r.nulTerminated()
	if err != nil {
		return nil, err
	}
	keep := r.prevLen - int64(drop)
	r.prev = append(r.prev[:min(keep, int64(len(r.prev)))], rest...)
	r.prev = r.prev[:min(len(r.prev), maxIndexPath)]
	r.prevLen = keep + n
	if r.prevLen > maxIndexPath {
		return nil, nil
	}
	return r.prev, nil
}

// varint is git's offset encoding (varint.c): seven bits a byte, the
// high bit saying more follow, each continuation adding one.
func (r *indexReader) varint() (uint64, error) {
	var v uint64
	for i := 0; ; i++ {
		c, err := r.r.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errIndexDamaged, err)
		}
		r.read++
		if i > 0 {
			v++
		}
		if i >= 9 {
			return 0, fmt.Errorf("%w: a number too long", errIndexDamaged)
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

// nulTerminated reads up to and past a NUL: the first maxIndexPath
// bytes of what came before (valid until the next call), and its
// length.
func (r *indexReader) nulTerminated() (b []byte, n int64, err error) {
	b = r.name[:0]
	defer func() { r.name = b[:0] }()
	for {
		chunk, err := r.r.ReadSlice(0)
		r.read += int64(len(chunk))
		n += int64(len(chunk))
		if room := maxIndexPath - len(b); room > 0 {
			b = append(b, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			n-- // the NUL
			return b[:min(int64(len(b)), n)], n, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, 0, fmt.Errorf("%w: %w", errIndexDamaged, err)
		}
	}
}

// sharedIndex reads the extensions that follow the entries, up to the
// trailing checksum: the shared index the link extension names.
func (r *indexReader) sharedIndex() (string, error) {
	end := r.size - int64(r.hashSize)
	for r.read+8 <= end {
		head, err := r.full(8)
		if err != nil {
			return "", err
		}
		size := int64(binary.BigEndian.Uint32(head[4:]))
		if size > end-r.read {
			return "", fmt.Errorf("%w: an extension past the end", errIndexDamaged)
		}
		if string(head[:4]) != linkExtension {
			if err := r.skip(size); err != nil {
				return "", err
			}
			continue
		}
		if size < int64(r.hashSize) {
			return "", fmt.Errorf("%w: a short link extension", errIndexDamaged)
		}
		name, err := r.full(r.hashSize)
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(name), nil
	}
	return "", nil
}

// objectHashSize is the size of the object names of the repository
// whose git directory is dir: 32 bytes where its configuration (or its
// common directory's) says extensions.objectFormat = sha256, else 20.
func objectHashSize(dir string) int {
	configs := []string{filepath.Join(dir, "config")}
	if common, ok := readCommonDir(dir); ok {
		configs = append(configs, filepath.Join(common, "config"))
	}
	for _, c := range configs {
		data, err := readBounded(c, maxGitConfig)
		if err != nil {
			continue
		}
		for _, e := range gitconfig.Parse(data) {
			if e.Section == "extensions" && e.Name == "objectformat" && strings.EqualFold(e.Value, "sha256") {
				return 32
			}
		}
	}
	return 20
}
