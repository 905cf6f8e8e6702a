// Package tomldepth bounds how deep a TOML text nests before
// github.com/BurntSushi/toml reads it: that parser's time grows as the
// square of a key's dotted parts (a.a.a…) and of nested inline tables
// ({b={b=…), and faster still with their product (inline tables 64 deep,
// each under a 63-part key: 8 s for a 64 KiB line), so a policy or custom
// command file of a few hundred KiB would take minutes. Check counts,
// outside strings and comments, a key's dots, the open brackets, and the
// path depth of every value (the parts of its table's header, of each
// enclosing key and of its own, and the arrays it is in), and refuses
// more than MaxDepth of any, saying which; no file a person writes comes
// near it. With Check first, the read is linear (TestGuardedReadIsLinear).
package tomldepth
