// Package constfold folds the constant expressions of a .kb program as lang
// does, for the translators of .kb into other languages (internal/kb2c,
// internal/kb2go), which write constants out as literals: at the program's
// integer width, and an operation that would fail at run time (a division
// by zero, a shift out of range) is no constant.
package constfold
