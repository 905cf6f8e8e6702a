package heldfile

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Record writes data to a new file of its own in dir (made, 0o700, if
// missing), named after this process and a random number with the
// suffix .json, and returns its path and the file, its lock held: close
// the file once the record is removed. It is locked first, written
// under a name readers pass over (starting with "."), then renamed: a
// reader never finds one unheld or half written.
func Record(dir string, data []byte) (string, *os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	name := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64(), 36)
	temp := filepath.Join(dir, ".new-"+name)
	f, err := Create(temp)
	if err != nil {
		return "", nil, err
	}
	record := filepath.Join(dir, name+".json")
	if _, err = f.Write(data); err == nil {
		err = os.Rename(temp, record)
	}
	if err != nil {
		os.Remove(temp)
		f.Close()
		return "", nil, err
	}
	return record, f, nil
}

// ReadRecord reads at most limit bytes of the record at path and asks
// its lock: gone reports that no one holds it (its maker ended), whatever
// err says of the read; false when the lock cannot be asked (a file
// system without locks) or the file could not be opened.
func ReadRecord(path string, limit int64) (data []byte, gone bool, err error) {
	f, err := Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	held, lockErr := HeldElsewhere(f)
	data, err = io.ReadAll(io.LimitReader(f, limit))
	return data, lockErr == nil && !held, err
}
