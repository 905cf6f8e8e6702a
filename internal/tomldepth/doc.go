// Package tomldepth bounds how deep a TOML text nests before
// github.com/BurntSushi/toml reads it: that parser's time grows as the
// square of a key's dotted parts (a.a.a…) and of nested inline tables
// ({b={b=…), so a policy or custom command file of a few hundred KiB would
// take minutes. Check counts, outside strings and comments, a key's dots
// and the open brackets, and refuses more than MaxDepth; no file a person
// writes comes near it.
package tomldepth
