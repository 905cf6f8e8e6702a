//go:build !linux

package sandbox

// dirWatch is Linux's inotify watch; elsewhere there is none, and
// gitWatch walks every writable path at each check.
type dirWatch struct{}

func newDirWatch() *dirWatch                               { return nil }
func (d *dirWatch) add(string) bool                        { return false }
func (d *dirWatch) addWrites(string) bool                  { return false }
func (d *dirWatch) shortOf(string)                         {}
func (d *dirWatch) wait() bool                             { return false }
func (d *dirWatch) stop()                                  {}
func (d *dirWatch) made() (entries []madeEntry, lost bool) { return nil, true }
func (d *dirWatch) watched() int                           { return 0 }
func (d *dirWatch) close()                                 {}
